package applier_test

import (
	"fmt"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
	"github.com/kcl-lang/flux-kcl-controller/services/applier"
)

// BenchmarkImageRolloutElectionToCanary measures an election until the
// canary applied it (watcher step, status write, request, resolve, apply),
// the rest following after bake 0 outside the timer.
func BenchmarkImageRolloutElectionToCanary(b *testing.B) {
	w := newRolloutWorld(b, map[string]string{"canary-1": "canary", "rest-1": ""})
	w.createRollout(v1alpha1.ImageRolloutSpec{Stages: []v1alpha1.RolloutStage{
		{Name: "canary", Selector: stageSelector("canary")}, {Name: "rest"},
	}})
	g := NewWithT(b)
	b.ResetTimer()
	for i := range b.N {
		tag := fmt.Sprintf("2.0.%d", i)
		w.elect(tag)
		g.Eventually(func(g Gomega) string { return w.imageOf(g, "canary-1") }, "1m", "2ms").Should(Equal("ghcr.io/org/web:" + tag))
		b.StopTimer()
		w.waitImages(tag, "canary-1", "rest-1")
		w.waitStates("canary=Succeeded rest=Succeeded")
		b.StartTimer()
	}
}

// BenchmarkNoOpReconcileMarker is BenchmarkNoOpReconcile for a program with
// an $imagepolicy marker, without and with an ImageRollout governing its
// policy: the apiserver requests a no-op costs, which a rollout must not change.
func BenchmarkNoOpReconcileMarker(b *testing.B) {
	for _, withRollout := range []bool{false, true} {
		b.Run(fmt.Sprintf("rollout=%v", withRollout), func(b *testing.B) {
			w := newRolloutWorld(b, map[string]string{"web": "canary"})
			if withRollout {
				w.createRollout(v1alpha1.ImageRolloutSpec{Stages: []v1alpha1.RolloutStage{{Name: "canary", Selector: stageSelector("canary")}}})
			}
			key := w.ns + "/web"
			// The watcher's own requests (Created, the rollout's) settle first.
			requestAndWait(b, w.ns, "web", reconcilerequest.ReasonRequested)
			waitQuiet(b, key)
			before := requests.in(w.ns)
			b.ResetTimer()
			for range b.N {
				n := tracker.count(key)
				request(b, w.ns, "web", reconcilerequest.ReasonImagePolicyChanged)
				waitCount(b, key, n)
				if r := tracker.last(key).Result; r != applier.ResultNoOp {
					b.Fatalf("result %q, want %q", r, applier.ResultNoOp)
				}
			}
			b.StopTimer()
			after := requests.in(w.ns)
			total := 0
			for k, v := range after {
				total += v - before[k]
			}
			b.ReportMetric(float64(total)/float64(b.N), "requests/op")
		})
	}
}
