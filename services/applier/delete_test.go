package applier_test

import (
	"context"
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
)

func TestDeleteWithPruneRemovesEverything(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	artifact := publishProgram(t, ns, "app", webApp(1, true))
	createKCLRun(t, ns, "web", "app")
	readyAt(t, ns, "web", artifact.Revision)

	g.Expect(env.Client.Delete(ctx, &v1alpha1.KCLRun{ObjectMeta: objectMeta(ns, "web")})).To(Succeed())
	request(t, ns, "web", reconcilerequest.ReasonDeleting)

	key := types.NamespacedName{Namespace: ns, Name: "web"}
	g.Eventually(func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, key, &v1alpha1.KCLRun{}))
	}, "1m").Should(BeTrue())
	// envtest runs no garbage collector, and none is needed: the applier deleted them.
	g.Expect(apierrors.IsNotFound(env.Client.Get(ctx, key, &corev1.Service{}))).To(BeTrue())
	deploy := &appsv1.Deployment{}
	err := env.Client.Get(ctx, key, deploy)
	g.Expect(apierrors.IsNotFound(err) || !deploy.DeletionTimestamp.IsZero()).To(BeTrue())
	assertNoOverlap(t)
}

func TestDeleteWithoutPruneKeepsObjects(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	artifact := publishProgram(t, ns, "app", configMap("kept", "1"))
	createKCLRun(t, ns, "keep", "app", func(k *v1alpha1.KCLRun) { k.Spec.Prune = false })
	readyAt(t, ns, "keep", artifact.Revision)

	g.Expect(env.Client.Delete(ctx, &v1alpha1.KCLRun{ObjectMeta: objectMeta(ns, "keep")})).To(Succeed())
	request(t, ns, "keep", reconcilerequest.ReasonDeleting)
	g.Eventually(func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "keep"}, &v1alpha1.KCLRun{}))
	}, "1m").Should(BeTrue())
	g.Expect(env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "kept"}, &corev1.ConfigMap{})).To(Succeed())
}
