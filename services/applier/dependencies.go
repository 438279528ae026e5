package applier

import (
	"context"
	"fmt"

	"github.com/fluxcd/pkg/runtime/conditions"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// dependenciesReady reports whether every KCLRun in spec.dependsOn is Ready
// for its current generation, as kustomize-controller checks Kustomizations.
func (s *Service) dependenciesReady(ctx context.Context, obj *v1alpha1.KCLRun) (bool, string, error) {
	for _, dep := range obj.Spec.DependsOn {
		ns := dep.Namespace
		if ns == "" {
			ns = obj.Namespace
		}
		name := types.NamespacedName{Namespace: ns, Name: dep.Name}
		if s.cfg.NoCrossNamespaceRefs && ns != obj.Namespace {
			return false, fmt.Sprintf("dependency '%s' is in another namespace and cross-namespace references are blocked", name), nil
		}
		other := &v1alpha1.KCLRun{}
		if err := s.client.Get(ctx, name, other); err != nil {
			if apierrors.IsNotFound(err) {
				return false, fmt.Sprintf("dependency '%s' not found", name), nil
			}
			return false, "", fmt.Errorf("reading dependency %s: %w", name, err)
		}
		if other.Generation != other.Status.ObservedGeneration || !conditions.IsReady(other) {
			return false, fmt.Sprintf("dependency '%s' is not ready", name), nil
		}
	}
	return true, "", nil
}
