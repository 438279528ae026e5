package applier

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
)

// compileConfig is spec.config as the compiler's kcl run flags.
func compileConfig(c *v1alpha1.ConfigSpec) workerclient.CompileConfig {
	if c == nil {
		return workerclient.CompileConfig{}
	}
	return workerclient.CompileConfig{
		Arguments: c.Arguments, Settings: c.Settings, Overrides: c.Overrides, PathSelectors: c.PathSelectors,
		Vendor: c.Vendor, SortKeys: c.SortKeys, ShowHidden: c.ShowHidden, DisableNone: c.DisableNone,
	}
}

// registryCredentials reads the Docker config JSON of spec.config.registrySecretRef
// (nil without one). The Secret's contents go to the compiler for this KCLRun's
// packages only; errors name the Secret, never its data. A missing or
// malformed Secret is retried with backoff, as an unavailable artifact is: it
// may be created after the KCLRun.
func (s *Service) registryCredentials(ctx context.Context, obj *v1alpha1.KCLRun) ([]byte, error) {
	c := obj.Spec.Config
	if c == nil || c.RegistrySecretRef == nil || c.RegistrySecretRef.Name == "" {
		return nil, nil
	}
	name := types.NamespacedName{Namespace: obj.Namespace, Name: c.RegistrySecretRef.Name}
	secret := &corev1.Secret{}
	if err := s.client.Get(ctx, name, secret); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, &artifactError{msg: fmt.Sprintf("registry secret '%s' not found", name)}
		}
		return nil, fmt.Errorf("reading registry secret %s: %w", name, err)
	}
	data, ok := secret.Data[corev1.DockerConfigJsonKey]
	if !ok || len(data) == 0 {
		return nil, &artifactError{msg: fmt.Sprintf("registry secret '%s' has no %s (want type %s)",
			name, corev1.DockerConfigJsonKey, corev1.SecretTypeDockerConfigJson)}
	}
	return data, nil
}

// packagesStatus is the compiler's package list as status.packages.
func packagesStatus(pkgs []workerclient.Package) []v1alpha1.ResolvedPackage {
	if len(pkgs) == 0 {
		return nil
	}
	out := make([]v1alpha1.ResolvedPackage, 0, len(pkgs))
	for _, p := range pkgs {
		out = append(out, v1alpha1.ResolvedPackage{Name: p.Name, Version: p.Version, Source: p.Source, Digest: p.Digest, Sum: p.Sum, Locked: p.Locked})
	}
	return out
}
