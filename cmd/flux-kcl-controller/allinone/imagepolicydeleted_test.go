package allinone

import (
	"context"
	"fmt"
	"testing"
	"time"

	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kclv1 "github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/imagepolicy"
)

// TestDeletedImagePolicyHoldsAndRecreatedReleases deletes the ImagePolicy a marker names:
// the KCLRun holds (ImagePolicyHeld, PolicyNotFound) without waiting for its hour-long
// interval and the Deployment keeps its image; recreating the policy releases it.
func TestDeletedImagePolicyHoldsAndRecreatedReleases(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	m := startMarkedRun(t, g, "policy-deleted")
	c, ns, run, policy, images := m.c, m.ns, m.run, m.policy, m.images
	ready := func(g Gomega) *metav1.Condition {
		var cur kclv1.KCLRun
		g.Expect(c.Get(ctx, client.ObjectKeyFromObject(run), &cur)).To(Succeed())
		cond := apimeta.FindStatusCondition(cur.Status.Conditions, meta.ReadyCondition)
		g.Expect(cond).NotTo(BeNil())
		return cond
	}
	g.Eventually(func(g Gomega) {
		g.Expect(images(g)).To(Equal([]string{"nginx:1.7.8", "nginx:1.7.7"}))
		g.Expect(ready(g).Status).To(Equal(metav1.ConditionTrue))
	}, 2*time.Minute, 50*time.Millisecond).Should(Succeed())
	var d appsv1.Deployment
	g.Expect(c.Get(ctx, types.NamespacedName{Namespace: ns, Name: "web"}, &d)).To(Succeed())
	generation := d.Generation

	g.Expect(c.Delete(ctx, policy)).To(Succeed())
	g.Eventually(func(g Gomega) {
		cond := ready(g)
		g.Expect(cond.Status).To(Equal(metav1.ConditionFalse))
		g.Expect(cond.Reason).To(Equal(kclv1.ImagePolicyHeldReason))
		g.Expect(cond.Message).To(And(ContainSubstring("PolicyNotFound"), ContainSubstring(ns+"/nginx")))
	}, time.Minute, 50*time.Millisecond).Should(Succeed(), "the interval is an hour away: only the deletion can hold it")
	g.Expect(c.Get(ctx, types.NamespacedName{Namespace: ns, Name: "web"}, &d)).To(Succeed())
	g.Expect(d.Generation).To(Equal(generation), "nothing applied while held")
	g.Expect(images(g)).To(Equal([]string{"nginx:1.7.8", "nginx:1.7.7"}))

	_, err := imagepolicy.Create(ctx, c, ns, "nginx", imagev1.ImageRef{Name: "nginx", Tag: "1.7.9"})
	g.Expect(err).NotTo(HaveOccurred())
	g.Eventually(func(g Gomega) {
		g.Expect(images(g)).To(Equal([]string{"nginx:1.7.9", "nginx:1.7.7"}))
		g.Expect(ready(g).Status).To(Equal(metav1.ConditionTrue))
	}, time.Minute, 50*time.Millisecond).Should(Succeed(), func() string {
		var cur kclv1.KCLRun
		_ = c.Get(ctx, client.ObjectKeyFromObject(run), &cur)
		return fmt.Sprintf("KCLRun status: %+v", cur.Status.Conditions)
	})
}
