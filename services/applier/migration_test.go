package applier_test

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
	"github.com/kcl-lang/flux-kcl-controller/services/applier"
)

// A KCLRun of the original kcl-lang/flux-kcl-controller is adopted: its
// finalizer is replaced by ours, the fields its objects' manager
// (kcl-controller) owned are taken over, so a key the program no longer
// renders goes, and deleting the KCLRun prunes.
func TestOriginalControllerKCLRunIsAdopted(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	applyAsOriginalController(t, ns, "settings", map[string]any{"value": "old", "dropped": "x"})

	rev := publishProgram(t, ns, "app", configMap("settings", "new"))
	createKCLRun(t, ns, "migrated", "app", func(k *v1alpha1.KCLRun) {
		k.Finalizers = []string{v1alpha1.LegacyKCLRunFinalizer}
	})
	obj := readyAt(t, ns, "migrated", rev.Revision)
	g.Expect(obj.Finalizers).To(Equal([]string{v1alpha1.KCLRunFinalizer}))
	cm, _ := liveConfigMap(g, ns, "settings")
	g.Expect(cm.Data).To(Equal(value("new")))
	for _, m := range cm.ManagedFields {
		g.Expect(m.Manager).NotTo(Equal(applier.LegacyFieldManager))
	}

	g.Expect(env.Client.Delete(ctx, obj)).To(Succeed())
	request(t, ns, "migrated", reconcilerequest.ReasonDeleting)
	g.Eventually(func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, client.ObjectKeyFromObject(obj), &v1alpha1.KCLRun{}))
	}, "1m", "200ms").Should(BeTrue())
	_, found := liveConfigMap(g, ns, "settings")
	g.Expect(found).To(BeFalse())
	assertNoOverlap(t)
}

// A KCLRun deleted while it still carries only the original controller's
// finalizer, before the applier ever reconciled it, is not stuck.
func TestOriginalControllerFinalizerNeverBlocksDeletion(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	obj := &v1alpha1.KCLRun{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "old", Finalizers: []string{v1alpha1.LegacyKCLRunFinalizer}},
		Spec: v1alpha1.KCLRunSpec{
			SourceRef: v1alpha1.CrossNamespaceSourceReference{Kind: "GitRepository", Name: "app"},
			Interval:  metav1.Duration{Duration: 10 * time.Minute},
			Prune:     true,
		},
	}
	g.Expect(env.Client.Create(ctx, obj)).To(Succeed())
	g.Expect(env.Client.Delete(ctx, obj)).To(Succeed())
	request(t, ns, "old", reconcilerequest.ReasonDeleting)
	g.Eventually(func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "old"}, &v1alpha1.KCLRun{}))
	}, "1m", "200ms").Should(BeTrue())
}

// applyAsOriginalController server-side applies a ConfigMap as the original
// controller did, with its field manager.
func applyAsOriginalController(t testing.TB, namespace, name string, data map[string]any) {
	t.Helper()
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"namespace": namespace, "name": name},
		"data":     data,
	}}
	if err := env.Client.Patch(context.Background(), u, client.Apply, client.FieldOwner(applier.LegacyFieldManager), client.ForceOwnership); err != nil {
		t.Fatal(err)
	}
}
