package applier_test

import (
	"context"
	"testing"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/auth"
	. "github.com/onsi/gomega"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/services/applier"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/kube"
)

// Under --default-kubeconfig-service-account (Flux's workload identity lockdown) a
// kubeConfig.configMapRef that names no serviceAccountName is served with a token of that
// ServiceAccount of the KCLRun's namespace, never with the controller's own identity: the
// remote apiserver sees the tenant's account, and a namespace without it is refused with
// Flux's lockdown error. Open before the flag: such a ConfigMap took the controller's own
// token, so a tenant pointing it at the controller's cluster got the controller's rights.
func TestKubeConfigConfigMapRefDefaultServiceAccount(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	const audience = "fkc-lockdown"
	remote, err := kube.StartWith(ctx, kube.Options{TrustServiceAccountsOf: env, Audience: audience})
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = remote.Stop() })
	g.Expect(applier.LockDownKubeConfigIdentity("tenant-deployer")).To(Succeed())
	t.Cleanup(func() { _ = applier.LockDownKubeConfigIdentity("") })

	configMapIn := func(ns string) *corev1.ConfigMap {
		cm := &corev1.ConfigMap{ObjectMeta: objectMeta(ns, "own-cluster"), Data: map[string]string{
			meta.KubeConfigKeyProvider:  "generic",
			meta.KubeConfigKeyAddress:   remote.Config.Host,
			meta.KubeConfigKeyCACert:    string(remote.Config.CAData),
			meta.KubeConfigKeyAudiences: audience,
		}}
		g.Expect(env.Client.Create(ctx, cm)).To(Succeed())
		return cm
	}
	run := func(ns string) *v1alpha1.KCLRun {
		return &v1alpha1.KCLRun{ObjectMeta: objectMeta(ns, "app")}
	}

	ns := newNamespace(t)
	g.Expect(env.Client.Create(ctx, &corev1.ServiceAccount{ObjectMeta: objectMeta(ns, "tenant-deployer")})).To(Succeed())
	cfg, err := applier.WorkloadIdentityConfig(ctx, env.Client, run(ns), configMapIn(ns))
	g.Expect(err).NotTo(HaveOccurred())
	cs, err := kubernetes.NewForConfig(cfg)
	g.Expect(err).NotTo(HaveOccurred())
	review, err := cs.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(review.Status.UserInfo.Username).To(Equal("system:serviceaccount:" + ns + ":tenant-deployer"))

	without := newNamespace(t)
	_, err = applier.WorkloadIdentityConfig(ctx, env.Client, run(without), configMapIn(without))
	g.Expect(err).To(MatchError(auth.ErrDefaultServiceAccountNotFound))
}
