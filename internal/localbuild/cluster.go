package localbuild

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
)

// ReadArguments reads a KCLRun's spec.argumentsReferences from the cluster as the applier
// does: later references override earlier ones, names sorted, Secret values sensitive
// (masked wherever they are shown).
func ReadArguments(ctx context.Context, c client.Reader, run *v1alpha1.KCLRun) ([]workerclient.Argument, error) {
	values := map[string]workerclient.Argument{}
	for _, ref := range run.Spec.ArgumentsReferences {
		key := types.NamespacedName{Namespace: run.Namespace, Name: ref.Name}
		var data map[string]string
		sensitive := false
		switch ref.Kind {
		case "ConfigMap":
			cm := &corev1.ConfigMap{}
			if err := c.Get(ctx, key, cm); err != nil {
				if apierrors.IsNotFound(err) && ref.Optional {
					continue
				}
				return nil, fmt.Errorf("reading the arguments of ConfigMap %s: %w", key, err)
			}
			data = cm.Data
		case "Secret":
			sec := &corev1.Secret{}
			if err := c.Get(ctx, key, sec); err != nil {
				if apierrors.IsNotFound(err) && ref.Optional {
					continue
				}
				return nil, fmt.Errorf("reading the arguments of Secret %s: %w", key, err)
			}
			data = make(map[string]string, len(sec.Data))
			for k, v := range sec.Data {
				data[k] = string(v)
			}
			sensitive = true
		default:
			return nil, fmt.Errorf("argument reference kind %q is not supported", ref.Kind)
		}
		for k, v := range data {
			values[k] = workerclient.Argument{Name: k, Value: v, Sensitive: sensitive}
		}
	}
	names := make([]string, 0, len(values))
	for k := range values {
		names = append(names, k)
	}
	sort.Strings(names)
	args := make([]workerclient.Argument, 0, len(names))
	for _, k := range names {
		args = append(args, values[k])
	}
	return args, nil
}

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
