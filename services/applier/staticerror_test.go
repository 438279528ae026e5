package applier_test

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
)

// An undefined name on a path that never runs (a schema attribute's type) is
// still an error, found before evaluation as the official engine finds it:
// Ready=False CompileFailed with its position and the engine's message (checked
// with kcl run: main.k:5:12, "name 'Prot' is not defined, did you mean
// '["Port"]'?"), a warning event, and what was applied before untouched.
func TestStaticErrorOnAPathThatNeverRuns(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)
	good := publishProgram(t, ns, "app", configMap("settings", "v1"))
	createKCLRun(t, ns, "static", "app")
	readyAt(t, ns, "static", good.Revision)

	bad := publishProgram(t, ns, "app", `schema Port:
    number: int = 80

schema Settings:
    port?: Prot

items = [{
    apiVersion = "v1"
    kind = "ConfigMap"
    metadata = {name = "settings"}
    data = {value = "v2"}
}]
`)
	request(t, ns, "static", reconcilerequest.ReasonSourceChanged)

	g.Eventually(func(g Gomega) {
		obj := getKCLRun(g, ns, "static")
		ready := readyCondition(obj)
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
		g.Expect(ready.Reason).To(Equal(v1alpha1.CompileFailedReason))
		g.Expect(ready.Message).To(ContainSubstring("main.k:5:12"))
		g.Expect(ready.Message).To(ContainSubstring(`name 'Prot' is not defined, did you mean '["Port"]'?`))
		g.Expect(obj.Status.LastAttemptedRevision).To(Equal(bad.Revision))
		g.Expect(obj.Status.LastAppliedRevision).To(Equal(good.Revision))
	}, "2m").Should(Succeed())

	g.Eventually(func() []string {
		var reasons []string
		for _, e := range events.forObject(ns, "static") {
			if e.Severity == "error" {
				reasons = append(reasons, e.Reason)
			}
		}
		return reasons
	}, "1m").Should(ContainElement(v1alpha1.CompileFailedReason))

	cm := &corev1.ConfigMap{}
	g.Expect(env.Client.Get(t.Context(), types.NamespacedName{Namespace: ns, Name: "settings"}, cm)).To(Succeed())
	g.Expect(cm.Data).To(HaveKeyWithValue("value", "v1"))
	assertNoOverlap(t)
}
