package ui_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/fluxcd/pkg/apis/meta"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/ui"
)

const rev1 = "main@sha1:1111111111111111111111111111111111111111"

// demoRuns fills ns with what an operator sees on a working day: a run that applied a
// ConfigMap and a Deployment whose image a policy moved (with its events), one whose
// program fails at main.k:3, and one suspended. It returns the healthy run.
func demoRuns(t *testing.T, ns string) *v1alpha1.KCLRun {
	t.Helper()
	e := cluster(t)
	ctx := context.Background()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-config"}, Data: map[string]string{"a": "1"}}
	replicas := int32(2)
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.7.9"}}},
			},
		},
	}
	for _, o := range []client.Object{cm, dep} {
		if err := e.Client.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	status := ready(rev1)
	status.Inventory = &v1alpha1.ResourceInventory{Entries: []v1alpha1.ResourceRef{
		{ID: ns + "_web-config__ConfigMap", Version: "v1"},
		{ID: ns + "_web_apps_Deployment", Version: "v1"},
	}}
	status.Images = []v1alpha1.ResolvedImage{{Policy: ns + "/web", Location: "main.k:24", From: "nginx:1.7.8", To: "nginx:1.7.9"}}
	status.History = meta.History{{
		Digest: "sha256:3333333333333333333333333333333333333333333333333333333333333333", FirstReconciled: metav1.Now(), LastReconciled: metav1.Now(),
		LastReconciledDuration: metav1.Duration{Duration: 850 * time.Millisecond}, LastReconciledStatus: "ReconciliationSucceeded",
		TotalReconciliations: 3, Metadata: map[string]string{"revision": rev1},
	}}
	web := newRun(t, ns, "web", nil, status)
	for i, msg := range []string{
		"nginx:1.7.7 → nginx:1.7.8 (policy " + ns + "/web, main.k:24)",
		"nginx:1.7.8 → nginx:1.7.9 (policy " + ns + "/web, main.k:24)",
	} {
		ev := &corev1.Event{
			ObjectMeta:     metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("web.image%d", i)},
			InvolvedObject: corev1.ObjectReference{Kind: v1alpha1.KCLRunKind, APIVersion: v1alpha1.GroupVersion.String(), Namespace: ns, Name: "web", UID: web.UID},
			Reason:         "ImageUpdated", Message: msg, Type: corev1.EventTypeNormal, Count: 1,
			FirstTimestamp: metav1.NewTime(time.Now().Add(time.Duration(i-2) * time.Minute)),
			LastTimestamp:  metav1.NewTime(time.Now().Add(time.Duration(i-2) * time.Minute)),
			Source:         corev1.EventSource{Component: "kcl-controller"},
		}
		if err := e.Client.Create(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	newRun(t, ns, "broken", nil, failing(`main.k:3:5: InvalidSyntax: expected one of ["identifier", "literal"] got newline`))
	newRun(t, ns, "paused", func(r *v1alpha1.KCLRun) { r.Spec.Suspend = true }, ready(rev1))
	return web
}

// The overview and a KCLRun's page show the apiserver's objects: counts by state, the
// failing run's message, and on the run's page its source, revision, conditions with the
// program's file:line, the inventory tree with kstatus health, the image moves, events and
// history.
func TestPagesShowTheApiserversObjects(t *testing.T) {
	ns := namespace(t, "pages")
	demoRuns(t, ns)
	base := serve(t, ui.Options{Cluster: "envtest"})
	ctx := tab(t, nil)

	open(t, ctx, base+"/")
	page := waitText(t, ctx, ns, false)
	for _, want := range []string{"Ready", "Failing", "Suspended", "broken", "main.k:3:5: InvalidSyntax"} {
		if !strings.Contains(page, want) {
			t.Errorf("overview lacks %q:\n%s", want, page)
		}
	}
	counts, err := chromedp.Run(ctx, chromedp.Text(chromedp.Search(`//tr[td/a[text()="`+ns+`"]]`)))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(counts); strings.Join(got, " ") != ns+" 1 1 0 1 3" {
		t.Errorf("the namespace's line is %q, want ready 1, failing 1, progressing 0, suspended 1, total 3", got)
	}

	open(t, ctx, base+"/kclruns/"+ns+"/web")
	page = waitText(t, ctx, "Diff the program", false)
	for _, want := range []string{
		"GitRepository " + ns + "/web", rev1, "Applied revision: main@sha1:",
		"ConfigMap/" + ns + "/web-config", "Deployment/" + ns + "/web", "Current", "InProgress",
		"nginx:1.7.8 → 1.7.9", ns + "/web", "main.k:24",
		"nginx:1.7.7 → 1.7.8, policy " + ns + "/web at main.k:24", "ImageUpdated",
		"ReconciliationSucceeded", "850ms",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the KCLRun page lacks %q:\n%s", want, page)
		}
	}

	open(t, ctx, base+"/kclruns/"+ns+"/broken")
	page = waitText(t, ctx, "Diff the program", false)
	location, err := chromedp.Run(ctx, chromedp.Text(chromedp.Search(`//tr[td[text()="Ready"]]/td[5]`)))
	if err != nil {
		t.Fatal(err)
	}
	if location != "main.k:3:5" {
		t.Errorf("the Ready condition's location is %q, want main.k:3:5; page:\n%s", location, page)
	}

	open(t, ctx, base+"/kclruns?state=Failing&namespace="+ns)
	page = waitText(t, ctx, "matching", false)
	if !strings.Contains(page, "broken") || strings.Contains(page, "paused") {
		t.Errorf("the list filtered to failing runs shows:\n%s", page)
	}
}

