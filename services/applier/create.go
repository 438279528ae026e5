package applier

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/fluxcd/cli-utils/pkg/object"
	"github.com/fluxcd/pkg/ssa"
	ssautils "github.com/fluxcd/pkg/ssa/utils"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// absentLookups bounds the concurrent GETs of splitAbsent, as the SSA
// manager bounds its own.
const absentLookups = 4

// splitAbsent picks out the objects a plain apply can create: not in the
// previous inventory, not opted out of reconciliation, not a definition that
// has to go in an earlier stage, and not in the cluster. For them the SSA
// manager's dry-run has nothing to diff against (every field is new), so
// applying them directly saves an apiserver round trip per object. The rest
// go through the manager's drift detection as before.
func splitAbsent(ctx context.Context, c client.Client, previous *v1alpha1.ResourceInventory, objects []*unstructured.Unstructured) (absent, rest []*unstructured.Unstructured) {
	known := map[string]bool{}
	if previous != nil {
		for _, e := range previous.Entries {
			known[e.ID] = true
		}
	}
	var candidates []*unstructured.Unstructured
	for _, o := range objects {
		switch {
		case known[object.UnstructuredToObjMetadata(o).String()],
			ssautils.IsClusterDefinition(o), ssautils.IsClassDefinition(o),
			ssautils.AnyInMetadata(o, reconcileDisabled):
			rest = append(rest, o)
		default:
			candidates = append(candidates, o)
		}
	}
	missing := make([]bool, len(candidates))
	var wg sync.WaitGroup
	slots := make(chan struct{}, absentLookups)
	for i, o := range candidates {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			existing := &unstructured.Unstructured{}
			existing.SetGroupVersionKind(o.GroupVersionKind())
			missing[i] = apierrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(o), existing))
		}()
	}
	wg.Wait()
	for i, o := range candidates {
		if missing[i] {
			absent = append(absent, o)
		} else {
			rest = append(rest, o)
		}
	}
	return absent, rest
}

// createAbsent server-side applies objects splitAbsent found missing, in the
// manager's order, with the manager's field owner. It returns the entries of
// the objects applied so far even on failure, so that they are inventoried.
func createAbsent(ctx context.Context, c client.Client, objects []*unstructured.Unstructured) ([]ssa.ChangeSetEntry, error) {
	sort.Sort(ssa.SortableUnstructureds(objects))
	entries := make([]ssa.ChangeSetEntry, 0, len(objects))
	for _, o := range objects {
		applied := o.DeepCopy()
		if err := c.Patch(ctx, applied, client.Apply, client.ForceOwnership, client.FieldOwner(FieldManager)); err != nil {
			return entries, fmt.Errorf("%s apply failed: %w", ssautils.FmtUnstructured(o), err)
		}
		entries = append(entries, ssa.ChangeSetEntry{
			ObjMetadata:  object.UnstructuredToObjMetadata(o),
			GroupVersion: o.GroupVersionKind().Version,
			Subject:      ssautils.FmtUnstructured(o),
			Action:       ssa.CreatedAction,
		})
	}
	return entries, nil
}
