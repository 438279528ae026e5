package applier_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/kube"
)

// A stage may hold KCLRuns that apply to a remote cluster through
// spec.kubeConfig (here a second real apiserver): the fleet stage gets the
// target only after the local canary baked it.
func TestImageRolloutRemoteClusterStage(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	remote := kube.StartT(t)
	kubeconfig, err := os.ReadFile(remote.Kubeconfig())
	g.Expect(err).NotTo(HaveOccurred())
	target, err := remote.CreateNamespace(ctx, "fleet")
	g.Expect(err).NotTo(HaveOccurred())
	var secretNS string
	w := newRolloutWorld(t, map[string]string{"canary-1": "canary", "fleet-1": "fleet"}, func(name string, k *v1alpha1.KCLRun) {
		if name != "fleet-1" {
			return
		}
		if secretNS == "" {
			secretNS = k.Namespace
			g.Expect(env.Client.Create(ctx, &corev1.Secret{ObjectMeta: objectMeta(k.Namespace, "remote"),
				Data: map[string][]byte{"value": kubeconfig}})).To(Succeed())
		}
		k.Spec.KubeConfig = &meta.KubeConfigReference{SecretRef: &meta.SecretKeyReference{Name: "remote"}}
		k.Spec.TargetNamespace = target
	})
	remoteImage := func(g Gomega) string {
		cm := &corev1.ConfigMap{}
		g.Expect(remote.Client.Get(ctx, types.NamespacedName{Namespace: target, Name: "web"}, cm)).To(Succeed())
		return cm.Data["image"]
	}
	g.Expect(remoteImage(g)).To(Equal("ghcr.io/org/web:1.0.0"))
	w.createRollout(v1alpha1.ImageRolloutSpec{Stages: []v1alpha1.RolloutStage{
		{Name: "canary", Selector: stageSelector("canary"), Bake: &metav1.Duration{Duration: 5 * time.Minute}},
		{Name: "fleet", Selector: stageSelector("fleet")},
	}})
	w.elect("2.0.0")
	w.waitImages("2.0.0", "canary-1")
	w.waitStates("canary=Baking fleet=Pending")
	waitQuiet(t, w.key("fleet-1"))
	g.Consistently(remoteImage, "1s", "100ms").Should(Equal("ghcr.io/org/web:1.0.0"))

	w.clock.Step(5 * time.Minute)
	g.Eventually(remoteImage, "2m", "100ms").Should(Equal("ghcr.io/org/web:2.0.0"))
	ro := w.waitStates("canary=Succeeded fleet=Succeeded")
	g.Expect(ro.StageStatus("fleet").Ready).To(BeEquivalentTo(1))
}
