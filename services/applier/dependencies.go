package applier

import (
	"context"
	"fmt"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/runtime/conditions"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// dependenciesReady returns a dependencyNotReadyError unless every KCLRun in spec.dependsOn is Ready
// for its current generation, as kustomize-controller checks Kustomizations:
// one of the same source must have applied the artifact's revision (a
// mono-repo rolls out in order), and a readyExpr must hold besides
// (AdditiveCELDependencyCheck).
func (s *Service) dependenciesReady(ctx context.Context, obj *v1alpha1.KCLRun, artifact *meta.Artifact) error {
	var self map[string]any
	for _, dep := range obj.Spec.DependsOn {
		ns := dep.Namespace
		if ns == "" {
			ns = obj.Namespace
		}
		name := types.NamespacedName{Namespace: ns, Name: dep.Name}
		if s.cfg.NoCrossNamespaceRefs && ns != obj.Namespace {
			return &dependencyNotReadyError{fmt.Sprintf("dependency '%s' is in another namespace and cross-namespace references are blocked", name)}
		}
		other := &v1alpha1.KCLRun{}
		if err := s.client.Get(ctx, name, other); err != nil {
			if apierrors.IsNotFound(err) {
				return &dependencyNotReadyError{fmt.Sprintf("dependency '%s' not found", name)}
			}
			return fmt.Errorf("reading dependency %s: %w", name, err)
		}
		if dep.ReadyExpr != "" {
			if self == nil {
				var err error
				if self, err = runtime.DefaultUnstructuredConverter.ToUnstructured(obj); err != nil {
					return fmt.Errorf("converting KCLRun for readyExpr: %w", err)
				}
			}
			ready, err := evalReadyExpr(ctx, dep.ReadyExpr, self, other)
			if err != nil {
				return err
			}
			if !ready {
				return &dependencyNotReadyError{fmt.Sprintf("dependency '%s' is not ready according to readyExpr eval", name)}
			}
		}
		if other.Generation != other.Status.ObservedGeneration || !conditions.IsReady(other) {
			return &dependencyNotReadyError{fmt.Sprintf("dependency '%s' is not ready", name)}
		}
		if sameSource(obj, other) && !artifact.HasRevision(other.Status.LastAppliedRevision) {
			return &dependencyNotReadyError{fmt.Sprintf("dependency '%s' revision is not up to date", name)}
		}
	}
	return nil
}

func sameSource(a, b *v1alpha1.KCLRun) bool {
	return a.Spec.SourceRef.Kind == b.Spec.SourceRef.Kind && a.Spec.SourceRef.Name == b.Spec.SourceRef.Name &&
		a.SourceNamespace() == b.SourceNamespace()
}

func evalReadyExpr(ctx context.Context, expr string, self map[string]any, dep *v1alpha1.KCLRun) (bool, error) {
	e, err := readyExpression(expr)
	if err != nil {
		return false, &invalidExpressionError{fmt.Errorf("invalid readyExpr of dependency '%s': %w", dep.Name, err)}
	}
	depMap, err := runtime.DefaultUnstructuredConverter.ToUnstructured(dep)
	if err != nil {
		return false, fmt.Errorf("converting dependency %s for readyExpr: %w", dep.Name, err)
	}
	return e.EvaluateBoolean(ctx, map[string]any{"self": self, "dep": depMap})
}
