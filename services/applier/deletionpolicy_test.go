package applier_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	eventv1 "github.com/fluxcd/pkg/apis/event/v1"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
)

// heldConfigMap is a program rendering a ConfigMap with a finalizer nobody
// removes but the test: deleting it leaves it terminating.
const heldConfigMap = `items = [{
    apiVersion = "v1"
    kind = "ConfigMap"
    metadata = {name = "held", finalizers = ["test.kcl.dev/hold"]}
    data = {value = "1"}
}]
`

// deleteKCLRun deletes the KCLRun, as the user would, and waits until it is gone.
func deleteKCLRun(t *testing.T, ns, name string) {
	t.Helper()
	NewWithT(t).Expect(env.Client.Delete(context.Background(), &v1alpha1.KCLRun{ObjectMeta: objectMeta(ns, name)})).To(Succeed())
	request(t, ns, name, reconcilerequest.ReasonDeleting)
	gone(t, ns, name)
}

// Each policy decides alone what deletion does, whatever spec.prune says, but MirrorPrune.
func TestDeletionPolicy(t *testing.T) {
	for _, tc := range []struct {
		policy  string
		prune   bool
		deleted bool
	}{
		{policy: v1alpha1.DeletionPolicyMirrorPrune, prune: true, deleted: true},
		{policy: v1alpha1.DeletionPolicyMirrorPrune, prune: false, deleted: false},
		{policy: v1alpha1.DeletionPolicyDelete, prune: false, deleted: true},
		{policy: v1alpha1.DeletionPolicyOrphan, prune: true, deleted: false},
	} {
		t.Run(fmt.Sprintf("%s prune=%v", tc.policy, tc.prune), func(t *testing.T) {
			g := NewWithT(t)
			ns := newNamespace(t)
			artifact := publishProgram(t, ns, "app", configMap("kept", "1"))
			createKCLRun(t, ns, "app", "app", func(k *v1alpha1.KCLRun) {
				k.Spec.Prune = tc.prune
				k.Spec.DeletionPolicy = tc.policy
			})
			readyAt(t, ns, "app", artifact.Revision)
			deleteKCLRun(t, ns, "app")
			err := env.Client.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: "kept"}, &corev1.ConfigMap{})
			if tc.deleted {
				g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "deleted: %v", err)
			} else {
				g.Expect(err).NotTo(HaveOccurred(), "left in place")
			}
		})
	}
	assertNoOverlap(t)
}

// WaitForTermination keeps the KCLRun, finalizer and all, until its objects are gone.
func TestDeletionPolicyWaitForTerminationWaitsForTheObjects(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	artifact := publishProgram(t, ns, "app", heldConfigMap)
	createKCLRun(t, ns, "app", "app", func(k *v1alpha1.KCLRun) {
		k.Spec.Prune = false
		k.Spec.DeletionPolicy = v1alpha1.DeletionPolicyWaitForTermination
		k.Spec.Timeout = &metav1.Duration{Duration: 2 * time.Minute}
	})
	readyAt(t, ns, "app", artifact.Revision)

	g.Expect(env.Client.Delete(ctx, &v1alpha1.KCLRun{ObjectMeta: objectMeta(ns, "app")})).To(Succeed())
	request(t, ns, "app", reconcilerequest.ReasonDeleting)
	held := &corev1.ConfigMap{}
	key := types.NamespacedName{Namespace: ns, Name: "held"}
	g.Eventually(func(g Gomega) {
		g.Expect(env.Client.Get(ctx, key, held)).To(Succeed())
		g.Expect(held.DeletionTimestamp.IsZero()).To(BeFalse())
	}, "1m").Should(Succeed())
	run := &v1alpha1.KCLRun{}
	g.Expect(env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "app"}, run)).To(Succeed(), "the KCLRun waits while its object terminates")
	g.Expect(run.Finalizers).To(ContainElement(v1alpha1.KCLRunFinalizer))

	patch := client.MergeFrom(held.DeepCopy())
	held.Finalizers = nil
	g.Expect(env.Client.Patch(ctx, held, patch)).To(Succeed())
	gone(t, ns, "app")
	for _, e := range events.forObject(ns, "app") {
		g.Expect(e.Reason).NotTo(Equal(v1alpha1.TerminationTimeoutReason))
	}
}

// WaitForTermination gives up after spec.timeout: the KCLRun is released with an
// event saying the objects did not terminate, as Flux does.
func TestDeletionPolicyWaitForTerminationTimesOut(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	artifact := publishProgram(t, ns, "app", heldConfigMap)
	createKCLRun(t, ns, "app", "app", func(k *v1alpha1.KCLRun) {
		k.Spec.DeletionPolicy = v1alpha1.DeletionPolicyWaitForTermination
		k.Spec.Timeout = &metav1.Duration{Duration: 15 * time.Second}
	})
	readyAt(t, ns, "app", artifact.Revision)
	key := types.NamespacedName{Namespace: ns, Name: "held"}
	t.Cleanup(func() {
		held := &corev1.ConfigMap{}
		if env.Client.Get(ctx, key, held) == nil {
			patch := client.MergeFrom(held.DeepCopy())
			held.Finalizers = nil
			_ = env.Client.Patch(ctx, held, patch)
		}
	})

	deleteKCLRun(t, ns, "app")
	g.Eventually(func() []eventv1.Event { return events.forObject(ns, "app") }, "1m").Should(ContainElement(And(
		HaveField("Reason", v1alpha1.TerminationTimeoutReason),
		HaveField("Severity", eventv1.EventSeverityError),
		HaveField("Message", ContainSubstring("failed to wait for objects termination")),
	)))
	held := &corev1.ConfigMap{}
	g.Expect(env.Client.Get(ctx, key, held)).To(Succeed())
	g.Expect(held.DeletionTimestamp.IsZero()).To(BeFalse(), "deleted, still terminating")
}
