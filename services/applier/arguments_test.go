package applier_test

import (
	"context"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
)

const argumentsProgram = `items = [{
    apiVersion = "v1"
    kind = "ConfigMap"
    metadata = {name = "args"}
    data = {
        color = option("color")
        token = option("token")
    }
}]
`

// ConfigMap and Secret data become option() values; a missing required
// reference is reported and a change to the data is a change (no no-op).
func TestArgumentsReferences(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	artifact := publishProgram(t, ns, "app", argumentsProgram)
	createKCLRun(t, ns, "args", "app", func(k *v1alpha1.KCLRun) {
		k.Spec.ArgumentsReferences = []v1alpha1.ArgumentReference{
			{Kind: "ConfigMap", Name: "colors"},
			{Kind: "Secret", Name: "tokens"},
		}
	})
	g.Eventually(func(g Gomega) {
		ready := readyCondition(getKCLRun(g, ns, "args"))
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Reason).To(Equal(v1alpha1.ArgumentsNotFoundReason))
		g.Expect(ready.Message).To(ContainSubstring("ConfigMap '" + ns + "/colors' not found"))
	}, "1m").Should(Succeed())

	g.Expect(env.Client.Create(ctx, &corev1.ConfigMap{ObjectMeta: objectMeta(ns, "colors"), Data: map[string]string{"color": "blue"}})).To(Succeed())
	g.Expect(env.Client.Create(ctx, &corev1.Secret{ObjectMeta: objectMeta(ns, "tokens"), StringData: map[string]string{"token": "s3cr3t"}})).To(Succeed())
	request(t, ns, "args", reconcilerequest.ReasonRequested)
	readyAt(t, ns, "args", artifact.Revision)
	cm := &corev1.ConfigMap{}
	g.Expect(env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "args"}, cm)).To(Succeed())
	g.Expect(cm.Data).To(Equal(map[string]string{"color": "blue", "token": "s3cr3t"}))

	// Same artifact, new argument data: applied, not skipped as a no-op.
	colors := &corev1.ConfigMap{}
	g.Expect(env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "colors"}, colors)).To(Succeed())
	colors.Data["color"] = "green"
	g.Expect(env.Client.Update(ctx, colors)).To(Succeed())
	request(t, ns, "args", reconcilerequest.ReasonRequested)
	g.Eventually(func(g Gomega) {
		g.Expect(env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "args"}, cm)).To(Succeed())
		g.Expect(cm.Data).To(HaveKeyWithValue("color", "green"))
	}, "1m").Should(Succeed())

	// The secret value is in no condition message.
	for _, c := range getKCLRun(g, ns, "args").Status.Conditions {
		g.Expect(c.Message).NotTo(ContainSubstring("s3cr3t"))
	}
}

// A KCLRun waits for the KCLRuns it depends on.
func TestDependsOnWaitsForReadiness(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)
	second := publishProgram(t, ns, "second", configMap("second", "1"))
	createKCLRun(t, ns, "second", "second", func(k *v1alpha1.KCLRun) {
		k.Spec.DependsOn = []metaRef{{Name: "first"}}
	})
	g.Eventually(func(g Gomega) {
		ready := readyCondition(getKCLRun(g, ns, "second"))
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
		g.Expect(ready.Reason).To(Equal("DependencyNotReady"))
	}, "1m").Should(Succeed())

	first := publishProgram(t, ns, "first", configMap("first", "1"))
	createKCLRun(t, ns, "first", "first")
	readyAt(t, ns, "first", first.Revision)
	// The dependency retry (--requeue-dependency, 2s here) picks it up.
	readyAt(t, ns, "second", second.Revision)
}
