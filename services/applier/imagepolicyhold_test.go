package applier_test

import (
	"context"
	"testing"

	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
)

// A policy that elects another repository holds the KCLRun: nothing is applied, Ready is
// False with a reason that says so, a warning event names the policy, the literal's
// file:line and both repositories; fixing the policy releases it.
func TestForeignRepositoryHoldsUntilThePolicyIsFixed(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	policy := &imagev1.ImagePolicy{
		ObjectMeta: objectMeta(ns, "web"),
		Spec: imagev1.ImagePolicySpec{
			ImageRepositoryRef: meta.NamespacedObjectReference{Name: "web"},
			Policy:             imagev1.ImagePolicyChoice{SemVer: &imagev1.SemVerPolicy{Range: ">=1.0.0"}},
		},
	}
	g.Expect(env.Client.Create(ctx, policy)).To(Succeed())
	setLatest := func(name, tag string) {
		policy.Status.LatestRef = &imagev1.ImageRef{Name: name, Tag: tag}
		g.Expect(env.Client.Status().Update(ctx, policy)).To(Succeed())
	}
	setLatest("ghcr.io/org/web", "2.0.0")
	artifact := publishProgram(t, ns, "app", markedWebApp(ns))
	createKCLRun(t, ns, "web", "app")
	readyAt(t, ns, "web", artifact.Revision)

	setLatest("ghcr.io/evil/web", "6.6.6")
	request(t, ns, "web", reconcilerequest.ReasonImagePolicyChanged)
	g.Eventually(func(g Gomega) {
		obj := getKCLRun(g, ns, "web")
		ready := readyCondition(obj)
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
		g.Expect(ready.Reason).To(Equal(v1alpha1.ImagePolicyHeldReason))
		g.Expect(ready.Message).To(And(ContainSubstring("ghcr.io/evil/web"), ContainSubstring("ghcr.io/org/web"),
			ContainSubstring("main.k:11"), ContainSubstring(ns+"/web")))
	}, "1m").Should(Succeed())
	deploy := &appsv1.Deployment{}
	key := types.NamespacedName{Namespace: ns, Name: "web"}
	g.Expect(env.Client.Get(ctx, key, deploy)).To(Succeed())
	g.Expect(deploy.Spec.Template.Spec.Containers[0].Image).To(Equal("ghcr.io/org/web:2.0.0"), "nothing applied while held")
	g.Eventually(func(g Gomega) {
		var evs corev1.EventList
		g.Expect(env.Client.List(ctx, &evs, client.InNamespace(ns))).To(Succeed())
		var warnings []string
		for _, e := range evs.Items {
			if e.Type == corev1.EventTypeWarning {
				warnings = append(warnings, e.Message)
			}
		}
		g.Expect(warnings).To(ContainElement(And(ContainSubstring(ns+"/web"), ContainSubstring("ghcr.io/evil/web"), ContainSubstring("main.k:11"))))
	}, "1m").Should(Succeed())

	setLatest("ghcr.io/org/web", "2.2.0")
	request(t, ns, "web", reconcilerequest.ReasonImagePolicyChanged)
	g.Eventually(func(g Gomega) {
		g.Expect(env.Client.Get(ctx, key, deploy)).To(Succeed())
		g.Expect(deploy.Spec.Template.Spec.Containers[0].Image).To(Equal("ghcr.io/org/web:2.2.0"))
		g.Expect(readyCondition(getKCLRun(g, ns, "web")).Status).To(Equal(metav1.ConditionTrue))
	}, "1m").Should(Succeed())
	assertNoOverlap(t)
}
