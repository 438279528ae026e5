package ui_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	. "github.com/onsi/gomega"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/cli"
)

// The web view's buttons and the CLI's verbs write the same change: approve, suspend and
// resume of an ImageRollout, suspend and resume of a KCLRun, each made once by
// `flux-kcl-controller ... --as alice` on one object and once by the web view (behind a
// proxy naming alice) on its twin, leave the two with the same spec and annotations (the
// times they record aside), approvals naming the same user.
func TestWebViewAndCLIWriteTheSameChange(t *testing.T) {
	g := NewWithT(t)
	e := cluster(t)
	ctx := context.Background()
	ns := namespace(t, "same")
	const alice = "alice@example.com"
	bindUser(t, ns, alice, "get", "list", "watch", "patch")
	allowRollouts(t, g, ns, alice)
	for _, name := range []string{"cli", "web"} {
		newRun(t, ns, name, func(run *v1alpha1.KCLRun) { run.Spec.SourceRef.Name = "app" }, ready(rev1))
		newRolloutAwaitingApproval(t, g, ns, name)
	}
	base := serve(t, proxyOptions(e))

	cliDoes := func(args ...string) {
		t.Helper()
		var out, errOut bytes.Buffer
		root := cli.NewRootCommand(cli.Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
		code := cli.Execute(root, append([]string{"--kubeconfig", e.Kubeconfig(), "-n", ns, "--as", alice}, args...), &errOut)
		g.Expect(code).To(Equal(0), errOut.String())
	}
	webDoes := func(path string, form url.Values) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, base+path, strings.NewReader(form.Encode()))
		g.Expect(err).NotTo(HaveOccurred())
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Forwarded-User", alice)
		resp, err := http.DefaultClient.Do(req)
		g.Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		var res struct {
			OK      bool
			Message string
		}
		g.Expect(json.NewDecoder(resp.Body).Decode(&res)).To(Succeed())
		g.Expect(res.OK).To(BeTrue(), res.Message)
	}
	type written struct {
		Spec        any
		Annotations map[string]string
	}
	// state reads what the actions write, with the times made comparable: an approval's
	// "at" and a reconcile request's value must be set, and are then left out.
	state := func(obj client.Object) written {
		t.Helper()
		g.Expect(e.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
		w := written{Annotations: map[string]string{}}
		switch o := obj.(type) {
		case *v1alpha1.KCLRun:
			w.Spec = o.Spec
		case *v1alpha1.ImageRollout:
			w.Spec = o.Spec
		}
		for k, v := range obj.GetAnnotations() {
			switch {
			case strings.HasPrefix(k, v1alpha1.ApprovalAnnotationPrefix):
				a, err := v1alpha1.ParseApproval(v)
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(a.At.IsZero()).To(BeFalse(), "%s names no time", k)
				a.At = metav1.Time{}
				v = a.Encode()
			case k == meta.ReconcileRequestAnnotation:
				_, err := time.Parse(time.RFC3339Nano, v)
				g.Expect(err).NotTo(HaveOccurred(), "%s=%q", k, v)
				v = "<time>"
			}
			w.Annotations[k] = v
		}
		return w
	}
	steps := []struct {
		name string
		cli  []string
		web  string
		form url.Values
		kind func() client.Object
	}{
		{"approve imagerollout", []string{"approve", "imagerollout", "cli"}, "/imagerollouts/" + ns + "/web/approve", url.Values{"stage": {"prod"}},
			func() client.Object { return &v1alpha1.ImageRollout{} }},
		{"suspend imagerollout", []string{"suspend", "imagerollout", "cli"}, "/imagerollouts/" + ns + "/web/suspend", nil,
			func() client.Object { return &v1alpha1.ImageRollout{} }},
		{"resume imagerollout", []string{"resume", "imagerollout", "cli", "--wait=false"}, "/imagerollouts/" + ns + "/web/resume", nil,
			func() client.Object { return &v1alpha1.ImageRollout{} }},
		{"suspend kclrun", []string{"suspend", "kclrun", "cli"}, "/kclruns/" + ns + "/web/suspend", nil,
			func() client.Object { return &v1alpha1.KCLRun{} }},
		{"resume kclrun", []string{"resume", "kclrun", "cli", "--wait=false"}, "/kclruns/" + ns + "/web/resume", nil,
			func() client.Object { return &v1alpha1.KCLRun{} }},
	}
	for _, step := range steps {
		byCLI, byWeb := step.kind(), step.kind()
		byCLI.SetNamespace(ns)
		byCLI.SetName("cli")
		byWeb.SetNamespace(ns)
		byWeb.SetName("web")
		before := state(byCLI)
		g.Expect(state(byWeb)).To(Equal(before), "%s: the twins differ before", step.name)

		cliDoes(step.cli...)
		webDoes(step.web, step.form)

		after := state(byCLI)
		g.Expect(after).NotTo(Equal(before), "%s: the CLI changed nothing", step.name)
		g.Expect(state(byWeb)).To(Equal(after), "%s: the web view and the CLI wrote different changes", step.name)
		if strings.HasPrefix(step.name, "approve") {
			a, err := v1alpha1.ParseApproval(after.Annotations[v1alpha1.ApprovalAnnotation("prod")])
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(a).To(Equal(v1alpha1.Approval{Target: "nginx:1.7.9", By: alice}))
		}
	}
}

// newRolloutAwaitingApproval is an ImageRollout rolling nginx:1.7.9 out whose stage prod
// awaits approval, with the status the controller would write (no controller runs here).
func newRolloutAwaitingApproval(t *testing.T, g Gomega, ns, name string) {
	t.Helper()
	e := cluster(t)
	ctx := context.Background()
	ro := &v1alpha1.ImageRollout{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: v1alpha1.ImageRolloutSpec{
			ImagePolicyRef: meta.LocalObjectReference{Name: "web"},
			Stages: []v1alpha1.RolloutStage{
				{Name: "canary", Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"wave": "canary"}}},
				{Name: "prod", Approval: true},
			},
		},
	}
	g.Expect(e.Client.Create(ctx, ro)).To(Succeed())
	target := &v1alpha1.RolloutImage{Name: "nginx", Tag: "1.7.9"}
	good := &v1alpha1.RolloutImage{Name: "nginx", Tag: "1.7.8"}
	ro.Status = v1alpha1.ImageRolloutStatus{
		Target: target, LastGood: good, ObservedGeneration: ro.Generation,
		Conditions: []metav1.Condition{condition(meta.ReadyCondition, metav1.ConditionFalse, v1alpha1.AwaitingApprovalReason, "stage prod awaits approval")},
		Stages: []v1alpha1.StageStatus{
			{Name: "canary", State: v1alpha1.StageSucceeded, Image: target, Ready: 1, Total: 1},
			{Name: "prod", State: v1alpha1.StageAwaitingApproval, Image: good, Total: 1},
		},
	}
	g.Expect(e.Client.Status().Update(ctx, ro)).To(Succeed())
}

// allowRollouts lets user read and patch the namespace's ImageRollouts.
func allowRollouts(t *testing.T, g Gomega, ns, user string) {
	t.Helper()
	e := cluster(t)
	ctx := context.Background()
	name := user + "-rollouts"
	g.Expect(e.Client.Create(ctx, &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{v1alpha1.GroupVersion.Group}, Resources: []string{"imagerollouts"},
			Verbs: []string{"get", "list", "watch", "patch"},
		}},
	})).To(Succeed())
	g.Expect(e.Client.Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}},
	})).To(Succeed())
}
