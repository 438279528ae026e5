package ui_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/fluxcd/pkg/apis/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/ui"
)

// The ImageRollout page shows the stages with their gates, the KCLRuns of each stage and the
// bake time left; Approve sets the stage's approval annotation for the current target, and
// Suspend suspends the rollout, the page following live.
func TestRolloutPageAndApprove(t *testing.T) {
	e := cluster(t)
	ctx := context.Background()
	ns := namespace(t, "rollout")
	bake := metav1.Duration{Duration: time.Hour}
	ro := &v1alpha1.ImageRollout{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
		Spec: v1alpha1.ImageRolloutSpec{
			ImagePolicyRef: meta.LocalObjectReference{Name: "web"},
			Stages: []v1alpha1.RolloutStage{
				{Name: "canary", Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"wave": "canary"}}, Bake: &bake},
				{Name: "prod", Approval: true},
			},
		},
	}
	if err := e.Client.Create(ctx, ro); err != nil {
		t.Fatal(err)
	}
	target := &v1alpha1.RolloutImage{Name: "nginx", Tag: "1.7.9"}
	good := &v1alpha1.RolloutImage{Name: "nginx", Tag: "1.7.8"}
	readyAt := metav1.NewTime(time.Now().Add(-20 * time.Minute))
	ro.Status = v1alpha1.ImageRolloutStatus{
		Target: target, LastGood: good,
		Conditions: []metav1.Condition{condition(meta.ReadyCondition, metav1.ConditionFalse, v1alpha1.RolloutProgressingReason, "stage canary baking")},
		Stages: []v1alpha1.StageStatus{
			{Name: "canary", State: v1alpha1.StageBaking, Image: target, Ready: 1, Total: 1, AdmittedAt: &readyAt, ReadyAt: &readyAt},
			{Name: "prod", State: v1alpha1.StageAwaitingApproval, Image: good, Ready: 0, Total: 1, Message: "waiting for the approval of nginx:1.7.9"},
		},
	}
	if err := e.Client.Status().Update(ctx, ro); err != nil {
		t.Fatal(err)
	}
	for name, stage := range map[string]string{"edge": "canary", "main": "prod"} {
		st := ready(rev1)
		st.ImageRollouts = []v1alpha1.KCLRunRollout{{Rollout: ns + "/web", Policy: ns + "/web", Stage: stage, Image: "nginx:1.7.9"}}
		newRun(t, ns, name, nil, st)
	}

	base := serve(t, ui.Options{})
	tb := tab(t, nil)
	open(t, tb, base+"/")
	waitText(t, tb, ns+"/web", false)
	open(t, tb, base+"/imagerollouts/"+ns+"/web")
	page := waitText(t, tb, "Approve prod", false)
	for _, want := range []string{"nginx:1.7.9", "nginx:1.7.8", "canary", "Baking", "bake 1h0m0s", "bake: 40m left", ns + "/edge", "prod", "AwaitingApproval", "approval", ns + "/main", "Approve prod"} {
		if !strings.Contains(page, want) {
			t.Errorf("the rollout page lacks %q:\n%s", want, page)
		}
	}
	waitLive(t, tb)
	if err := chromedp.Do(tb, chromedp.Click(chromedp.Search(`//button[text()="Approve prod"]`))); err != nil {
		t.Fatal(err)
	}
	got := &v1alpha1.ImageRollout{}
	deadline := time.Now().Add(waitTimeout)
	for time.Now().Before(deadline) {
		if err := e.Client.Get(ctx, client.ObjectKeyFromObject(ro), got); err != nil {
			t.Fatal(err)
		}
		if got.Annotations[v1alpha1.ApprovalAnnotation("prod")] != "" {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	approval, err := v1alpha1.ParseApproval(got.Annotations[v1alpha1.ApprovalAnnotation("prod")])
	if err != nil {
		t.Fatal(err)
	}
	if approval.Target != "nginx:1.7.9" || approval.By == "" {
		t.Errorf("approval %+v, want target nginx:1.7.9 by the user", approval)
	}

	// Suspend: spec.suspend in the apiserver, and the page turns to Resume without a reload.
	if err := chromedp.Do(tb, chromedp.Click(chromedp.Search(`//button[text()="Suspend"]`))); err != nil {
		t.Fatal(err)
	}
	waitText(t, tb, "Resume", false)
	if err := e.Client.Get(ctx, client.ObjectKeyFromObject(ro), got); err != nil {
		t.Fatal(err)
	}
	if !got.Spec.Suspend {
		t.Error("the page shows Resume but the ImageRollout is not suspended")
	}
}