// A change in the apiserver reaches an open page without a reload.
func TestLiveUpdateArrives(t *testing.T) {
	e := cluster(t)
	ns := namespace(t, "live")
	run := newRun(t, ns, "web", nil, ready(rev1))
	base := serve(t, ui.Options{})
	ctx := tab(t, nil)
	open(t, ctx, base+"/kclruns/"+ns+"/web")
	waitText(t, ctx, "Applied revision", false)
	waitLive(t, ctx)
	// A marker the page sets only on load: a reload would lose it.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.__sameLoad = true`)); err != nil {
		t.Fatal(err)
	}

	changed := time.Now()
	run.Status.Conditions = []metav1.Condition{condition(meta.ReadyCondition, metav1.ConditionFalse, "BuildFailed", "main.k:7:1: a new failure")}
	if err := e.Client.Status().Update(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	waitText(t, ctx, "main.k:7:1: a new failure", false)
	t.Logf("the page showed the change %s after the apiserver accepted it", time.Since(changed).Round(time.Millisecond))
	same, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.__sameLoad === true`))
	if err != nil {
		t.Fatal(err)
	}
	if !same {
		t.Error("the page was reloaded; the update should arrive in place")
	}
}

// Suspend and resume from the page change the KCLRun in the apiserver, and the page follows.
func TestSuspendAndResumeFromThePage(t *testing.T) {
	e := cluster(t)
	ns := namespace(t, "action")
	newRun(t, ns, "web", nil, ready(rev1))
	base := serve(t, ui.Options{})
	ctx := tab(t, nil)
	open(t, ctx, base+"/kclruns/"+ns+"/web")
	waitText(t, ctx, "Suspend", false)
	waitLive(t, ctx)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.Search(`//button[text()="Suspend"]`))); err != nil {
		t.Fatal(err)
	}
	waitText(t, ctx, "Resume", false)
	got := &v1alpha1.KCLRun{}
	if err := e.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "web"}, got); err != nil {
		t.Fatal(err)
	}
	if !got.Spec.Suspend {
		t.Fatal("the page shows Resume but spec.suspend is false")
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.Search(`//button[text()="Resume"]`))); err != nil {
		t.Fatal(err)
	}
	waitText(t, ctx, "Resume", true)
	if err := e.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "web"}, got); err != nil {
		t.Fatal(err)
	}
	if got.Spec.Suspend || got.Annotations[meta.ReconcileRequestAnnotation] == "" {
		t.Errorf("after Resume: suspend %v, requestedAt %q", got.Spec.Suspend, got.Annotations[meta.ReconcileRequestAnnotation])
	}
}

