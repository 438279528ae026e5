package applier_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
)

// status.history keeps the last five reconciles that compiled, as Flux's
// Kustomization does: one snapshot per digest and outcome, the latest first,
// counting the reconciles of each; a requested full check of unchanged
// inputs counts again on the same snapshot.
func TestHistoryKeepsTheLastFiveReconciles(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	first := publishProgram(t, ns, "app", configMap("settings", "v0"))
	createKCLRun(t, ns, "app", "app")
	obj := readyAt(t, ns, "app", first.Revision)

	g.Expect(obj.Status.History).To(HaveLen(1))
	snap := obj.Status.History[0]
	g.Expect(snap.Digest).To(HavePrefix("sha256:"))
	g.Expect(snap.Metadata).To(Equal(map[string]string{"revision": first.Revision}))
	g.Expect(snap.LastReconciledStatus).To(Equal(meta.ReconciliationSucceededReason))
	g.Expect(snap.TotalReconciliations).To(BeEquivalentTo(1))
	g.Expect(snap.FirstReconciled.IsZero()).To(BeFalse())
	g.Expect(snap.LastReconciledDuration.Duration).To(BeNumerically(">", 0))

	waitQuiet(t, ns+"/app")
	requestedAt := time.Now().Format(time.RFC3339Nano)
	patch := client.MergeFrom(obj.DeepCopy())
	obj.Annotations = map[string]string{meta.ReconcileRequestAnnotation: requestedAt}
	g.Expect(env.Client.Patch(ctx, obj, patch)).To(Succeed())
	request(t, ns, "app", reconcilerequest.ReasonRequested)
	g.Eventually(func(g Gomega) {
		obj = getKCLRun(g, ns, "app")
		g.Expect(obj.Status.LastHandledReconcileAt).To(Equal(requestedAt))
	}, "1m", "200ms").Should(Succeed())
	g.Expect(obj.Status.History).To(HaveLen(1))
	g.Expect(obj.Status.History[0].Digest).To(Equal(snap.Digest))
	g.Expect(obj.Status.History[0].TotalReconciliations).To(BeEquivalentTo(2))
	g.Expect(obj.Status.History[0].FirstReconciled).To(Equal(snap.FirstReconciled))

	var revisions []string
	for i := 1; i <= 5; i++ {
		a := publishProgram(t, ns, "app", configMap("settings", fmt.Sprintf("v%d", i)))
		request(t, ns, "app", reconcilerequest.ReasonSourceChanged)
		obj = readyAt(t, ns, "app", a.Revision)
		revisions = append([]string{a.Revision}, revisions...)
	}
	g.Expect(obj.Status.History).To(HaveLen(meta.HistoryMaxSize))
	for i, s := range obj.Status.History {
		g.Expect(s.Metadata).To(HaveKeyWithValue("revision", revisions[i]))
		g.Expect(s.Digest).NotTo(Equal(snap.Digest))
	}
}
