package applier_test

import (
	"testing"
	"time"

	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
	"github.com/kcl-lang/flux-kcl-controller/services/applier"
)

// BenchmarkNoOpReconcile measures a request that changes nothing, from
// publish to settled, and reports the apiserver writes it caused.
func BenchmarkNoOpReconcile(b *testing.B) {
	ns := newNamespace(b)
	artifact := publishProgram(b, ns, "app", webApp(1, true))
	createKCLRun(b, ns, "web", "app")
	readyAt(b, ns, "web", artifact.Revision)
	key := ns + "/web"
	waitQuiet(b, key)
	before := writes.n.Load()
	b.ResetTimer()
	for range b.N {
		n := tracker.count(key)
		request(b, ns, "web", reconcilerequest.ReasonRequested)
		waitCount(b, key, n)
		if r := tracker.last(key).Result; r != applier.ResultNoOp {
			b.Fatalf("result %q, want %q", r, applier.ResultNoOp)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(writes.n.Load()-before)/float64(b.N), "writes/op")
}

// BenchmarkApplyNewRevision measures a new revision of a Deployment and a
// Service, from publish to status written (fetch, compile, apply, status).
func BenchmarkApplyNewRevision(b *testing.B) {
	ns := newNamespace(b)
	artifact := publishProgram(b, ns, "app", webApp(1, true))
	createKCLRun(b, ns, "web", "app")
	readyAt(b, ns, "web", artifact.Revision)
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		waitQuiet(b, ns+"/web")
		publishProgram(b, ns, "app", webApp(2+i%50, true))
		n := tracker.count(ns + "/web")
		b.StartTimer()
		request(b, ns, "web", reconcilerequest.ReasonSourceChanged)
		waitCount(b, ns+"/web", n)
		if r := tracker.last(ns + "/web").Result; r != applier.ResultApplied {
			b.Fatalf("result %q, want %q", r, applier.ResultApplied)
		}
	}

}

func waitCount(tb testing.TB, key string, n int) {
	deadline := time.Now().Add(time.Minute)
	for tracker.count(key) <= n {
		if time.Now().After(deadline) {
			tb.Fatalf("no reconcile of %s within a minute", key)
		}
		time.Sleep(time.Millisecond)
	}
}
