package applier

import (
	"context"
	"fmt"
	"time"

	"github.com/fluxcd/cli-utils/pkg/kstatus/polling"
	"github.com/fluxcd/cli-utils/pkg/kstatus/polling/engine"
	"github.com/fluxcd/pkg/runtime/cel"
	"github.com/fluxcd/pkg/ssa"
	celtypes "github.com/google/cel-go/common/types"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// invalidExpressionError is a healthCheckExprs or readyExpr that does not
// compile: only a change of the KCLRun fixes it.
type invalidExpressionError struct{ err error }

func (e *invalidExpressionError) Error() string { return e.err.Error() }
func (e *invalidExpressionError) Unwrap() error { return e.err }

// validateExpressions compiles the KCLRun's CEL expressions before anything
// is applied, as kustomize-controller does.
func validateExpressions(obj *v1alpha1.KCLRun) error {
	if _, err := cel.NewStatusReader(obj.Spec.HealthCheckExprs); err != nil {
		return &invalidExpressionError{fmt.Errorf("invalid healthCheckExprs: %w", err)}
	}
	for _, dep := range obj.Spec.DependsOn {
		if dep.ReadyExpr == "" {
			continue
		}
		if _, err := readyExpression(dep.ReadyExpr); err != nil {
			return &invalidExpressionError{fmt.Errorf("invalid readyExpr of dependency '%s': %w", dep.Name, err)}
		}
	}
	return nil
}

// readyExpression compiles a dependsOn readyExpr: a boolean over the
// dependency (dep) and the dependent (self).
func readyExpression(expr string) (*cel.Expression, error) {
	return cel.NewExpression(expr, cel.WithCompile(), cel.WithOutputType(celtypes.BoolType), cel.WithStructVariables("self", "dep"))
}

// healthManager is the resource manager health checks poll with: with
// healthCheckExprs its poller reads the kinds they name through fluxcd/pkg's
// CEL status reader, the rest through kstatus.
func (s *Service) healthManager(cl *cluster, obj *v1alpha1.KCLRun) (*ssa.ResourceManager, error) {
	if len(obj.Spec.HealthCheckExprs) == 0 {
		return s.manager(cl), nil
	}
	reader, err := cel.NewStatusReader(obj.Spec.HealthCheckExprs)
	if err != nil {
		return nil, &invalidExpressionError{err}
	}
	poller := polling.NewStatusPoller(cl.client, cl.mapper, polling.Options{
		CustomStatusReaders: []engine.StatusReader{reader(cl.mapper)},
	})
	return ssa.NewResourceManager(cl.client, poller, ssa.Owner{Field: FieldManager, Group: v1alpha1.GroupVersion.Group}), nil
}

// healthCheckCanceledError ends a health check because the source has a
// newer revision than the one being checked: waiting for the old one to
// become healthy would only delay the new one.
type healthCheckCanceledError struct {
	source   string
	revision string
}

func (e *healthCheckCanceledError) Error() string {
	return fmt.Sprintf("Health checks canceled due to new reconciliation triggered by %s (revision %s)", e.source, e.revision)
}

// newRevisionPollInterval is how often a running health check looks for a new source revision.
const newRevisionPollInterval = time.Second

// cancelOnNewRevision cancels ctx with a healthCheckCanceledError once the
// KCLRun's source has a revision other than revision; it returns when ctx ends.
func (s *Service) cancelOnNewRevision(ctx context.Context, cancel context.CancelCauseFunc, obj *v1alpha1.KCLRun, revision string) {
	tick := time.NewTicker(newRevisionPollInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		a, err := s.sourceArtifact(ctx, obj)
		if err != nil || a.Revision == revision {
			continue
		}
		ref := obj.Spec.SourceRef
		cancel(&healthCheckCanceledError{source: fmt.Sprintf("%s/%s/%s", ref.Kind, obj.SourceNamespace(), ref.Name), revision: a.Revision})
		return
	}
}
