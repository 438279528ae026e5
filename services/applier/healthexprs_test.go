package applier_test

import (
	"fmt"
	"testing"
	"time"

	eventv1 "github.com/fluxcd/pkg/apis/event/v1"
	"github.com/fluxcd/pkg/apis/kustomize"
	"github.com/fluxcd/pkg/apis/meta"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
)

// readiness is a program rendering a ConfigMap whose data.ready the
// health check expressions below read.
func readiness(value string) string {
	return fmt.Sprintf(`items = [{
    apiVersion = "v1"
    kind = "ConfigMap"
    metadata = {name = "probe"}
    data = {ready = %q}
}]
`, value)
}

var probeExprs = []kustomize.CustomHealthCheck{{
	APIVersion: "v1",
	Kind:       "ConfigMap",
	HealthCheckExpressions: kustomize.HealthCheckExpressions{
		Current: "data.ready == 'yes'",
		Failed:  "data.ready == 'broken'",
	},
}}

// spec.healthCheckExprs decide the health of the kinds they name, through
// fluxcd/pkg's CEL status reader: a ConfigMap (current for kstatus as soon
// as it exists) is in progress until its expression says current. A new
// revision cancels the health check still waiting for the old one, and a
// failed expression fails the check at once.
func TestHealthCheckExprs(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)
	waiting := publishProgram(t, ns, "app", readiness("no"))
	createKCLRun(t, ns, "app", "app", func(k *v1alpha1.KCLRun) {
		k.Spec.Wait = true
		k.Spec.Timeout = &metav1.Duration{Duration: 5 * time.Minute}
		k.Spec.HealthCheckExprs = probeExprs
	})
	g.Eventually(func(g Gomega) {
		obj := getKCLRun(g, ns, "app")
		g.Expect(obj.Status.LastAttemptedRevision).To(Equal(waiting.Revision))
		g.Expect(conditionOf(obj, meta.ReconcilingCondition)).To(HaveField("Status", metav1.ConditionTrue))
		g.Expect(conditionOf(obj, meta.ReadyCondition)).To(HaveField("Status", metav1.ConditionUnknown))
	}, "1m", "200ms").Should(Succeed())

	// Without the cancel the new revision would wait for the 5m timeout.
	healthy := publishProgram(t, ns, "app", readiness("yes"))
	request(t, ns, "app", reconcilerequest.ReasonSourceChanged)
	obj := readyAt(t, ns, "app", healthy.Revision)
	g.Expect(conditionOf(obj, meta.HealthyCondition)).To(HaveField("Status", metav1.ConditionTrue))
	g.Eventually(func() []eventv1.Event { return events.forObject(ns, "app") }, "1m").Should(ContainElement(And(
		HaveField("Reason", meta.HealthCheckCanceledReason),
		HaveField("Severity", eventv1.EventSeverityInfo),
		HaveField("Message", ContainSubstring("Health checks canceled due to new reconciliation triggered by GitRepository/"+ns+"/app")),
		HaveField("Metadata", HaveKeyWithValue(v1alpha1.GroupVersion.Group+"/revision", waiting.Revision)),
	)))

	broken := publishProgram(t, ns, "app", readiness("broken"))
	request(t, ns, "app", reconcilerequest.ReasonSourceChanged)
	g.Eventually(func(g Gomega) {
		obj := getKCLRun(g, ns, "app")
		g.Expect(obj.Status.LastAttemptedRevision).To(Equal(broken.Revision))
		g.Expect(conditionOf(obj, meta.ReadyCondition)).To(And(
			HaveField("Status", metav1.ConditionFalse), HaveField("Reason", meta.HealthCheckFailedReason)))
	}, "1m", "200ms").Should(Succeed())
}

// An expression that does not compile stalls the KCLRun before anything is
// applied.
func TestInvalidHealthCheckExprStalls(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)
	publishProgram(t, ns, "app", readiness("yes"))
	createKCLRun(t, ns, "app", "app", func(k *v1alpha1.KCLRun) {
		k.Spec.Wait = true
		k.Spec.HealthCheckExprs = []kustomize.CustomHealthCheck{{APIVersion: "v1", Kind: "ConfigMap",
			HealthCheckExpressions: kustomize.HealthCheckExpressions{Current: "data.ready =="}}}
	})
	g.Eventually(func(g Gomega) {
		obj := getKCLRun(g, ns, "app")
		g.Expect(conditionOf(obj, meta.StalledCondition)).To(HaveField("Reason", meta.InvalidCELExpressionReason))
		g.Expect(conditionOf(obj, meta.ReadyCondition)).To(And(
			HaveField("Status", metav1.ConditionFalse), HaveField("Reason", meta.InvalidCELExpressionReason)))
		g.Expect(obj.Status.Inventory).To(BeNil())
	}, "1m", "200ms").Should(Succeed())
}
