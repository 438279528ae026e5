package applier_test

import (
	"context"
	"testing"

	"github.com/fluxcd/pkg/apis/meta"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
)

func TestInvalidProgramIsNotReadyAndAppliesNothing(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	good := publishProgram(t, ns, "app", configMap("settings", "v1"))
	createKCLRun(t, ns, "broken", "app")
	readyAt(t, ns, "broken", good.Revision)

	// A neighbour on its own source keeps working throughout.
	neighbour := publishProgram(t, ns, "other", configMap("neighbour", "n1"))
	createKCLRun(t, ns, "neighbour", "other")

	bad := publishProgram(t, ns, "app", "items = [{\n    apiVersion = \"v1\"\n    kind = \"ConfigMap\"\n    metadata = {name = \"settings\"}\n    data = {value = undefined_name}\n}]\n")
	request(t, ns, "broken", reconcilerequest.ReasonSourceChanged)

	g.Eventually(func(g Gomega) {
		obj := getKCLRun(g, ns, "broken")
		ready := readyCondition(obj)
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
		g.Expect(ready.Reason).To(Equal(v1alpha1.CompileFailedReason))
		g.Expect(ready.Message).To(MatchRegexp(`main\.k:5:\d+`))
		g.Expect(obj.Status.LastAttemptedRevision).To(Equal(bad.Revision))
		g.Expect(obj.Status.LastAppliedRevision).To(Equal(good.Revision))
	}, "2m").Should(Succeed())

	cm := &corev1.ConfigMap{}
	g.Expect(env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "settings"}, cm)).To(Succeed())
	g.Expect(cm.Data).To(HaveKeyWithValue("value", "v1"))
	readyAt(t, ns, "neighbour", neighbour.Revision)

	// Fixing the program recovers.
	fixed := publishProgram(t, ns, "app", configMap("settings", "v2"))
	request(t, ns, "broken", reconcilerequest.ReasonSourceChanged)
	readyAt(t, ns, "broken", fixed.Revision)
	g.Expect(env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "settings"}, cm)).To(Succeed())
	g.Expect(cm.Data).To(HaveKeyWithValue("value", "v2"))

	var warnings int
	for _, e := range events.forObject(ns, "broken") {
		if e.Reason == v1alpha1.CompileFailedReason {
			warnings++
		}
	}
	g.Expect(warnings).To(BeNumerically(">", 0))
	_ = meta.ReadyCondition
	assertNoOverlap(t)
}
