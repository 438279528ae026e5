package applier_test

import (
	"context"
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
	"github.com/kcl-lang/flux-kcl-controller/services/applier"
)

func TestReadyAppliesDeploymentAndService(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	artifact := publishProgram(t, ns, "app", webApp(2, true))
	createKCLRun(t, ns, "web", "app")

	obj := readyAt(t, ns, "web", artifact.Revision)
	g.Expect(obj.Finalizers).To(ContainElement(v1alpha1.KCLRunFinalizer))
	g.Expect(obj.Status.LastAttemptedRevision).To(Equal(artifact.Revision))
	g.Expect(obj.Status.LastAttemptedRevisionDigest).To(Equal(artifact.Digest))
	g.Expect(obj.Status.Inventory).NotTo(BeNil())
	g.Expect(obj.Status.Inventory.Entries).To(Equal([]v1alpha1.ResourceRef{
		{ID: ns + "_web__Service", Version: "v1"},
		{ID: ns + "_web_apps_Deployment", Version: "v1"},
	}))

	deploy := &appsv1.Deployment{}
	g.Expect(env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "web"}, deploy)).To(Succeed())
	g.Expect(*deploy.Spec.Replicas).To(BeEquivalentTo(2))
	g.Expect(deploy.Labels).To(HaveKeyWithValue("krm.kcl.dev.fluxcd/name", "web"))
	g.Expect(deploy.Labels).To(HaveKeyWithValue("krm.kcl.dev.fluxcd/namespace", ns))
	g.Expect(managers(deploy.ManagedFields)).To(ContainElement(applier.FieldManager + "/Apply"))

	svc := &corev1.Service{}
	g.Expect(env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "web"}, svc)).To(Succeed())
	g.Expect(managers(svc.ManagedFields)).To(ContainElement(applier.FieldManager + "/Apply"))
	assertNoOverlap(t)
}

func TestNewRevisionUpdatesAndPrunes(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	first := publishProgram(t, ns, "app", webApp(1, true))
	createKCLRun(t, ns, "web", "app")
	readyAt(t, ns, "web", first.Revision)

	// A new revision changes the Deployment.
	second := publishProgram(t, ns, "app", webApp(3, true))
	request(t, ns, "web", reconcilerequest.ReasonSourceChanged)
	readyAt(t, ns, "web", second.Revision)
	deploy := &appsv1.Deployment{}
	g.Expect(env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "web"}, deploy)).To(Succeed())
	g.Expect(*deploy.Spec.Replicas).To(BeEquivalentTo(3))

	// A revision without the Service prunes it.
	third := publishProgram(t, ns, "app", webApp(3, false))
	request(t, ns, "web", reconcilerequest.ReasonSourceChanged)
	obj := readyAt(t, ns, "web", third.Revision)
	g.Expect(obj.Status.Inventory.Entries).To(HaveLen(1))
	g.Eventually(func() bool {
		err := env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "web"}, &corev1.Service{})
		return apierrors.IsNotFound(err)
	}).Should(BeTrue())
	assertNoOverlap(t)
}

func TestPruneFalseKeepsRemovedObjects(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	first := publishProgram(t, ns, "app", webApp(1, true))
	createKCLRun(t, ns, "web", "app", func(k *v1alpha1.KCLRun) { k.Spec.Prune = false })
	readyAt(t, ns, "web", first.Revision)

	second := publishProgram(t, ns, "app", webApp(1, false))
	request(t, ns, "web", reconcilerequest.ReasonSourceChanged)
	obj := readyAt(t, ns, "web", second.Revision)
	g.Expect(obj.Status.Inventory.Entries).To(HaveLen(1))
	g.Expect(env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "web"}, &corev1.Service{})).To(Succeed())
}

func managers(entries []metav1.ManagedFieldsEntry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e.Manager+"/"+string(e.Operation))
	}
	return out
}
