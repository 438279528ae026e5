package applier_test

import (
	"context"
	"testing"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// A first sync costs one apply per object and two KCLRun writes (finalizer,
// verdict): new objects skip the GET and dry-run, and a fast reconcile skips
// the progress write.
func TestFirstSyncRequests(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)
	web := publishProgram(t, ns, "web", webApp(1, true))
	createKCLRun(t, ns, "web", "web")
	readyAt(t, ns, "web", web.Revision)

	counts := requests.In(ns)
	g.Expect(counts).To(HaveKeyWithValue("PATCH deployments", 1))
	g.Expect(counts).To(HaveKeyWithValue("PATCH services", 1))
	g.Expect(counts).NotTo(HaveKey("GET deployments"))
	g.Expect(counts).NotTo(HaveKey("GET services"))
	g.Expect(counts).To(HaveKeyWithValue("PATCH kclruns", 1))
	g.Expect(counts).To(HaveKeyWithValue("PATCH kclruns/status", 1))
}

// An object that exists before its KCLRun does, written by kubectl's
// client-side apply, is taken over as the manager takes it over: kubectl's
// field manager and last-applied annotation are gone, its fields are ours,
// and the change set says configured.
func TestFirstSyncAdoptsExistingObject(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	existing := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "settings", Annotations: map[string]string{
			"kubectl.kubernetes.io/last-applied-configuration": `{"apiVersion":"v1","kind":"ConfigMap"}`,
		}},
		Data: map[string]string{"value": "old", "extra": "kept"},
	}
	g.Expect(env.Client.Create(ctx, existing, client.FieldOwner("kubectl"))).To(Succeed())

	cm := publishProgram(t, ns, "cm", configMap("settings", "new"))
	createKCLRun(t, ns, "adopt", "cm")
	obj := readyAt(t, ns, "adopt", cm.Revision)
	g.Expect(obj.Status.Inventory.Entries).To(ConsistOf(HaveField("ID", ns+"_settings__ConfigMap")))

	got := &corev1.ConfigMap{}
	g.Expect(env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "settings"}, got)).To(Succeed())
	g.Expect(got.Data).To(HaveKeyWithValue("value", "new"))
	g.Expect(got.Annotations).NotTo(HaveKey("kubectl.kubernetes.io/last-applied-configuration"))
	for _, m := range got.ManagedFields {
		g.Expect(m.Manager).NotTo(Equal("kubectl"), "kubectl still manages %v", m.FieldsV1)
	}
	g.Eventually(func() []string {
		var messages []string
		for _, e := range events.forObject(ns, "adopt") {
			messages = append(messages, e.Message)
		}
		return messages
	}, "30s", "200ms").Should(ContainElement(ContainSubstring("ConfigMap/" + ns + "/settings configured")))
}

// A reconcile that outlasts the progress delay (here a health check that
// cannot pass: no Deployment controller runs) shows Reconciling while it
// runs, and its verdict clears it.
func TestSlowReconcileShowsProgress(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)
	web := publishProgram(t, ns, "web", webApp(1, false))
	createKCLRun(t, ns, "slow", "web", func(k *v1alpha1.KCLRun) {
		k.Spec.Timeout = &metav1.Duration{Duration: 10 * time.Second}
		k.Spec.Wait = true
	})
	g.Eventually(func(g Gomega) {
		obj := getKCLRun(g, ns, "slow")
		g.Expect(conditionOf(obj, meta.ReconcilingCondition)).To(And(
			HaveField("Status", metav1.ConditionTrue), HaveField("Reason", meta.ProgressingReason)))
		g.Expect(conditionOf(obj, meta.ReadyCondition)).To(HaveField("Status", metav1.ConditionUnknown))
	}, "30s", "100ms").Should(Succeed())
	g.Eventually(func(g Gomega) {
		obj := getKCLRun(g, ns, "slow")
		g.Expect(obj.Status.LastAttemptedRevision).To(Equal(web.Revision))
		g.Expect(conditionOf(obj, meta.ReadyCondition)).To(HaveField("Reason", meta.HealthCheckFailedReason))
		g.Expect(conditionOf(obj, meta.ReconcilingCondition)).To(BeNil())
	}, "1m", "200ms").Should(Succeed())
}
