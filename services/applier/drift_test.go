package applier_test

import (
	"context"
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Edits to applied objects are undone at once, without a request from the
// test and long before the 10m interval.
func TestDriftIsCorrectedWithoutWaitingForTheInterval(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	artifact := publishProgram(t, ns, "app", webApp(2, true))
	createKCLRun(t, ns, "web", "app")
	readyAt(t, ns, "web", artifact.Revision)
	key := types.NamespacedName{Namespace: ns, Name: "web"}

	// Someone scales the Deployment by hand.
	deploy := &appsv1.Deployment{}
	g.Expect(env.Client.Get(ctx, key, deploy)).To(Succeed())
	deploy.Spec.Replicas = ptr.To[int32](7)
	g.Expect(env.Client.Update(ctx, deploy, client.FieldOwner("kubectl-edit"))).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(env.Client.Get(ctx, key, deploy)).To(Succeed())
		g.Expect(*deploy.Spec.Replicas).To(BeEquivalentTo(2))
	}, "1m", "200ms").Should(Succeed())

	// Someone deletes the Service.
	svc := &corev1.Service{}
	g.Expect(env.Client.Get(ctx, key, svc)).To(Succeed())
	oldUID := svc.UID
	g.Expect(env.Client.Delete(ctx, svc)).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(env.Client.Get(ctx, key, svc)).To(Succeed())
		g.Expect(svc.UID).NotTo(Equal(oldUID))
	}, "1m", "200ms").Should(Succeed())
	assertNoOverlap(t)
}