// Behind an authenticating proxy the view acts as the user it names: a user bound to one
// namespace sees that namespace only (nothing of another, not even on a direct link), and
// an action RBAC refuses shows the apiserver's reason.
func TestUserSeesAndActsOnlyAsRBACAllows(t *testing.T) {
	e := cluster(t)
	mine, theirs := namespace(t, "alice"), namespace(t, "bob")
	newRun(t, mine, "web", nil, ready(rev1))
	newRun(t, theirs, "payroll", nil, failing("main.k:1:1: bob's secret trouble"))
	bindUser(t, mine, "alice", "get", "list", "watch")
	base := serve(t, proxyOptions(e))
	ctx := tab(t, map[string]any{"X-Forwarded-User": "alice"})

	open(t, ctx, base+"/")
	page := waitText(t, ctx, mine, false)
	for _, hidden := range []string{theirs, "payroll", "bob's secret trouble"} {
		if strings.Contains(page, hidden) {
			t.Errorf("alice's overview shows %q:\n%s", hidden, page)
		}
	}
	open(t, ctx, base+"/kclruns")
	page = waitText(t, ctx, "web", false)
	if strings.Contains(page, theirs) || strings.Contains(page, "payroll") {
		t.Errorf("alice's list shows the other namespace:\n%s", page)
	}
	open(t, ctx, base+"/kclruns/"+theirs+"/payroll")
	page = waitText(t, ctx, "that you may read", false)
	if strings.Contains(page, "trouble") {
		t.Errorf("the other namespace's run leaks:\n%s", page)
	}

	open(t, ctx, base+"/kclruns/"+mine+"/web")
	waitText(t, ctx, "Suspend", false)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.Search(`//button[text()="Suspend"]`))); err != nil {
		t.Fatal(err)
	}
	var flash string
	deadline := time.Now().Add(waitTimeout)
	for time.Now().Before(deadline) && flash == "" {
		flash, _ = chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS("#flash")))
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(flash, `User "alice" cannot patch resource "kclruns"`) {
		t.Errorf("the refused suspend says %q, want the apiserver's reason", flash)
	}
	got := &v1alpha1.KCLRun{}
	if err := e.Client.Get(context.Background(), client.ObjectKey{Namespace: mine, Name: "web"}, got); err != nil {
		t.Fatal(err)
	}
	if got.Spec.Suspend {
		t.Error("alice may not patch, yet the KCLRun is suspended")
	}

	// A request the proxy did not sign names nobody and shows nothing.
	anon := tab(t, nil)
	if err := chromedp.Do(anon, chromedp.Navigate(base+"/")); err != nil {
		t.Fatal(err)
	}
	body, err := chromedp.Run(anon, chromedp.Evaluate[string](`document.body.innerText`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(body, mine) || !strings.Contains(body, "names no user") {
		t.Errorf("a request without the proxy's header gets %q", body)
	}
}

// A KCLRun's message is the program's output: markup in it is shown as text, never run.
func TestMarkupInAMessageIsText(t *testing.T) {
	ns := namespace(t, "xss")
	payload := `<img src=x onerror="window.__xss=1"><script>window.__xss=1</script><b>bold</b>`
	newRun(t, ns, "evil", nil, failing("main.k:1:1: "+payload))
	base := serve(t, ui.Options{})
	ctx := tab(t, nil)
	for _, path := range []string{"/", "/kclruns?namespace=" + ns, "/kclruns/" + ns + "/evil"} {
		open(t, ctx, base+path)
		page := waitText(t, ctx, "evil", false)
		if !strings.Contains(page, payload) {
			t.Errorf("%s does not show the message as text:\n%s", path, page)
		}
		injected, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.__xss === 1 || document.querySelectorAll("#content img, #content script, #content b").length > 0`))
		if err != nil {
			t.Fatal(err)
		}
		if injected {
			t.Errorf("%s turned the message into markup", path)
		}
	}
}

// screenshot writes the page to $FKC_UI_SCREENSHOTS/name (the README's images) when set.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("FKC_UI_SCREENSHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}
