package applier_test

import (
	"context"
	"testing"

	eventv1 "github.com/fluxcd/pkg/apis/event/v1"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
)

// tenant creates a ServiceAccount allowed to edit its namespace, as a tenant's
// KCLRun impersonates, and returns the RoleBinding that allows it.
func tenant(t *testing.T, ns, sa string) *rbacv1.RoleBinding {
	t.Helper()
	g := NewWithT(t)
	ctx := context.Background()
	g.Expect(env.Client.Create(ctx, &corev1.ServiceAccount{ObjectMeta: objectMeta(ns, sa)})).To(Succeed())
	binding := &rbacv1.RoleBinding{
		ObjectMeta: objectMeta(ns, sa+"-edit"),
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa, Namespace: ns}},
	}
	g.Expect(env.Client.Create(ctx, binding)).To(Succeed())
	return binding
}

// gone waits for the KCLRun to be deleted, its finalizer released.
func gone(t *testing.T, ns, name string) {
	t.Helper()
	NewWithT(t).Eventually(func() bool {
		return apierrors.IsNotFound(env.Client.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: name}, &v1alpha1.KCLRun{}))
	}, "1m").Should(BeTrue(), "the finalizer was not released")
}

// skippedEvent waits for the warning that says garbage collection was skipped and why.
func skippedEvent(t *testing.T, ns, name, why string) {
	t.Helper()
	NewWithT(t).Eventually(func(g Gomega) {
		var skipped []eventv1.Event
		for _, e := range events.forObject(ns, name) {
			if e.Reason == v1alpha1.GarbageCollectionSkippedReason {
				skipped = append(skipped, e)
			}
		}
		g.Expect(skipped).To(ContainElement(And(
			HaveField("Severity", eventv1.EventSeverityError),
			HaveField("Message", And(ContainSubstring("garbage collection skipped"), ContainSubstring(why), ContainSubstring("ConfigMap/"+ns+"/kept"))),
		)))
	}, "1m").Should(Succeed())
}

// Deleting a tenant's namespace deletes its KCLRun together with the account it
// applies as and that account's RoleBinding, in no set order. envtest runs no
// namespace controller, so the test does its deletions (RoleBinding first, the
// worst order): the KCLRun is released without garbage collection, so the namespace
// can finish terminating.
func TestDeletingATenantNamespaceReleasesItsKCLRun(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	binding := tenant(t, ns, "tenant")
	artifact := publishProgram(t, ns, "app", configMap("kept", "1"))
	createKCLRun(t, ns, "app", "app", func(k *v1alpha1.KCLRun) { k.Spec.ServiceAccountName = "tenant" })
	readyAt(t, ns, "app", artifact.Revision)

	g.Expect(env.Client.Delete(ctx, &corev1.Namespace{ObjectMeta: objectMeta("", ns)})).To(Succeed())
	g.Expect(env.Client.Delete(ctx, binding)).To(Succeed())
	g.Expect(env.Client.Delete(ctx, &v1alpha1.KCLRun{ObjectMeta: objectMeta(ns, "app")})).To(Succeed())
	request(t, ns, "app", reconcilerequest.ReasonDeleting)
	gone(t, ns, "app")
	// Events cannot be created in a terminating namespace: the receiver has it.
	skippedEvent(t, ns, "app", "namespace "+ns+" is terminating")
	assertNoOverlap(t)
}

// A KCLRun whose ServiceAccount is gone can be deleted: its objects stay, an event
// names them and says why.
func TestKCLRunWhoseServiceAccountIsGoneCanBeDeleted(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	tenant(t, ns, "tenant")
	artifact := publishProgram(t, ns, "app", configMap("kept", "1"))
	createKCLRun(t, ns, "app", "app", func(k *v1alpha1.KCLRun) { k.Spec.ServiceAccountName = "tenant" })
	readyAt(t, ns, "app", artifact.Revision)

	g.Expect(env.Client.Delete(ctx, &corev1.ServiceAccount{ObjectMeta: objectMeta(ns, "tenant")})).To(Succeed())
	g.Expect(env.Client.Delete(ctx, &v1alpha1.KCLRun{ObjectMeta: objectMeta(ns, "app")})).To(Succeed())
	request(t, ns, "app", reconcilerequest.ReasonDeleting)
	gone(t, ns, "app")
	skippedEvent(t, ns, "app", "unable to impersonate ServiceAccount '"+ns+"/tenant': not found")
	g.Expect(env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "kept"}, &corev1.ConfigMap{})).To(Succeed(), "left in place")
	// Kubernetes has the event too, for kubectl describe.
	g.Eventually(func(g Gomega) []string {
		var evs corev1.EventList
		g.Expect(env.Client.List(ctx, &evs)).To(Succeed())
		var reasons []string
		for _, e := range evs.Items {
			if e.InvolvedObject.Namespace == ns && e.InvolvedObject.Name == "app" && e.Type == corev1.EventTypeWarning {
				reasons = append(reasons, e.Reason)
			}
		}
		return reasons
	}, "1m").Should(ContainElement(v1alpha1.GarbageCollectionSkippedReason))
}
