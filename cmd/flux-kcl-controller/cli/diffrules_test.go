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

// diff follows the applier's own rules (internal/applyrules): an object marked
// ssa: Ignore and edited in the cluster, a field under spec.ignore edited in the cluster,
// and an object with reconcile: disabled left out of the program are all things the
// applier leaves alone, so diff reports nothing and exits 0. Under spec.targetNamespace
// and spec.commonMetadata the untouched program shows no difference either.
func TestDiffFollowsTheApplierRules(t *testing.T) {
	g, ctx := setup(t)
	ns := namespace(t, "diffrules")
	ignored := `{apiVersion = "v1", kind = "ConfigMap", metadata = {name = "ignored", annotations."kustomize.toolkit.fluxcd.io/ssa" = "Ignore"}, data = {x = "1"}}`
	paths := configMap("paths", `{a = "1", b = "1"}`)
	kept := `{apiVersion = "v1", kind = "ConfigMap", metadata = {name = "kept", annotations."kustomize.toolkit.fluxcd.io/reconcile" = "disabled"}, data = {x = "1"}}`
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

	// The ignored object exists (ssa: Ignore skips only objects already in the cluster).
	edit(ctx, g, ns, "ignored", "x")
	edit(ctx, g, ns, "paths", "b")

	r := run(t, "diff", "kclrun", "web", "-n", ns, "--path", writeDir(t, program(ignored, paths)))
	g.Expect(r.code).To(Equal(0), "stdout:\n%s\nstderr:\n%s", r.out, r.err)
	g.Expect(r.out).To(BeEmpty())

	// What the rules do not cover still shows: an edit outside spec.ignore's paths.
	edit(ctx, g, ns, "paths", "a")
	r = run(t, "diff", "kclrun", "web", "-n", ns, "--path", writeDir(t, program(ignored, paths)))
	g.Expect(r.code).To(Equal(1), "stdout:\n%s\nstderr:\n%s", r.out, r.err)
	g.Expect(r.out).To(HavePrefix("► ConfigMap/" + ns + "/paths drifted\n"))
	g.Expect(r.out).To(ContainSubstring("-  a: edited\n+  a: \"1\"\n"))
	g.Expect(r.out).NotTo(ContainSubstring("ignored"))
	g.Expect(r.out).NotTo(ContainSubstring("kept"))
}

// edit changes one key of a ConfigMap in the cluster, as a user's kubectl edit would.
func edit(ctx context.Context, g Gomega, ns, name, key string) {
	cm := &corev1.ConfigMap{}
	g.Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, cm)).To(Succeed())
	cm.Data[key] = "edited"
	g.Expect(env.Client.Update(ctx, cm, client.FieldOwner("kubectl-edit"))).To(Succeed())
}
