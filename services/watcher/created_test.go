package watcher

import (
	"context"
	"fmt"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kclv1 "github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
	"github.com/kcl-lang/flux-kcl-controller/internal/shard"
)

func TestCreationPublishesOneRequest(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)
	run := newKCLRun(t, ns, "app.v1", "repo")

	req := waitForReason(t, ns, "app.v1", reconcilerequest.ReasonCreated)
	g.Expect(req.UID).To(Equal(string(run.UID)))
	g.Expect(req.Generation).To(Equal(int64(1)))
	g.Expect(pendingCount(g, ns, "app.v1")).To(Equal(uint64(1)))
}

func TestBurstOfSpecChangesIsCoalesced(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	run := newKCLRun(t, ns, "burst", "repo")
	waitForReason(t, ns, "burst", reconcilerequest.ReasonCreated)

	for i := 1; i <= 20; i++ {
		g.Eventually(func() error {
			var cur kclv1.KCLRun
			if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(run), &cur); err != nil {
				return err
			}
			cur.Spec.Path = fmt.Sprintf("./v%d", i)
			return k8sClient.Update(ctx, &cur)
		}, eventually).Should(Succeed())
	}

	var last kclv1.KCLRun
	g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(run), &last)).To(Succeed())
	g.Eventually(func(g Gomega) {
		req := pendingRequest(g, ns, "burst")
		g.Expect(req).NotTo(BeNil())
		g.Expect(req.Generation).To(Equal(last.Generation))
	}, eventually, 20*time.Millisecond).Should(Succeed())
	g.Expect(pendingCount(g, ns, "burst")).To(Equal(uint64(1)))
}

func TestRequestedAtAnnotationPublishes(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	run := newKCLRun(t, ns, "manual", "repo")
	waitForReason(t, ns, "manual", reconcilerequest.ReasonCreated)
	consume(t, ns, "manual")

	at := metav1.Now().Format(time.RFC3339Nano)
	patch := client.MergeFrom(run.DeepCopy())
	run.Annotations = map[string]string{"reconcile.fluxcd.io/requestedAt": at}
	g.Expect(k8sClient.Patch(ctx, run, patch)).To(Succeed())

	req := waitForReason(t, ns, "manual", reconcilerequest.ReasonRequested)
	g.Expect(req.RequestedAt).To(Equal(at))
}

func TestDeletionPublishesForTheFinalizer(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	run := newKCLRun(t, ns, "doomed", "repo", func(r *kclv1.KCLRun) {
		r.Finalizers = []string{kclv1.KCLRunFinalizer}
	})
	waitForReason(t, ns, "doomed", reconcilerequest.ReasonCreated)
	consume(t, ns, "doomed")

	g.Expect(k8sClient.Delete(ctx, run)).To(Succeed())
	waitForReason(t, ns, "doomed", reconcilerequest.ReasonDeleting)

	// Let the namespace go: remove the finalizer as the applier would.
	patch := client.MergeFrom(run.DeepCopy())
	run.Finalizers = nil
	g.Expect(k8sClient.Patch(ctx, run, patch)).To(Succeed())
}

func TestDeletedStreamIsRecreated(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	g.Expect(testJS.DeleteStream(ctx, shard.Name("").Stream())).To(Succeed())

	ns := newNamespace(t)
	newKCLRun(t, ns, "after-loss", "repo")
	waitForReason(t, ns, "after-loss", reconcilerequest.ReasonCreated)
}
