package applier_test

import (
	"context"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// spec.targetNamespace puts every namespaced object in the target, whatever
// namespace the program gave it, as a Kustomization's does: a Namespace of
// the program becomes the target, RoleBinding subjects named "default" point
// at it, and cluster-scoped objects (the REST mapper says which) stay
// cluster-scoped.
func TestTargetNamespaceConfinesNamespacedObjects(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	target := ns + "-target"
	rev := publishProgram(t, ns, "app", programOf(
		manifest{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "team"}},
		configMapManifest("unset", value("1"), nil),
		manifest{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "elsewhere", "namespace": "kube-system"}, "data": value("1")},
		manifest{
			"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
			"metadata": map[string]any{"name": target + "-reader", "namespace": "kube-system"},
			"rules":    []any{map[string]any{"apiGroups": []any{""}, "resources": []any{"configmaps"}, "verbs": []any{"get"}}},
		},
		manifest{
			"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
			"metadata": map[string]any{"name": "readers", "namespace": "kube-system"},
			"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": target + "-reader"},
			"subjects": []any{
				map[string]any{"kind": "ServiceAccount", "name": "default", "namespace": "kube-system"},
				map[string]any{"kind": "ServiceAccount", "name": "robot", "namespace": "kube-system"},
			},
		},
	))
	createKCLRun(t, ns, "confined", "app", func(k *v1alpha1.KCLRun) { k.Spec.TargetNamespace = target })
	obj := readyAt(t, ns, "confined", rev.Revision)

	g.Expect(env.Client.Get(ctx, types.NamespacedName{Name: target}, &corev1.Namespace{})).To(Succeed())
	g.Expect(env.Client.Get(ctx, types.NamespacedName{Name: "team"}, &corev1.Namespace{})).NotTo(Succeed())
	for _, name := range []string{"unset", "elsewhere"} {
		_, found := liveConfigMap(g, target, name)
		g.Expect(found).To(BeTrue(), name)
	}
	_, found := liveConfigMap(g, "kube-system", "elsewhere")
	g.Expect(found).To(BeFalse())
	g.Expect(env.Client.Get(ctx, types.NamespacedName{Name: target + "-reader"}, &rbacv1.ClusterRole{})).To(Succeed())
	binding := &rbacv1.RoleBinding{}
	g.Expect(env.Client.Get(ctx, types.NamespacedName{Namespace: target, Name: "readers"}, binding)).To(Succeed())
	g.Expect(binding.Subjects).To(ConsistOf(
		rbacv1.Subject{Kind: "ServiceAccount", Name: "default", Namespace: target},
		rbacv1.Subject{Kind: "ServiceAccount", Name: "robot", Namespace: "kube-system"},
	))
	g.Expect(obj.Status.Inventory.Entries).To(ConsistOf(
		HaveField("ID", "_"+target+"__Namespace"),
		HaveField("ID", target+"_unset__ConfigMap"),
		HaveField("ID", target+"_elsewhere__ConfigMap"),
		HaveField("ID", "_"+target+"-reader_rbac.authorization.k8s.io_ClusterRole"),
		HaveField("ID", target+"_readers_rbac.authorization.k8s.io_RoleBinding"),
	))
	assertNoOverlap(t)
}
