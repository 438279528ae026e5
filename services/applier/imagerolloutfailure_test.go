package applier_test

import (
	"testing"
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// An election the apiserver refuses (tag "Broken" names a ConfigMap
// "release-Broken", not a valid name) fails the canary stage: Halt stops
// there, the canary keeps trying the target, the rest keep last good, and
// the rollout is Ready=False and Stalled with the KCLRun's message. A newer
// election starts over from the canary.
func TestImageRolloutHalt(t *testing.T) {
	g := NewWithT(t)
	w := newRolloutWorld(t, map[string]string{"canary-1": "canary", "rest-1": ""})
	w.createRollout(v1alpha1.ImageRolloutSpec{OnFailure: v1alpha1.OnFailureHalt,
		Stages: []v1alpha1.RolloutStage{{Name: "canary", Selector: stageSelector("canary")}, {Name: "rest"}}})
	w.elect("Broken")
	ro := w.waitStates("canary=Failed rest=Pending")
	g.Expect(readyOf(ro)).To(And(HaveField("Status", metav1.ConditionFalse), HaveField("Reason", v1alpha1.StageFailedReason),
		HaveField("Message", ContainSubstring("canary-1"))))
	g.Expect(ro.Status.Halted).To(BeTrue())
	g.Expect(ro.StageStatus("canary").Image.String()).To(Equal("ghcr.io/org/web:Broken"), "Halt keeps the stage at the target")
	w.keepImages("1.0.0", "rest-1")
	w.expectEvents(v1alpha1.StageAdmittedReason, v1alpha1.StageFailedReason)

	w.elect("3.0.0")
	w.waitImages("3.0.0", "canary-1", "rest-1")
	w.waitStates("canary=Succeeded rest=Succeeded")
	w.checkStageOrder("ghcr.io/org/web:3.0.0", []string{"canary", "rest"})
}

// Rollback returns the failed stage's KCLRuns to last good: the canary is
// Ready at 1.0.0 again and the rest never moved.
func TestImageRolloutRollback(t *testing.T) {
	g := NewWithT(t)
	w := newRolloutWorld(t, map[string]string{"canary-1": "canary", "rest-1": ""})
	w.createRollout(v1alpha1.ImageRolloutSpec{OnFailure: v1alpha1.OnFailureRollback,
		Stages: []v1alpha1.RolloutStage{{Name: "canary", Selector: stageSelector("canary")}, {Name: "rest"}}})
	w.elect("Broken")
	ro := w.waitStates("canary=Failed rest=Pending")
	g.Expect(readyOf(ro)).To(And(HaveField("Status", metav1.ConditionFalse), HaveField("Reason", v1alpha1.RolledBackReason)))
	w.waitImages("1.0.0", "canary-1")
	w.keepImages("1.0.0", "rest-1")
	w.expectEvents(v1alpha1.StageFailedReason, v1alpha1.RolledBackReason)
}

// A newer election supersedes a running rollout: the canary, baking 2.0.0,
// moves on to 3.0.0 (it never returns to 1.0.0); the rest never hold 2.0.0
// and get 3.0.0 after the canary baked it.
func TestImageRolloutSupersede(t *testing.T) {
	g := NewWithT(t)
	w := newRolloutWorld(t, map[string]string{"canary-1": "canary", "rest-1": ""})
	w.createRollout(v1alpha1.ImageRolloutSpec{Stages: []v1alpha1.RolloutStage{
		{Name: "canary", Selector: stageSelector("canary"), Bake: &metav1.Duration{Duration: 10 * time.Minute}},
		{Name: "rest"},
	}})
	w.elect("2.0.0")
	w.waitImages("2.0.0", "canary-1")
	w.waitStates("canary=Baking rest=Pending")
	w.elect("3.0.0")
	w.waitImages("3.0.0", "canary-1")
	ro := w.waitStates("canary=Baking rest=Pending")
	g.Expect(ro.Status.Target.String()).To(Equal("ghcr.io/org/web:3.0.0"))
	g.Expect(ro.Status.LastGood.String()).To(Equal("ghcr.io/org/web:1.0.0"), "a superseded target never completed")
	w.keepImages("1.0.0", "rest-1")
	w.expectEvents(v1alpha1.RolloutSupersededReason)

	w.clock.Step(10 * time.Minute)
	w.waitImages("3.0.0", "rest-1")
	w.waitStates("canary=Succeeded rest=Succeeded")
	w.checkStageOrder("ghcr.io/org/web:3.0.0", []string{"canary", "rest"})
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, a := range w.applied {
		g.Expect(a.kclRun == "rest-1" && a.image == "ghcr.io/org/web:2.0.0").To(BeFalse(), "rest-1 applied the superseded 2.0.0")
		g.Expect(a.kclRun == "canary-1" && a.image == "ghcr.io/org/web:1.0.0" && a.rv > w.firstApplied("canary-1", "ghcr.io/org/web:2.0.0")).
			To(BeFalse(), "the canary went back to 1.0.0")
	}
}

// firstApplied is the resourceVersion at which the KCLRun first applied image (call with mu held).
func (w *rolloutWorld) firstApplied(kclRun, image string) int64 {
	for _, a := range w.applied {
		if a.kclRun == kclRun && a.image == image {
			return a.rv
		}
	}
	return 1 << 62
}
