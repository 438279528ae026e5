// Package applyrules decides how a KCLRun's objects are applied, pruned and diffed:
// Flux's per-object annotations, spec.force, spec.ignore and the field managers whose
// fields an apply takes over. The applier and the CLI's diff (and so the web view) read
// this one copy, so that a diff shows exactly what an apply would do.
package applyrules

import (
	"github.com/fluxcd/pkg/ssa"
	"github.com/fluxcd/pkg/ssa/jsondiff"
	ssautils "github.com/fluxcd/pkg/ssa/utils"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// FieldManager is the field owner of every server-side apply, and the events'
// reporting controller.
const FieldManager = "flux-kcl-controller"

// Object annotations honoured as kustomize-controller honours them, so that manifests
// written for Flux behave the same here; the same keys under our own group work too.
// Each selector matches when any of its pairs is in the object's labels or annotations.
var (
	// ApplyExcluded objects are skipped by apply, diff and prune: neither written nor deleted.
	ApplyExcluded = annotations(map[string]string{"reconcile": "disabled", "ssa": "Ignore"})
	// IfNotPresent objects are created when absent, never patched afterwards.
	IfNotPresent = annotations(map[string]string{"ssa": "IfNotPresent"})
	// CleanupExcluded objects are applied without taking over the fields of other managers.
	CleanupExcluded = annotations(map[string]string{"ssa": "Merge"})
	// ForceEnabled objects are recreated when a patch hits an immutable field.
	ForceEnabled = annotations(map[string]string{"force": "enabled"})
	// PruneExcluded objects are never pruned: opted out of pruning or of reconciliation.
	PruneExcluded = annotations(map[string]string{"prune": "disabled", "reconcile": "disabled", "ssa": "Ignore"})
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

// Owner is the SSA owner of every KCLRun's objects.
var Owner = ssa.Owner{Field: FieldManager, Group: v1alpha1.GroupVersion.Group}

// Apply is kustomize-controller's apply: the object annotations above, spec.force,
// spec.timeout, spec.ignore's paths left out of drift detection and apply, and the
// cleanup that takes over the fields of kubectl and of overrideManagers (the applier's
// --override-manager).
func Apply(run *v1alpha1.KCLRun, overrideManagers []string) ssa.ApplyOptions {
	opts := ssa.DefaultApplyOptions()
	opts.Force = run.Spec.Force
	opts.ForceSelector = ForceEnabled
	opts.ExclusionSelector = ApplyExcluded
	opts.IfNotPresentSelector = IfNotPresent
	opts.WaitTimeout = run.GetTimeout()
	opts.DriftIgnoreRules = ignoreRules(run)
	managers := []ssa.FieldManager{
		// undo 'kubectl apply --server-side --force-conflicts'
		{Name: "kubectl", OperationType: metav1.ManagedFieldsOperationApply},
		// undo 'kubectl apply'
		{Name: "kubectl", OperationType: metav1.ManagedFieldsOperationUpdate},
		{Name: "before-first-apply", OperationType: metav1.ManagedFieldsOperationUpdate},
		// undo our own writes that were not applies
		{Name: FieldManager, OperationType: metav1.ManagedFieldsOperationUpdate},
	}
	for _, name := range overrideManagers {
		managers = append(managers,
			ssa.FieldManager{Name: name, OperationType: metav1.ManagedFieldsOperationApply},
			ssa.FieldManager{Name: name, OperationType: metav1.ManagedFieldsOperationUpdate})
	}
	opts.Cleanup = ssa.ApplyCleanupOptions{
		Annotations:   []string{corev1.LastAppliedConfigAnnotation},
		FieldManagers: managers,
		Exclusions:    CleanupExcluded,
	}
	return opts
}

// Diff is the dry-run that answers what Apply would change.
func Diff(run *v1alpha1.KCLRun) ssa.DiffOptions {
	return ssa.DiffOptions{
		Exclusions:           ApplyExcluded,
		IfNotPresentSelector: IfNotPresent,
		Force:                run.Spec.Force,
		ForceSelector:        ForceEnabled,
		DriftIgnoreRules:     ignoreRules(run),
	}
}

// Delete is the prune: only objects labelled as the KCLRun's, and none opted out.
func Delete(run *v1alpha1.KCLRun) ssa.DeleteOptions {
	return ssa.DeleteOptions{
		PropagationPolicy: metav1.DeletePropagationBackground,
		Inclusions:        OwnerLabels(run),
		Exclusions:        PruneExcluded,
	}
}

// OwnerLabels are the labels that mark an object as the KCLRun's.
func OwnerLabels(run *v1alpha1.KCLRun) map[string]string {
	return ssa.NewResourceManager(nil, nil, Owner).GetOwnerLabels(run.Name, run.Namespace)
}

// Prunable tells whether a prune would delete the live object, as ssa's DeleteAll with
// Delete(run) decides.
func Prunable(run *v1alpha1.KCLRun, live *unstructured.Unstructured) bool {
	labels := live.GetLabels()
	for k, v := range OwnerLabels(run) {
		if labels[k] != v {
			return false
		}
	}
	return !ssautils.AnyInMetadata(live, PruneExcluded)
}

// ignoreRules are spec.ignore as the SSA manager takes them.
func ignoreRules(run *v1alpha1.KCLRun) []jsondiff.IgnoreRule {
	var rules []jsondiff.IgnoreRule
	for _, rule := range run.Spec.Ignore {
		ignore := jsondiff.IgnoreRule{Paths: rule.Paths}
		if t := rule.Target; t != nil {
			ignore.Selector = &jsondiff.Selector{
				Group: t.Group, Version: t.Version, Kind: t.Kind, Name: t.Name, Namespace: t.Namespace,
				AnnotationSelector: t.AnnotationSelector, LabelSelector: t.LabelSelector,
			}
		}
		rules = append(rules, ignore)
	}
	return rules
}
