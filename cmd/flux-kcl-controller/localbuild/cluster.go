package localbuild

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// ReadRegistryCredentials reads spec.config.registrySecretRef's Docker config JSON; nil
// without one.
func ReadRegistryCredentials(ctx context.Context, c client.Reader, run *v1alpha1.KCLRun) ([]byte, error) {
	cfg := run.Spec.Config
	if cfg == nil || cfg.RegistrySecretRef == nil || cfg.RegistrySecretRef.Name == "" {
		return nil, nil
	}
	key := types.NamespacedName{Namespace: run.Namespace, Name: cfg.RegistrySecretRef.Name}
	secret := &corev1.Secret{}
	if err := c.Get(ctx, key, secret); err != nil {
		return nil, fmt.Errorf("reading registry secret %s: %w", key, err)
	}
	data := secret.Data[corev1.DockerConfigJsonKey]
	if len(data) == 0 {
		return nil, fmt.Errorf("registry secret %s has no %s", key, corev1.DockerConfigJsonKey)
	}
	return data, nil
}
