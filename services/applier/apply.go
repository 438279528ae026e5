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
	"github.com/fluxcd/pkg/ssa/jsondiff"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/inventory"
	"github.com/kcl-lang/flux-kcl-controller/internal/objectprep"
)

// Object annotations honoured as kustomize-controller honours them, so that
// manifests written for Flux behave the same here; the same keys under our
// own group work too. Each selector matches when any of its pairs is in the
// object's labels or annotations.
var (
	// Skipped by apply and prune: neither written nor deleted.
	applyExcluded = annotations(map[string]string{"reconcile": "disabled", "ssa": "Ignore"})
	// Created when absent, never patched afterwards.
	ifNotPresent = annotations(map[string]string{"ssa": "IfNotPresent"})
	// Applied without taking over the fields of other managers.
	cleanupExcluded = annotations(map[string]string{"ssa": "Merge"})
	// Recreated when a patch hits an immutable field.
	forceEnabled = annotations(map[string]string{"force": "enabled"})
	// Never pruned: opted out of pruning or of reconciliation.
	pruneExcluded = annotations(map[string]string{"prune": "disabled", "reconcile": "disabled", "ssa": "Ignore"})
)

// annotations spells each "name: value" under Flux's group and ours.
func annotations(pairs map[string]string) map[string]string {
	out := make(map[string]string, 2*len(pairs))
	for name, value := range pairs {
		out["kustomize.toolkit.fluxcd.io/"+name] = value
		out[v1alpha1.GroupVersion.Group+"/"+name] = value
	}
	return out
}

const healthPollInterval = 2 * time.Second

func (s *Service) manager(cl *cluster) *ssa.ResourceManager {
	return ssa.NewResourceManager(cl.client, cl.poller, ssa.Owner{Field: FieldManager, Group: v1alpha1.GroupVersion.Group})
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

// applyOptions are kustomize-controller's: the object annotations above,
// spec.ignore's paths left out of drift detection and apply, and the cleanup
// that takes over the fields of kubectl and of the managers named by
// --override-manager.
func (s *Service) applyOptions(obj *v1alpha1.KCLRun) ssa.ApplyOptions {
	opts := ssa.DefaultApplyOptions()
	opts.Force = obj.Spec.Force
	opts.ForceSelector = forceEnabled
	opts.ExclusionSelector = applyExcluded
	opts.IfNotPresentSelector = ifNotPresent
	opts.WaitTimeout = obj.GetTimeout()
	managers := []ssa.FieldManager{
		// undo 'kubectl apply --server-side --force-conflicts'
		{Name: "kubectl", OperationType: metav1.ManagedFieldsOperationApply},
		// undo 'kubectl apply'
		{Name: "kubectl", OperationType: metav1.ManagedFieldsOperationUpdate},
		{Name: "before-first-apply", OperationType: metav1.ManagedFieldsOperationUpdate},
		// undo our own writes that were not applies
		{Name: FieldManager, OperationType: metav1.ManagedFieldsOperationUpdate},
	}
	for _, name := range s.cfg.OverrideManagers {
		managers = append(managers,
			ssa.FieldManager{Name: name, OperationType: metav1.ManagedFieldsOperationApply},
			ssa.FieldManager{Name: name, OperationType: metav1.ManagedFieldsOperationUpdate})
	}
	for _, rule := range obj.Spec.Ignore {
		ignore := jsondiff.IgnoreRule{Paths: rule.Paths}
		if t := rule.Target; t != nil {
			ignore.Selector = &jsondiff.Selector{
				Group: t.Group, Version: t.Version, Kind: t.Kind, Name: t.Name, Namespace: t.Namespace,
				AnnotationSelector: t.AnnotationSelector, LabelSelector: t.LabelSelector,
			}
		}
		opts.DriftIgnoreRules = append(opts.DriftIgnoreRules, ignore)
	}
	opts.Cleanup = ssa.ApplyCleanupOptions{
		Annotations:   []string{corev1.LastAppliedConfigAnnotation},
		FieldManagers: managers,
		Exclusions:    cleanupExcluded,
	}
	return opts
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
	changes, err := mgr.DeleteAll(ctx, objects, ssa.DeleteOptions{
		PropagationPolicy: metav1.DeletePropagationBackground,
		Inclusions:        mgr.GetOwnerLabels(obj.Name, obj.Namespace),
		Exclusions:        pruneExcluded,
	})
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
