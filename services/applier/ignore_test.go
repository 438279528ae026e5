package applier_test

import (
	"context"
	"testing"

	"github.com/fluxcd/pkg/apis/kustomize"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
)

// spec.ignore leaves the paths of the objects its target selects out of
// drift detection and out of the apply, as a Kustomization's does: a
// Deployment scaled by hand (or an HPA) keeps its replicas across drift
// reconciles and new revisions, while the rest of it, and the Deployments
// the target does not select, are reconciled as usual.
func TestIgnoreRulesKeepSelectedPaths(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	deployment := func(name string, replicas int, image string) manifest {
		labels := map[string]any{"app": name}
		return manifest{
			"apiVersion": "apps/v1", "kind": "Deployment",
			"metadata": map[string]any{"name": name},
			"spec": map[string]any{
				"replicas": replicas,
				"selector": map[string]any{"matchLabels": labels},
				"template": map[string]any{
					"metadata": map[string]any{"labels": labels},
					"spec":     map[string]any{"containers": []any{map[string]any{"name": "app", "image": image}}},
				},
			},
		}
	}
	rev1 := publishProgram(t, ns, "app", programOf(deployment("scaled", 2, "nginx:1.27"), deployment("fixed", 2, "nginx:1.27")))
	createKCLRun(t, ns, "hpa", "app", func(k *v1alpha1.KCLRun) {
		k.Spec.Ignore = []v1alpha1.IgnoreRule{{
			Paths:  []string{"/spec/replicas"},
			Target: &kustomize.Selector{Kind: "Deployment", Name: "scaled"},
		}}
	})
	readyAt(t, ns, "hpa", rev1.Revision)

	scale := func(name string) {
		g.Eventually(func() error {
			d := &appsv1.Deployment{}
			if err := env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, d); err != nil {
				return err
			}
			d.Spec.Replicas = ptr.To[int32](7)
			return env.Client.Update(ctx, d, client.FieldOwner("hpa"))
		}, "30s", "100ms").Should(Succeed())
	}
	scale("scaled")
	scale("fixed")
	request(t, ns, "hpa", reconcilerequest.ReasonDriftDetected)
	g.Eventually(func(g Gomega) {
		g.Expect(replicasOf(g, ns, "fixed")).To(BeEquivalentTo(2))
	}, "1m", "200ms").Should(Succeed())
	g.Expect(replicasOf(g, ns, "scaled")).To(BeEquivalentTo(7))

	// A new revision changes the image and the replicas: the image is
	// applied, the ignored replicas are not.
	rev2 := publishProgram(t, ns, "app", programOf(deployment("scaled", 3, "nginx:1.28"), deployment("fixed", 3, "nginx:1.28")))
	request(t, ns, "hpa", reconcilerequest.ReasonSourceChanged)
	readyAt(t, ns, "hpa", rev2.Revision)
	scaled := &appsv1.Deployment{}
	g.Expect(env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "scaled"}, scaled)).To(Succeed())
	g.Expect(*scaled.Spec.Replicas).To(BeEquivalentTo(7))
	g.Expect(scaled.Spec.Template.Spec.Containers[0].Image).To(Equal("nginx:1.28"))
	g.Expect(replicasOf(g, ns, "fixed")).To(BeEquivalentTo(3))
	assertNoOverlap(t)
}

func replicasOf(g Gomega, namespace, name string) int32 {
	d := &appsv1.Deployment{}
	g.Expect(env.Client.Get(context.Background(), types.NamespacedName{Namespace: namespace, Name: name}, d)).To(Succeed())
	return *d.Spec.Replicas
}
