package applier_test

import (
	"context"
	"testing"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
)

// `flux reconcile`-style requests (reconcile.fluxcd.io/requestedAt) on an
// unchanged KCLRun do the full check: an edit the drift watcher never saw,
// made while no applier ran, is undone, and the request is recorded as
// handled in status.lastHandledReconcileAt.
func TestRequestedAtRepairsWhatTheDriftWatcherMissed(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	artifact := publishProgram(t, ns, "app", configMap("settings", "desired"))
	createKCLRun(t, ns, "app", "app")
	readyAt(t, ns, "app", artifact.Revision)
	waitQuiet(t, ns+"/app")

	key := types.NamespacedName{Namespace: ns, Name: "settings"}
	whileApplierStopped(t, func() {
		cm := &corev1.ConfigMap{}
		g.Expect(env.Client.Get(ctx, key, cm)).To(Succeed())
		cm.Data["value"] = "edited"
		g.Expect(env.Client.Update(ctx, cm, client.FieldOwner("kubectl-edit"))).To(Succeed())
	})

	requestedAt := time.Now().Format(time.RFC3339Nano)
	run := getKCLRun(g, ns, "app")
	patch := client.MergeFrom(run.DeepCopy())
	run.Annotations = map[string]string{meta.ReconcileRequestAnnotation: requestedAt}
	g.Expect(env.Client.Patch(ctx, run, patch)).To(Succeed())
	request(t, ns, "app", reconcilerequest.ReasonRequested)

	g.Eventually(func(g Gomega) {
		g.Expect(getKCLRun(g, ns, "app").Status.LastHandledReconcileAt).To(Equal(requestedAt))
	}, "1m", "200ms").Should(Succeed())
	cm := &corev1.ConfigMap{}
	g.Expect(env.Client.Get(ctx, key, cm)).To(Succeed())
	g.Expect(cm.Data).To(HaveKeyWithValue("value", "desired"))
	assertNoOverlap(t)
}
