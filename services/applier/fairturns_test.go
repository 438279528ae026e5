package applier_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/kcl-lang/flux-kcl-controller/services/applier"
)

// One namespace's burst is queued ahead of another namespace's single
// KCLRun; an applier running one reconcile at a time takes the namespaces in
// turns, so the quiet KCLRun is reconciled among the first, long before the
// burst is through (first come, first served, it came last). Every request
// still ends acked and no KCLRun is reconciled twice at once.
func TestQuietNamespaceIsNotHeldBehindABurst(t *testing.T) {
	const burst = 30
	burstNS, quietNS := newNamespace(t), newNamespace(t)
	revisions := make([]string, burst)
	var quietRevision string
	var order []string
	whileApplierStopped(t, func() {
		// Queued while no applier runs: the burst first, the quiet one last.
		for i := range burst {
			source := fmt.Sprintf("src-%d", i)
			revisions[i] = publishProgram(t, burstNS, source, configMap(fmt.Sprintf("cm-%d", i), "burst")).Revision
			createKCLRun(t, burstNS, fmt.Sprintf("run-%d", i), source)
		}
		quietRevision = publishProgram(t, quietNS, "src", configMap("cm", "quiet")).Revision
		createKCLRun(t, quietNS, "run", "src")

		rec := &enterOrder{}
		stop, err := startApplierConcurrent(context.Background(), "applier-fair", 1, rec)
		if err != nil {
			t.Fatal(err)
		}
		defer stop()
		readyAt(t, quietNS, "run", quietRevision)
		for i := range burst {
			readyAt(t, burstNS, fmt.Sprintf("run-%d", i), revisions[i])
		}
		order = rec.keys()
	})
	assertNoOverlap(t)
	expectAllAcked(t, burstNS)
	expectAllAcked(t, quietNS)

	quiet := slices.Index(order, quietNS+"/run")
	burstBefore := 0
	for _, k := range order[:max(quiet, 0)] {
		if len(k) > len(burstNS) && k[:len(burstNS)+1] == burstNS+"/" {
			burstBefore++
		}
	}
	NewWithT(t).Expect(quiet).To(BeNumerically(">=", 0), "the quiet KCLRun was never reconciled")
	// Round-robin gives it the second or third turn (the first burst request
	// may start before it is queued); first come, first served, the 31st.
	NewWithT(t).Expect(burstBefore).To(BeNumerically("<=", 2), "reconciles in order: %v", order)
}

// enterOrder records the order reconciles start in, besides the package's tracker.
type enterOrder struct {
	mu    sync.Mutex
	order []string
}

func (e *enterOrder) enter(key string) {
	tracker.enter(key)
	e.mu.Lock()
	e.order = append(e.order, key)
	e.mu.Unlock()
}

func (e *enterOrder) keys() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.order)
}

// startApplierConcurrent starts an applier replica reconciling at most
// concurrent KCLRuns at once, its reconciles recorded in rec.
func startApplierConcurrent(ctx context.Context, name string, concurrent int, rec *enterOrder) (stop func(), err error) {
	return startApplierWith(ctx, name, "", nil, workers, func(cfg *applier.Config, deps *applier.Deps) {
		cfg.Concurrent = concurrent
		deps.Hooks.Enter = rec.enter
	})
}
