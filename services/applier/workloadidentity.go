package applier

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/auth"
	"github.com/fluxcd/pkg/auth/generic"
	"github.com/fluxcd/pkg/cache"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// FeatureGateObjectLevelWorkloadIdentity lets a kubeConfig.configMapRef name
// the ServiceAccount whose token reaches the remote cluster, as Flux's gate
// of the same name (--feature-gates=ObjectLevelWorkloadIdentity=true).
const FeatureGateObjectLevelWorkloadIdentity = auth.FeatureGateObjectLevelWorkloadIdentity

// workloadIdentityConfig is the client config of spec.kubeConfig.configMapRef,
// read as Flux's kustomize-controller reads it (fluxcd/pkg/auth): the
// ConfigMap gives the provider, the cluster address and CA, and optionally
// the ServiceAccount (in the KCLRun's namespace) and the token audiences.
// Only provider "generic" is built in: a Kubernetes ServiceAccount token,
// issued here through the TokenRequest API, that the remote apiserver trusts
// (its --service-account-issuer/--service-account-key-file, or structured
// authentication). The cloud providers' token exchanges (aws, azure, gcp) are
// refused by name. Tokens are cached until shortly before they expire.
func workloadIdentityConfig(ctx context.Context, reader client.Client, tokens *cache.TokenCache, obj *v1alpha1.KCLRun, cm *corev1.ConfigMap) (*rest.Config, error) {
	key := client.ObjectKeyFromObject(cm)
	if p := cm.Data[meta.KubeConfigKeyProvider]; p != generic.ProviderName {
		return nil, fmt.Errorf("kubeconfig ConfigMap '%s': provider %q is not supported, only %q (a ServiceAccount token the remote cluster trusts)",
			key, p, generic.ProviderName)
	}
	opts := []auth.Option{auth.WithClient(reader), auth.WithServiceAccountNamespace(obj.Namespace)}
	if a, ok := cm.Data[meta.KubeConfigKeyAddress]; ok {
		opts = append(opts, auth.WithClusterAddress(a))
	}
	if ca, ok := cm.Data[meta.KubeConfigKeyCACert]; ok {
		opts = append(opts, auth.WithCAData(ca))
	}
	if sa, ok := cm.Data[meta.KubeConfigKeyServiceAccountName]; ok {
		opts = append(opts, auth.WithServiceAccountName(sa))
	}
	if a, ok := cm.Data[meta.KubeConfigKeyAudiences]; ok {
		var audiences []string
		for _, aud := range strings.Split(a, "\n") {
			if aud = strings.TrimSpace(aud); aud != "" {
				audiences = append(audiences, aud)
			}
		}
		opts = append(opts, auth.WithAudiences(audiences...))
	}
	if tokens != nil {
		opts = append(opts, auth.WithCache(*tokens, cache.InvolvedObject{
			Kind: v1alpha1.KCLRunKind, Name: obj.Name, Namespace: obj.Namespace, Operation: "fetch_kubeconfig",
		}))
	}
	provider := generic.Provider{}
	conf, err := auth.GetRESTConfig(ctx, provider, opts...)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig ConfigMap '%s': %w", key, err)
	}
	cfg := &rest.Config{Host: conf.Host, TLSClientConfig: rest.TLSClientConfig{CAData: conf.CAData}}
	// Every request asks for the token again (from the cache): a long health
	// check or watch outlives a token.
	cfg.Wrap(func(base http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			c, err := auth.GetRESTConfig(req.Context(), provider, opts...)
			if err != nil {
				return nil, err
			}
			req = req.Clone(req.Context())
			req.Header.Set("Authorization", "Bearer "+c.BearerToken)
			return base.RoundTrip(req)
		})
	})
	return cfg, nil
}

// lockDownKubeConfigIdentity sets Flux's multi-tenancy lockdown of workload
// identity (kustomize-controller's --default-kubeconfig-service-account):
// without it a kubeConfig.configMapRef that names no serviceAccountName is
// served with the controller's own token, so a tenant pointing the ConfigMap
// at the controller's own cluster gets the controller's privileges there.
// With it, such a ConfigMap uses that ServiceAccount of the KCLRun's
// namespace, and fails when the namespace has none. As in Flux it needs the
// ObjectLevelWorkloadIdentity gate. Process-wide, as fluxcd/pkg/auth keeps it.
func lockDownKubeConfigIdentity(sa string) error {
	auth.SetDefaultKubeConfigServiceAccount(sa)
	if auth.InconsistentObjectLevelConfiguration() {
		return fmt.Errorf("--default-kubeconfig-service-account: %w", auth.ErrInconsistentObjectLevelConfiguration)
	}
	return nil
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
