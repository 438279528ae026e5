package applier_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	. "github.com/onsi/gomega"

	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
	"github.com/kcl-lang/flux-kcl-controller/internal/shard"
)

// Two more appliers join the package's one; 50 KCLRuns get bursts of
// requests. All converge, no KCLRun is ever reconciled by two at once, and
// every request ends acked.
func TestTwoAppliersNeverOverlap(t *testing.T) {
	const runs = 50
	g := NewWithT(t)
	ctx := context.Background()
	for _, name := range []string{"applier-a", "applier-b"} {
		stop, err := startApplier(ctx, name, "", nil)
		g.Expect(err).NotTo(HaveOccurred())
		t.Cleanup(stop)
	}
	ns := newNamespace(t)
	revisions := make([]string, runs)
	for i := range runs {
		source := fmt.Sprintf("src-%d", i)
		publishProgram(t, ns, source, configMap(fmt.Sprintf("cm-%d", i), "first"))
		createKCLRun(t, ns, fmt.Sprintf("run-%d", i), source)
	}
	// A burst: new revisions and duplicate requests while the first round runs.
	for i := range runs {
		a := publishProgram(t, ns, fmt.Sprintf("src-%d", i), configMap(fmt.Sprintf("cm-%d", i), "second"))
		revisions[i] = a.Revision
		for range 3 {
			request(t, ns, fmt.Sprintf("run-%d", i), reconcilerequest.ReasonSourceChanged)
		}
	}
	for i := range runs {
		readyAt(t, ns, fmt.Sprintf("run-%d", i), revisions[i])
	}
	assertNoOverlap(t)
	expectAllAcked(t, ns)
}

// expectAllAcked waits until the stream holds no request for the KCLRuns of
// namespace: in a work-queue stream a request leaves only when acked.
func expectAllAcked(t *testing.T, namespace string) {
	t.Helper()
	js, done := suiteJetStream(t)
	defer done()
	filter := reconcilerequest.Subject("", namespace, "x")
	filter = filter[:strings.LastIndex(filter, ".")] + ".>"
	NewWithT(t).Eventually(func(g Gomega) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		stream, err := js.Stream(ctx, shard.Name("").Stream())
		g.Expect(err).NotTo(HaveOccurred())
		info, err := stream.Info(ctx, jetstream.WithSubjectFilter(filter))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(info.State.Subjects).To(BeEmpty())
	}, "2m", "500ms").Should(Succeed())
}
