package applier_test

import (
	"testing"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// envtest runs no Deployment controller, so a Deployment never becomes
// available: a health check on it fails within spec.timeout, while objects
// that are current on creation pass.
func TestHealthChecks(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)
	ok := publishProgram(t, ns, "cm", configMap("settings", "1"))
	createKCLRun(t, ns, "healthy", "cm", func(k *v1alpha1.KCLRun) { k.Spec.Wait = true })
	obj := readyAt(t, ns, "healthy", ok.Revision)
	g.Expect(conditionOf(obj, meta.HealthyCondition)).To(HaveField("Status", metav1.ConditionTrue))

	web := publishProgram(t, ns, "web", webApp(1, false))
	createKCLRun(t, ns, "stuck", "web", func(k *v1alpha1.KCLRun) {
		k.Spec.Timeout = &metav1.Duration{Duration: 3 * time.Second}
		k.Spec.HealthChecks = []meta.NamespacedObjectKindReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"}}
	})
	g.Eventually(func(g Gomega) {
		obj := getKCLRun(g, ns, "stuck")
		g.Expect(obj.Status.LastAttemptedRevision).To(Equal(web.Revision))
		g.Expect(conditionOf(obj, meta.ReadyCondition)).To(And(
			HaveField("Status", metav1.ConditionFalse), HaveField("Reason", meta.HealthCheckFailedReason)))
		g.Expect(conditionOf(obj, meta.HealthyCondition)).To(HaveField("Status", metav1.ConditionFalse))
		g.Expect(obj.Status.Inventory).NotTo(BeNil())
	}, "1m").Should(Succeed())
}

func conditionOf(obj *v1alpha1.KCLRun, t string) *metav1.Condition {
	for i := range obj.Status.Conditions {
		if obj.Status.Conditions[i].Type == t {
			return &obj.Status.Conditions[i]
		}
	}
	return nil
}
