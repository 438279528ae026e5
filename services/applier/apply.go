package applier

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/fluxcd/cli-utils/pkg/object"
	"github.com/fluxcd/pkg/ssa"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/applyrules"
	"github.com/kcl-lang/flux-kcl-controller/internal/inventory"
	"github.com/kcl-lang/flux-kcl-controller/internal/objectprep"
)

const healthPollInterval = 2 * time.Second

func (s *Service) manager(cl *cluster) *ssa.ResourceManager {
	return ssa.NewResourceManager(cl.client, cl.poller, applyrules.Owner)
}

// apply server-side applies the objects in stages (CRDs and Namespaces,
// then the rest), labelled with the KCLRun as owner. Objects new to the
// inventory skip the manager's GET and dry-run (see splitNew).
func (s *Service) apply(ctx context.Context, cl *cluster, obj *v1alpha1.KCLRun, objects []*unstructured.Unstructured) (*ssa.ChangeSet, error) {
	mgr := s.manager(cl)
	objectprep.Label(obj, objects)

	opts := s.applyOptions(obj)
	fresh, rest := splitNew(obj.Status.Inventory, objects)
	changes, err := mgr.ApplyAllStaged(ctx, rest, opts)
	if err != nil {
		return nil, fmt.Errorf("apply failed: %w", err)
	}
	// Last, as the manager's final stage: nothing else depends on them.
	created, adopt, err := applyNew(ctx, cl.client, fresh)
	changes.Append(created)
	if err != nil {
		// The changes so far go with the error: what was created must be inventoried.
		return changes, fmt.Errorf("apply failed: %w", err)
	}
	if len(adopt) == 0 {
		return changes, nil
	}
	adopted, err := mgr.ApplyAllStaged(ctx, adopt, opts)
	if err != nil {
		return changes, fmt.Errorf("apply failed: %w", err)
	}
	changes.Append(adopted.Entries)
	return changes, nil
}

// applyOptions are applyrules.Apply with this applier's --override-manager.
func (s *Service) applyOptions(obj *v1alpha1.KCLRun) ssa.ApplyOptions {
	return applyrules.Apply(obj, s.cfg.OverrideManagers)
}

// prune deletes what the previous inventory held and the new one does not,
// when spec.prune; objects labelled for another owner or opted out stay.
func (s *Service) prune(ctx context.Context, cl *cluster, obj *v1alpha1.KCLRun, current *v1alpha1.ResourceInventory) (*ssa.ChangeSet, error) {
	if !obj.Spec.Prune {
		return nil, nil
	}
	stale, err := inventory.Stale(obj.Status.Inventory, current)
	if err != nil || len(stale) == 0 {
		return nil, err
	}
	return s.delete(ctx, cl, obj, stale)
}

// pruneAll deletes every object of the inventory (KCLRun deletion).
func (s *Service) pruneAll(ctx context.Context, cl *cluster, obj *v1alpha1.KCLRun) (*ssa.ChangeSet, error) {
	objects, err := inventory.Objects(obj.Status.Inventory)
	if err != nil || len(objects) == 0 {
		return nil, err
	}
	return s.delete(ctx, cl, obj, objects)
}

func (s *Service) delete(ctx context.Context, cl *cluster, obj *v1alpha1.KCLRun, objects []*unstructured.Unstructured) (*ssa.ChangeSet, error) {
	mgr := s.manager(cl)
	changes, err := mgr.DeleteAll(ctx, objects, applyrules.Delete(obj))
	if err != nil {
		return nil, fmt.Errorf("prune failed: %w", err)
	}
	return changes, nil
}

// checkHealth waits, within spec.timeout, for every applied object (spec.wait)
// or the spec.healthChecks to be current (by spec.healthCheckExprs for the
// kinds they name); a new source revision cancels the wait. It reports
// whether anything was checked.
func (s *Service) checkHealth(ctx context.Context, cl *cluster, obj *v1alpha1.KCLRun, inv *v1alpha1.ResourceInventory, revision string) (bool, error) {
	var set object.ObjMetadataSet
	if obj.Spec.Wait {
		var err error
		if set, err = inventory.ObjMetadataSet(inv); err != nil {
			return false, err
		}
	} else {
		for _, hc := range obj.Spec.HealthChecks {
			ns := hc.Namespace
			if ns == "" {
				ns = obj.Namespace
			}
			m, err := objMetadata(ns, hc.Name, hc.APIVersion, hc.Kind)
			if err != nil {
				return false, err
			}
			set = append(set, m)
		}
	}
	if len(set) == 0 {
		return false, nil
	}
	mgr, err := s.healthManager(cl, obj)
	if err != nil {
		return true, err
	}
	wait, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go s.cancelOnNewRevision(wait, cancel, obj, revision)
	err = mgr.WaitForSetWithContext(wait, set, ssa.WaitOptions{
		Interval: healthPollInterval,
		Timeout:  obj.GetTimeout(),
		FailFast: true,
	})
	if err != nil {
		var canceled *healthCheckCanceledError
		if errors.As(context.Cause(wait), &canceled) {
			return true, canceled
		}
		return true, fmt.Errorf("health check failed after %s: %w", obj.GetTimeout(), err)
	}
	return true, nil
}

// changeSummary renders a change set as Flux does in events: one line per
// object, "Kind/namespace/name action", sorted.
func changeSummary(changes map[ssa.Action][]string) string {
	var lines []string
	for action, subjects := range changes {
		if action == ssa.UnchangedAction || action == ssa.SkippedAction {
			continue
		}
		for _, subject := range subjects {
			lines = append(lines, subject+" "+string(action))
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}
