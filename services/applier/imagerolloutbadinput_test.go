package applier_test

import (
	"context"
	"testing"

	"github.com/fluxcd/pkg/apis/meta"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// Bad input ends as Ready=False with a clear message and moves nobody: a
// second rollout of the same policy (the first keeps governing and rolls
// out), a rollout of a policy that does not exist, a stage selecting nothing.
func TestImageRolloutBadInput(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	w := newRolloutWorld(t, map[string]string{"canary-1": "canary", "rest-1": ""})
	w.createRollout(v1alpha1.ImageRolloutSpec{Stages: []v1alpha1.RolloutStage{{Name: "canary", Selector: stageSelector("canary")}, {Name: "rest"}}})

	create := func(name, policy string, stages ...v1alpha1.RolloutStage) {
		ro := &v1alpha1.ImageRollout{ObjectMeta: objectMeta(w.ns, name), Spec: v1alpha1.ImageRolloutSpec{
			ImagePolicyRef: meta.LocalObjectReference{Name: policy}, Stages: stages}}
		g.Expect(env.Client.Create(ctx, ro)).To(Succeed())
		t.Cleanup(func() { _ = env.Client.Delete(ctx, ro) })
	}
	notReady := func(name, reason, message string) {
		g.Eventually(func(g Gomega) {
			ro := &v1alpha1.ImageRollout{}
			g.Expect(env.Client.Get(ctx, types.NamespacedName{Namespace: w.ns, Name: name}, ro)).To(Succeed())
			g.Expect(readyOf(ro)).To(And(HaveField("Status", metav1.ConditionFalse), HaveField("Reason", reason),
				HaveField("Message", ContainSubstring(message))))
		}, "1m", "100ms").Should(Succeed())
	}
	// Created in the same second as "web" (creation times have seconds), it
	// is still the younger: ties go to the first name.
	create("web-2", "web", v1alpha1.RolloutStage{Name: "all"})
	notReady("web-2", v1alpha1.ConflictingRolloutReason, "already rolled out by ImageRollout "+w.ns+"/web")
	create("nopolicy", "absent", v1alpha1.RolloutStage{Name: "all"})
	notReady("nopolicy", v1alpha1.RolloutPolicyNotFoundReason, "absent: not found")

	w.elect("2.0.0")
	w.waitImages("2.0.0", "canary-1", "rest-1")
	w.waitStates("canary=Succeeded rest=Succeeded")
	w.checkStageOrder("ghcr.io/org/web:2.0.0", []string{"canary", "rest"})

	// An edit that leaves a stage empty stops the rollout where it is.
	ro := w.get(g)
	ro.Spec.Stages[0].Selector = stageSelector("nobody")
	g.Expect(env.Client.Update(ctx, ro)).To(Succeed())
	notReady("web", v1alpha1.EmptyStageReason, "stages canary select no KCLRun")
	w.elect("3.0.0")
	w.keepImages("2.0.0", "canary-1", "rest-1")
}
