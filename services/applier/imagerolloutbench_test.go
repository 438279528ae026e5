package applier_test

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"

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
			ns, key := w.tenants["web"], w.key("web")
			// The watcher's own requests (Created, the rollout's) settle first.
			requestAndWait(b, ns, "web", reconcilerequest.ReasonRequested)
			waitQuiet(b, key)
			before := requests.In(ns)
			b.ResetTimer()
			for range b.N {
				n := tracker.count(key)
				request(b, ns, "web", reconcilerequest.ReasonImagePolicyChanged)
				waitCount(b, key, n)
				if r := tracker.last(key).Result; r != applier.ResultNoOp {
					b.Fatalf("result %q, want %q", r, applier.ResultNoOp)
				}
			}
			b.StopTimer()
			after := requests.In(ns)
			total := 0
			for k, v := range after {
				total += v - before[k]
			}
			b.ReportMetric(float64(total)/float64(b.N), "requests/op")
		})
	}
}

// BenchmarkImageRolloutWaves rolls an election out to FKC_ROLLOUT_N KCLRuns
// (default 100) in three stages of 1%, 9% and 90%, bake 0, and reports per
// gate the time from the stage before passing until every KCLRun of the
// next one is Ready at the target (the next stage passed), and the election to canary applied (p99):
//
//	FKC_ROLLOUT_N=1000 go test ./services/applier/ -run XXX -bench ImageRolloutWaves -benchtime 1x
func BenchmarkImageRolloutWaves(b *testing.B) {
	n := 100
	if v, err := strconv.Atoi(os.Getenv("FKC_ROLLOUT_N")); err == nil && v >= 100 {
		n = v
	}
	stages := map[string]string{}
	for i := range n {
		switch {
		case i < n/100:
			stages[fmt.Sprintf("t-%04d", i)] = "canary"
		case i < n/10:
			stages[fmt.Sprintf("t-%04d", i)] = "early"
		default:
			stages[fmt.Sprintf("t-%04d", i)] = ""
		}
	}
	w := newRolloutWorld(b, stages)
	w.createRollout(v1alpha1.ImageRolloutSpec{Stages: []v1alpha1.RolloutStage{
		{Name: "canary", Selector: stageSelector("canary")},
		{Name: "early", Selector: stageSelector("early")},
		{Name: "rest"},
	}})
	order := []string{"canary", "early", "rest"}
	b.ResetTimer()
	for i := range b.N {
		tag := fmt.Sprintf("2.0.%d", i)
		target := "ghcr.io/org/web:" + tag
		elected := time.Now()
		w.elect(tag)
		w.eventually(func(g Gomega, ro *v1alpha1.ImageRollout) {
			g.Expect(ro.Status.LastGood.String()).To(Equal(target), "the rollout completed")
		})
		b.StopTimer()
		w.mu.Lock()
		passedAt := map[string]time.Time{}
		for _, st := range w.statuses {
			for name, state := range st.states {
				if _, ok := passedAt[name]; !ok && st.target == target && state == v1alpha1.StageSucceeded {
					passedAt[name] = st.at
				}
			}
		}
		last := map[string]time.Time{}
		var canary []time.Duration
		for _, a := range w.applied {
			if a.image != target {
				continue
			}
			stage := w.stages[a.kclRun]
			if stage == "" {
				stage = "rest"
			}
			if a.at.After(last[stage]) {
				last[stage] = a.at
			}
			if stage == "canary" {
				canary = append(canary, a.at.Sub(elected))
			}
		}
		for _, st := range w.statuses {
			if st.target == target {
				b.Logf("N=%d: the rollout took %s %s after the election", n, target, st.at.Sub(elected))
				break
			}
		}
		w.mu.Unlock()
		sort.Slice(canary, func(i, j int) bool { return canary[i] < canary[j] })
		if len(canary) > 0 {
			b.ReportMetric(canary[(len(canary)*99-1)/100].Seconds(), "election-to-canary-p99-s")
		}
		for k := 1; k < len(order); k++ {
			applied := last[order[k]].Sub(passedAt[order[k-1]])
			ready := passedAt[order[k]].Sub(passedAt[order[k-1]])
			b.ReportMetric(ready.Seconds(), fmt.Sprintf("gate-%s-%s-ready-s", order[k-1], order[k]))
			b.Logf("N=%d: %s passed; every KCLRun of %s applied %s %s later, all Ready (stage passed) %s later",
				n, order[k-1], order[k], target, applied, ready)
		}
		b.StartTimer()
	}
}
