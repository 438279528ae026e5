package applier_test

import (
	"context"
	"os"
	"testing"

	"github.com/fluxcd/pkg/apis/meta"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// spec.kubeConfig sends the objects through the kubeconfig in a Secret (here
// the same apiserver, reached as a "remote" cluster).
func TestKubeConfigTargetsAnotherCluster(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	kubeconfig, err := os.ReadFile(env.Kubeconfig())
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(env.Client.Create(ctx, &corev1.Secret{
		ObjectMeta: objectMeta(ns, "remote"),
		Data:       map[string][]byte{"value": kubeconfig},
	})).To(Succeed())
	target := newNamespace(t)
	artifact := publishProgram(t, ns, "app", configMap("remote-settings", ns))
	createKCLRun(t, ns, "remote", "app", func(k *v1alpha1.KCLRun) {
		k.Spec.KubeConfig = &meta.KubeConfigReference{SecretRef: &meta.SecretKeyReference{Name: "remote"}}
		k.Spec.TargetNamespace = target
		k.Spec.CommonMetadata = &v1alpha1.CommonMetadata{
			Labels:      map[string]string{"team": "platform"},
			Annotations: map[string]string{"owner": "sre"},
		}
	})
	obj := readyAt(t, ns, "remote", artifact.Revision)
	g.Expect(obj.Status.Inventory.Entries).To(ConsistOf(v1alpha1.ResourceRef{ID: target + "_remote-settings__ConfigMap", Version: "v1"}))

	cm := &corev1.ConfigMap{}
	g.Expect(env.Client.Get(ctx, types.NamespacedName{Namespace: target, Name: "remote-settings"}, cm)).To(Succeed())
	g.Expect(cm.Labels).To(HaveKeyWithValue("team", "platform"))
	g.Expect(cm.Labels).To(HaveKeyWithValue("krm.kcl.dev.fluxcd/name", "remote"))
	g.Expect(cm.Annotations).To(HaveKeyWithValue("owner", "sre"))
}

// A missing kubeconfig Secret is reported, nothing is applied.
func TestKubeConfigSecretMissing(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)
	publishProgram(t, ns, "app", configMap("nowhere", ns))
	createKCLRun(t, ns, "lost", "app", func(k *v1alpha1.KCLRun) {
		k.Spec.KubeConfig = &meta.KubeConfigReference{SecretRef: &meta.SecretKeyReference{Name: "absent"}}
	})
	g.Eventually(func(g Gomega) {
		ready := readyCondition(getKCLRun(g, ns, "lost"))
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Message).To(ContainSubstring("kubeconfig Secret"))
	}, "1m").Should(Succeed())
}
