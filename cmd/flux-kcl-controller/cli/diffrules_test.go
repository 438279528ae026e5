package cli_test

import (
	"context"
	"testing"

	"github.com/fluxcd/pkg/apis/kustomize"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// diff follows the applier's own rules (internal/applyrules). The applier leaves alone an
// object marked ssa: Ignore and edited in the cluster, a field under spec.ignore edited in
// the cluster, and an object marked reconcile: disabled in the cluster and then left out of
// the program; so diff reports no change (the ignored object as skipped) and exits 0, under
// spec.targetNamespace and spec.commonMetadata. The old copy of the rules reported all three.
func TestDiffFollowsTheApplierRules(t *testing.T) {
	g, ctx := setup(t)
	ns := namespace(t, "diffrules")
	ignored := configMap("ignored", `{x = "1"}`)
	paths := configMap("paths", `{a = "1", b = "1"}`)
	kept := configMap("kept", `{x = "1"}`)
	applied := program(ignored, paths, kept)
	rev := publish(t, ns, "repo", 1, applied)
	web := newRun(t, ns, "web", "repo", func(r *v1alpha1.KCLRun) {
		r.Spec.TargetNamespace = ns
		r.Spec.CommonMetadata = &v1alpha1.CommonMetadata{Labels: map[string]string{"team": "web"}}
		r.Spec.Ignore = []v1alpha1.IgnoreRule{{
			Paths:  []string{"/data/b"},
			Target: &kustomize.Selector{Kind: "ConfigMap", Name: "paths"},
		}}
	})
	readyAt(t, g, web, rev)

	// A user marks objects in the cluster and edits them.
	edit(ctx, g, ns, "ignored", "x", "kustomize.toolkit.fluxcd.io/ssa", "Ignore")
	edit(ctx, g, ns, "paths", "b", "", "")
	edit(ctx, g, ns, "kept", "x", "kustomize.toolkit.fluxcd.io/reconcile", "disabled")

	r := run(t, "diff", "kclrun", "web", "-n", ns, "--path", writeDir(t, program(ignored, paths)))
	g.Expect(r.code).To(Equal(0), "stdout:\n%s\nstderr:\n%s", r.out, r.err)
	g.Expect(r.out).To(Equal("► ConfigMap/" + ns + "/ignored skipped\n"))

	// What the rules do not cover still shows: a change outside spec.ignore's paths. (Made
	// in the program: an edit in the cluster would race the applier's drift correction.)
	r = run(t, "diff", "kclrun", "web", "-n", ns, "--path", writeDir(t, program(ignored, configMap("paths", `{a = "2", b = "1"}`))))
	g.Expect(r.code).To(Equal(1), "stdout:\n%s\nstderr:\n%s", r.out, r.err)
	g.Expect(r.out).To(ContainSubstring("► ConfigMap/" + ns + "/paths drifted\n"))
	g.Expect(r.out).To(ContainSubstring("-  a: \"1\"\n+  a: \"2\"\n"))
	g.Expect(r.out).NotTo(ContainSubstring("ignored drifted"))
	g.Expect(r.out).NotTo(ContainSubstring("kept"))
}

// edit changes one key of a ConfigMap in the cluster, and sets an annotation when one is
// named, as a user's kubectl edit would.
func edit(ctx context.Context, g Gomega, ns, name, key, annotation, value string) {
	cm := &corev1.ConfigMap{}
	g.Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, cm)).To(Succeed())
	cm.Data[key] = "edited"
	if annotation != "" {
		if cm.Annotations == nil {
			cm.Annotations = map[string]string{}
		}
		cm.Annotations[annotation] = value
	}
	g.Expect(env.Client.Update(ctx, cm, client.FieldOwner("kubectl-edit"))).To(Succeed())
}
