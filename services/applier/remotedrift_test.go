package applier_test

import (
	"context"
	"os"
	"testing"

	"github.com/fluxcd/pkg/apis/meta"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
	"github.com/kcl-lang/flux-kcl-controller/services/applier"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/kube"
)

// A KCLRun applying to another cluster (a second apiserver, which the applier's own
// drift watcher cannot see) is drift-watched there: an edit is undone without waiting
// for the interval. And its interval is a full check, not a fingerprint no-op.
func TestRemoteClusterIsDriftWatched(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	remote := kube.StartT(t)
	ns := newNamespace(t)
	kubeconfig, err := os.ReadFile(remote.Kubeconfig())
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(env.Client.Create(ctx, &corev1.Secret{ObjectMeta: objectMeta(ns, "remote"), Data: map[string][]byte{"value": kubeconfig}})).To(Succeed())
	target, err := remote.CreateNamespace(ctx, "target")
	g.Expect(err).NotTo(HaveOccurred())
	artifact := publishProgram(t, ns, "app", configMap("remote-settings", "desired"))
	createKCLRun(t, ns, "remote", "app", func(k *v1alpha1.KCLRun) {
		k.Spec.KubeConfig = &meta.KubeConfigReference{SecretRef: &meta.SecretKeyReference{Name: "remote"}}
		k.Spec.TargetNamespace = target
	})
	readyAt(t, ns, "remote", artifact.Revision)

	key := types.NamespacedName{Namespace: target, Name: "remote-settings"}
	cm := &corev1.ConfigMap{}
	g.Expect(remote.Client.Get(ctx, key, cm)).To(Succeed())
	patch := client.MergeFrom(cm.DeepCopy())
	cm.Data["value"] = "edited by hand"
	g.Expect(remote.Client.Patch(ctx, cm, patch, client.FieldOwner("kubectl-edit"))).To(Succeed())
	g.Eventually(func(g Gomega) string {
		g.Expect(remote.Client.Get(ctx, key, cm)).To(Succeed())
		return cm.Data["value"]
	}, "1m").Should(Equal("desired"), "the interval is 10 minutes away: only drift detection restores it")

	g.Expect(requestAndWait(t, ns, "remote", reconcilerequest.ReasonIntervalElapsed).Result).To(Equal(applier.ResultApplied),
		"the interval checks a remote cluster in full")
	assertNoOverlap(t)
}
