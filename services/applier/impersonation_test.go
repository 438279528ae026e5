package applier_test

import (
	"context"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// A service account without RBAC can create nothing: the KCLRun reports the
// refusal and the cluster is untouched.
func TestImpersonationRefusalCreatesNothing(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	g.Expect(env.Client.Create(ctx, &corev1.ServiceAccount{ObjectMeta: objectMeta(ns, "powerless")})).To(Succeed())
	artifact := publishProgram(t, ns, "app", webApp(1, true))
	createKCLRun(t, ns, "web", "app", func(k *v1alpha1.KCLRun) { k.Spec.ServiceAccountName = "powerless" })

	g.Eventually(func(g Gomega) {
		obj := getKCLRun(g, ns, "web")
		ready := readyCondition(obj)
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
		g.Expect(ready.Message).To(ContainSubstring("forbidden"))
		g.Expect(ready.Message).To(ContainSubstring("system:serviceaccount:" + ns + ":powerless"))
		g.Expect(obj.Status.LastAttemptedRevision).To(Equal(artifact.Revision))
	}, "2m").Should(Succeed())
	g.Expect(apierrors.IsNotFound(env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "web"}, &corev1.Service{}))).To(BeTrue())

	// A missing service account is refused before any apply.
	createKCLRun(t, ns, "ghost", "app", func(k *v1alpha1.KCLRun) { k.Spec.ServiceAccountName = "nobody" })
	g.Eventually(func(g Gomega) {
		ready := readyCondition(getKCLRun(g, ns, "ghost"))
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Message).To(ContainSubstring("unable to impersonate"))
	}, "2m").Should(Succeed())
}
