package applier_test

import (
	"context"
	"testing"

	"github.com/fluxcd/pkg/apis/meta"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/kube"
)

// spec.kubeConfig.configMapRef with Flux's provider generic: a second apiserver trusts
// this one's ServiceAccount tokens (as a fleet cluster trusts the management cluster's
// issuer), the ConfigMap gives its address, CA, the ServiceAccount and the audience, and
// the applier reaches it with a token requested for that account: the objects land
// there, under that identity, and drift there is undone.
func TestKubeConfigConfigMapRefWorkloadIdentity(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	const audience = "fkc-remote"
	remote, err := kube.StartWith(ctx, kube.Options{TrustServiceAccountsOf: env, Audience: audience})
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = remote.Stop() })

	ns := newNamespace(t)
	g.Expect(env.Client.Create(ctx, &corev1.ServiceAccount{ObjectMeta: objectMeta(ns, "fleet-deployer")})).To(Succeed())
	user := "system:serviceaccount:" + ns + ":fleet-deployer"
	g.Expect(remote.Client.Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: ns + "-fleet-deployer"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}},
	})).To(Succeed())
	target, err := remote.CreateNamespace(ctx, "fleet")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(env.Client.Create(ctx, &corev1.ConfigMap{ObjectMeta: objectMeta(ns, "fleet-cluster"), Data: map[string]string{
		meta.KubeConfigKeyProvider:           "generic",
		meta.KubeConfigKeyAddress:            remote.Config.Host,
		meta.KubeConfigKeyCACert:             string(remote.Config.CAData),
		meta.KubeConfigKeyServiceAccountName: "fleet-deployer",
		meta.KubeConfigKeyAudiences:          audience,
	}})).To(Succeed())

	artifact := publishProgram(t, ns, "app", configMap("fleet-settings", "desired"))
	createKCLRun(t, ns, "fleet", "app", func(k *v1alpha1.KCLRun) {
		k.Spec.KubeConfig = &meta.KubeConfigReference{ConfigMapRef: &meta.LocalObjectReference{Name: "fleet-cluster"}}
		k.Spec.TargetNamespace = target
	})
	readyAt(t, ns, "fleet", artifact.Revision)

	key := types.NamespacedName{Namespace: target, Name: "fleet-settings"}
	cm := &corev1.ConfigMap{}
	g.Expect(remote.Client.Get(ctx, key, cm)).To(Succeed())
	g.Expect(cm.Data).To(HaveKeyWithValue("value", "desired"))
	g.Expect(apierrors.IsNotFound(env.Client.Get(ctx, key, &corev1.ConfigMap{}))).To(BeTrue(), "not on the management cluster")

	patch := client.MergeFrom(cm.DeepCopy())
	cm.Data["value"] = "edited by hand"
	g.Expect(remote.Client.Patch(ctx, cm, patch, client.FieldOwner("kubectl-edit"))).To(Succeed())
	g.Eventually(func(g Gomega) string {
		g.Expect(remote.Client.Get(ctx, key, cm)).To(Succeed())
		return cm.Data["value"]
	}, "1m").Should(Equal("desired"))
	assertNoOverlap(t)
}

// A provider this build cannot exchange tokens with is refused by name.
func TestKubeConfigConfigMapRefUnsupportedProvider(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)
	g.Expect(env.Client.Create(context.Background(), &corev1.ConfigMap{ObjectMeta: objectMeta(ns, "eks"), Data: map[string]string{
		meta.KubeConfigKeyProvider: "aws", meta.KubeConfigKeyCluster: "arn:aws:eks:eu-west-1:123456789012:cluster/fleet",
	}})).To(Succeed())
	publishProgram(t, ns, "app", configMap("nowhere", "x"))
	createKCLRun(t, ns, "eks", "app", func(k *v1alpha1.KCLRun) {
		k.Spec.KubeConfig = &meta.KubeConfigReference{ConfigMapRef: &meta.LocalObjectReference{Name: "eks"}}
	})
	g.Eventually(func(g Gomega) {
		ready := readyCondition(getKCLRun(g, ns, "eks"))
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
		g.Expect(ready.Message).To(ContainSubstring(`provider "aws" is not supported, only "generic"`))
	}, "1m").Should(Succeed())
}
