package applier_test

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
)

// Objects the kube-apiserver refuses (forbidden to the impersonated account,
// invalid) fail the KCLRun with ReconciliationFailed and a warning event, and
// wait for the retry interval rather than backing off: the same request
// would be refused again. The table's apply row, on the real apiserver.
func TestApplyRefusalsWaitForTheRetryInterval(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)

	g.Expect(env.Client.Create(t.Context(), &corev1.ServiceAccount{ObjectMeta: objectMeta(ns, "powerless")})).To(Succeed())
	publishProgram(t, ns, "forbidden", configMap("settings", "v1"))
	createKCLRun(t, ns, "forbidden", "forbidden", func(k *v1alpha1.KCLRun) { k.Spec.ServiceAccountName = "powerless" })

	publishProgram(t, ns, "invalid", "items = [{\n    apiVersion = \"v1\"\n    kind = \"ConfigMap\"\n    metadata = {name = \"settings\"}\n    data = {\"not a key!\" = \"x\"}\n}]\n")
	createKCLRun(t, ns, "invalid", "invalid")

	for name, text := range map[string]string{"forbidden": "is forbidden", "invalid": "is invalid"} {
		g.Eventually(func(g Gomega) {
			ready := readyCondition(getKCLRun(g, ns, name))
			g.Expect(ready).NotTo(BeNil())
			g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(ready.Reason).To(Equal(v1alpha1.ReconciliationFailed))
			g.Expect(ready.Message).To(ContainSubstring(text))
		}, "2m").Should(Succeed(), name)

		out := requestAndWait(t, ns, name, reconcilerequest.ReasonRetryIntervalElapsed)
		g.Expect(out.Err).To(HaveOccurred(), name)
		g.Expect(out.RetryAfter).To(BeZero(), "%s: acked, the watcher schedules the retry interval", name)
		g.Expect(getKCLRun(g, ns, name).Status.Conditions).NotTo(ContainElement(HaveField("Type", "Stalled")), name)

		g.Eventually(func() []string {
			var reasons []string
			for _, e := range events.forObject(ns, name) {
				if e.Severity == "error" {
					reasons = append(reasons, e.Reason)
				}
			}
			return reasons
		}, "1m").Should(ContainElement(v1alpha1.ReconciliationFailed), name)
	}
}
