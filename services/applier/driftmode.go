package applier

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/fluxcd/cli-utils/pkg/object"
	"github.com/fluxcd/pkg/ssa"
	"github.com/fluxcd/pkg/ssa/jsondiff"
	ssautils "github.com/fluxcd/pkg/ssa/utils"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/applyrules"
	"github.com/kcl-lang/flux-kcl-controller/internal/inventory"
	"github.com/kcl-lang/flux-kcl-controller/internal/objectprep"
)

// spec.driftDetection.mode, as a HelmRelease's: enabled corrects drift at once
// (the drift watcher's request reapplies), warn only reports it, disabled does
// not look for it. A change of the inputs (revision, spec, arguments, images) is
// applied in every mode; warn and disabled only decide what happens to the same
// inputs applied again.

// driftModeError: spec.driftDetection.mode is none of the three modes (the
// CRD's enum refuses it; an older CRD may not).
type driftModeError struct{ mode string }

func (e *driftModeError) Error() string {
	return fmt.Sprintf("spec.driftDetection.mode %q is not one of enabled, warn, disabled", e.mode)
}

func validateDriftMode(obj *v1alpha1.KCLRun) error {
	switch mode := obj.GetDriftDetectionMode(); mode {
	case v1alpha1.DriftDetectionEnabled, v1alpha1.DriftDetectionWarn, v1alpha1.DriftDetectionDisabled:
		return nil
	default:
		return &driftModeError{mode: mode}
	}
}

// watchesDrift tells whether the drift watcher's requests are for this KCLRun.
func watchesDrift(obj *v1alpha1.KCLRun) bool {
	return obj.GetDriftDetectionMode() != v1alpha1.DriftDetectionDisabled
}

// findDrift server-side dry-runs the objects with the apply's own rules
// (applyrules.Diff: spec.ignore, ssa: Ignore, IfNotPresent) and lists those an
// apply would change, with the JSON pointers that differ. Values stay out:
// status and events never carry a Secret's data.
func (s *Service) findDrift(ctx context.Context, cl *cluster, obj *v1alpha1.KCLRun, objects []*unstructured.Unstructured) ([]v1alpha1.DriftedObject, error) {
	mgr := s.manager(cl)
	opts := applyrules.Diff(obj)
	objectprep.Label(obj, objects)
	var drifted []v1alpha1.DriftedObject
	for _, o := range objects {
		entry, live, merged, err := mgr.Diff(ctx, o, opts)
		if err != nil {
			return nil, fmt.Errorf("dry-run of %s: %w", ssautils.FmtUnstructured(o), err)
		}
		d := v1alpha1.DriftedObject{ID: object.UnstructuredToObjMetadata(o).String(), Version: o.GroupVersionKind().Version}
		switch entry.Action {
		case ssa.CreatedAction:
			d.Deleted = true
		case ssa.ConfiguredAction:
			if d.Paths, err = driftedPaths(live, merged); err != nil {
				return nil, fmt.Errorf("comparing %s: %w", ssautils.FmtUnstructured(o), err)
			}
		default:
			continue
		}
		drifted = append(drifted, d)
	}
	sort.Slice(drifted, func(i, j int) bool { return drifted[i].ID < drifted[j].ID })
	return drifted, nil
}

// driftedPaths are the pointers where the live object and the dry-run of the apply differ:
// the labels and annotations an apply would set, and everything outside metadata and status.
func driftedPaths(live, merged *unstructured.Unstructured) ([]string, error) {
	var paths []string
	for _, field := range []string{"labels", "annotations"} {
		a, _, _ := unstructured.NestedStringMap(live.Object, "metadata", field)
		b, _, _ := unstructured.NestedStringMap(merged.Object, "metadata", field)
		for key, value := range b {
			if have, ok := a[key]; !ok || have != value {
				paths = append(paths, "/metadata/"+field+"/"+escapePointer(key))
			}
		}
	}
	patch, err := jsondiff.DiffUnstructured(live, merged)
	if err != nil {
		return nil, err
	}
	for _, op := range patch {
		paths = append(paths, op.Path)
	}
	sort.Strings(paths)
	return slices.Compact(paths), nil
}

// escapePointer escapes one reference token of a JSON pointer (RFC 6901).
func escapePointer(token string) string {
	return strings.ReplaceAll(strings.ReplaceAll(token, "~", "~0"), "/", "~1")
}

// recordDrift sets status.drift and, when it changed, sends one event: a warning that
// lists what drifted, or a normal event when nothing is drifted any more. A check
// finding the same drift again sends nothing.
func (s *Service) recordDrift(obj *v1alpha1.KCLRun, revision string, drifted []v1alpha1.DriftedObject) {
	previous := obj.Status.Drift
	obj.Status.Drift = drifted
	s.metrics.drift(obj, len(drifted))
	if equality.Semantic.DeepEqual(previous, drifted) || (len(previous) == 0 && len(drifted) == 0) {
		return
	}
	if len(drifted) == 0 {
		s.events.record(obj, revision, true, v1alpha1.DriftResolvedReason, "No drift: the objects are as last applied")
		return
	}
	s.events.record(obj, revision, false, v1alpha1.DriftDetectedReason, driftSummary(drifted))
}

// driftSummary is one line per drifted object, "Kind/namespace/name: paths".
func driftSummary(drifted []v1alpha1.DriftedObject) string {
	lines := []string{fmt.Sprintf("Drift detected in %d objects, not corrected (spec.driftDetection.mode: warn):", len(drifted))}
	for _, d := range drifted {
		what := strings.Join(d.Paths, ", ")
		if d.Deleted {
			what = "deleted"
		}
		lines = append(lines, inventory.Subject(d.ID)+": "+what)
	}
	return strings.Join(lines, "\n")
}
