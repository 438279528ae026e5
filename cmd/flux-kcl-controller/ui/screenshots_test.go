package ui_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// An operator bound to four team namespaces sees their runs counted per namespace and state,
// the failing ones first, and a rollout in progress; nothing of the cluster's other
// namespaces. With FKC_UI_SCREENSHOTS set this test writes the README's screenshots.
func TestOverviewOfAnOperatorsNamespaces(t *testing.T) {
	e := cluster(t)
	ctx := context.Background()
	teams := map[string][]string{
		"team-payments": {"ready", "ready", "ready", "failing", "progressing"},
		"team-search":   {"ready", "ready", "ready", "ready", "ready", "ready", "suspended"},
		"team-web":      {"ready", "ready", "ready", "ready", "failing"},
		"team-data":     {"ready", "ready", "suspended", "progressing"},
	}
	failures := []string{
		`main.k:12:5: EvaluationError: attribute 'replicas' of Deployment is required`,
		`main.k:31:9: TypeError: expected str, got int (value 8080) for container port name`,
	}
	f := 0
	for ns, states := range teams {
		if err := e.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
		bindUser(t, ns, "ops", "get", "list", "watch", "patch")
		for i, state := range states {
			name := fmt.Sprintf("%s-%d", strings.TrimPrefix(ns, "team-"), i+1)
			rev := fmt.Sprintf("main@sha1:%040x", i*7919+len(ns))
			status := ready(rev)
			mutate := func(*v1alpha1.KCLRun) {}
			switch state {
			case "failing":
				status = failing(failures[f%len(failures)])
				f++
			case "progressing":
				status.Conditions = []metav1.Condition{condition(meta.ReadyCondition, metav1.ConditionUnknown, meta.ProgressingReason, "Reconciliation in progress")}
			case "suspended":
				mutate = func(r *v1alpha1.KCLRun) { r.Spec.Suspend = true }
			}
			newRun(t, ns, name, mutate, status)
		}
	}
	demoRuns(t, "team-web")
	base := serve(t, proxyOptions(e))
	tb := tab(t, map[string]any{"X-Forwarded-User": "ops"})
	open(t, tb, base+"/")
	page := waitText(t, tb, "team-payments", false)
	for _, want := range []string{"24 KCLRuns", "team-data", "team-search", "team-web", "main.k:12:5"} {
		if !strings.Contains(page, want) {
			t.Errorf("the operator's overview lacks %q:\n%s", want, page)
		}
	}
	time.Sleep(200 * time.Millisecond) // let the fonts settle for the picture
	screenshot(t, tb, "overview.png")

	open(t, tb, base+"/kclruns/team-web/web")
	waitText(t, tb, "Diff the program", false)
	screenshot(t, tb, "kclrun.png")
}
