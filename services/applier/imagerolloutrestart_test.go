package applier_test

import (
	"testing"
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// A watcher restarted mid-bake resumes the rollout from its status: the bake
// keeps its start (no reset: 6 more minutes finish the 10), and the next
// stage is neither skipped nor admitted early.
func TestImageRolloutResumesAfterWatcherRestart(t *testing.T) {
	g := NewWithT(t)
	w := newRolloutWorld(t, map[string]string{"canary-1": "canary", "early-1": "early"})
	w.createRollout(v1alpha1.ImageRolloutSpec{Stages: []v1alpha1.RolloutStage{
		{Name: "canary", Selector: stageSelector("canary"), Bake: &metav1.Duration{Duration: 10 * time.Minute}},
		{Name: "early", Selector: stageSelector("early")},
	}})
	w.elect("2.0.0")
	w.waitImages("2.0.0", "canary-1")
	before := w.waitStates("canary=Baking early=Pending").StageStatus("canary")

	w.clock.Step(4 * time.Minute)
	w.stopWatcher()
	w.startWatcher()
	w.keepImages("1.0.0", "early-1")
	after := w.waitStates("canary=Baking early=Pending").StageStatus("canary")
	g.Expect(after.ReadyAt.Equal(before.ReadyAt)).To(BeTrue(), "the bake restarted: %s, was %s", after.ReadyAt, before.ReadyAt)
	g.Expect(after.AdmittedAt.Equal(before.AdmittedAt)).To(BeTrue())

	w.clock.Step(5 * time.Minute)
	w.keepImages("1.0.0", "early-1")
	w.clock.Step(time.Minute)
	w.waitImages("2.0.0", "early-1")
	w.waitStates("canary=Succeeded early=Succeeded")
	w.checkStageOrder("ghcr.io/org/web:2.0.0", []string{"canary", "early"})
}
