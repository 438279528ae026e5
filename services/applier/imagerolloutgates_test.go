package applier_test

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// A stage with approval: true waits, after the stage before it passed, for
// the approval annotation naming the target; an approval of another image
// does not count; the Approved event names who approved.
func TestImageRolloutApproval(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	w := newRolloutWorld(t, map[string]string{"canary-1": "canary", "early-1": "early"})
	w.createRollout(v1alpha1.ImageRolloutSpec{Stages: []v1alpha1.RolloutStage{
		{Name: "canary", Selector: stageSelector("canary")},
		{Name: "early", Selector: stageSelector("early"), Approval: true},
	}})
	w.elect("2.0.0")
	w.waitImages("2.0.0", "canary-1")
	ro := w.waitStates("canary=Succeeded early=AwaitingApproval")
	g.Expect(readyOf(ro)).To(And(HaveField("Status", metav1.ConditionUnknown), HaveField("Reason", v1alpha1.AwaitingApprovalReason)))

	approve := func(target, by string) {
		ro := w.get(g)
		patch := client.MergeFrom(ro.DeepCopy())
		if ro.Annotations == nil {
			ro.Annotations = map[string]string{}
		}
		ro.Annotations[v1alpha1.ApprovalAnnotation("early")] = v1alpha1.Approval{Target: target, By: by, At: metav1.Now()}.Encode()
		g.Expect(env.Client.Patch(ctx, ro, patch)).To(Succeed())
	}
	approve("ghcr.io/org/web:9.9.9", "mallory")
	w.keepImages("1.0.0", "early-1")
	w.waitStates("canary=Succeeded early=AwaitingApproval")

	approve("ghcr.io/org/web:2.0.0", "alice@example.com")
	w.waitImages("2.0.0", "early-1")
	ro = w.waitStates("canary=Succeeded early=Succeeded")
	g.Expect(ro.StageStatus("early").ApprovedBy).To(Equal("alice@example.com"))
	g.Eventually(func(g Gomega) {
		var list corev1.EventList
		g.Expect(env.Client.List(ctx, &list, client.InNamespace(w.ns))).To(Succeed())
		var approved []string
		for _, e := range list.Items {
			if e.Reason == v1alpha1.ApprovedReason {
				approved = append(approved, e.Message)
			}
		}
		g.Expect(approved).To(ConsistOf(And(ContainSubstring("alice@example.com"), ContainSubstring("2.0.0"))))
	}, "1m", "200ms").Should(Succeed())
	w.checkStageOrder("ghcr.io/org/web:2.0.0", []string{"canary", "early"})
}

// No stage is admitted inside a freeze window, in its time zone: an election
// on Friday 16:30 in Berlin waits for Monday 08:00 there (07:00 UTC), when
// the window of "0 16 * * FRI" for 64h closes.
func TestImageRolloutFreezeWindow(t *testing.T) {
	g := NewWithT(t)
	w := newRolloutWorld(t, map[string]string{"canary-1": "canary", "rest-1": ""})
	w.clock.SetTime(time.Date(2026, 12, 4, 15, 30, 0, 0, time.UTC))
	w.createRollout(v1alpha1.ImageRolloutSpec{
		Stages: []v1alpha1.RolloutStage{{Name: "canary", Selector: stageSelector("canary")}, {Name: "rest"}},
		FreezeWindows: []v1alpha1.FreezeWindow{{
			Schedule: "0 16 * * FRI", Duration: metav1.Duration{Duration: 64 * time.Hour}, TimeZone: "Europe/Berlin",
		}},
	})
	w.elect("2.0.0")
	ro := w.waitStates("canary=Frozen rest=Pending")
	g.Expect(readyOf(ro)).To(HaveField("Reason", v1alpha1.FrozenReason))
	g.Expect(ro.StageStatus("canary").Message).To(ContainSubstring("2026-12-07T07:00:00Z"))
	w.keepImages("1.0.0", "canary-1", "rest-1")

	w.clock.SetTime(time.Date(2026, 12, 7, 6, 59, 0, 0, time.UTC))
	w.keepImages("1.0.0", "canary-1")
	w.clock.SetTime(time.Date(2026, 12, 7, 7, 0, 0, 0, time.UTC))
	w.waitImages("2.0.0", "canary-1", "rest-1")
	w.waitStates("canary=Succeeded rest=Succeeded")
	w.checkStageOrder("ghcr.io/org/web:2.0.0", []string{"canary", "rest"})
}
