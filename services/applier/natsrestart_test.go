package applier_test

import (
	"fmt"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
)

// NATS restarts in the middle of a burst; every KCLRun still converges to its
// latest revision, from the requests the stream kept on disk.
func TestNATSRestartMidBurstConverges(t *testing.T) {
	const runs = 20
	ns := newNamespace(t)
	latest := make([]string, runs)
	for i := range runs {
		a := publishProgram(t, ns, fmt.Sprintf("src-%d", i), configMap(fmt.Sprintf("cm-%d", i), "v1"))
		latest[i] = a.Revision
		createKCLRun(t, ns, fmt.Sprintf("run-%d", i), fmt.Sprintf("src-%d", i))
	}
	for i := range runs {
		a := publishProgram(t, ns, fmt.Sprintf("src-%d", i), configMap(fmt.Sprintf("cm-%d", i), "v2"))
		latest[i] = a.Revision
		request(t, ns, fmt.Sprintf("run-%d", i), reconcilerequest.ReasonSourceChanged)
		if i == runs/2 {
			if err := nats.Restart(); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := range runs {
		readyAt(t, ns, fmt.Sprintf("run-%d", i), latest[i])
	}
	assertNoOverlap(t)
	expectAllAcked(t, ns)
}
