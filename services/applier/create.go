package applier

import (
	"context"
	"fmt"
	"net/http"
	"sort"

	"github.com/fluxcd/cli-utils/pkg/object"
	"github.com/fluxcd/pkg/ssa"
	ssautils "github.com/fluxcd/pkg/ssa/utils"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/applyrules"
)

// splitNew picks out the objects a plain apply can take: not in the previous
// inventory, not skipped (reconcile: disabled, ssa: Ignore), not applied only
// when absent, and not a definition that has to go in an earlier stage. Such an object
// almost always does not exist yet (a first sync, a new file), so the SSA
// manager's GET and dry-run have nothing to diff against; applying directly
// saves two apiserver round trips per object. The rest go through the
// manager's drift detection.
func splitNew(previous *v1alpha1.ResourceInventory, objects []*unstructured.Unstructured) (fresh, rest []*unstructured.Unstructured) {
	known := map[string]bool{}
	if previous != nil {
		for _, e := range previous.Entries {
			known[e.ID] = true
		}
	}
	for _, o := range objects {
		switch {
		case known[object.UnstructuredToObjMetadata(o).String()],
			ssautils.IsClusterDefinition(o), ssautils.IsClassDefinition(o),
			ssautils.AnyInMetadata(o, applyrules.ApplyExcluded), ssautils.AnyInMetadata(o, applyrules.IfNotPresent):
			rest = append(rest, o)
		default:
			fresh = append(fresh, o)
		}
	}
	return fresh, rest
}

// createOnly is the resourceVersion precondition of applyNew: etcd counts
// revisions from 1 and its first write is revision 2, so no object is ever
// stored at version 1.
const createOnly = "1"

// applyNew server-side applies the objects splitNew picked, in the manager's
// order, with the manager's field owner, as creations only: each carries
// the resourceVersion precondition createOnly, which no stored object has,
// so the apiserver refuses (409) to patch an object that exists, while an
// apply that creates ignores it. An existing object is thus never written
// here, whatever its live annotations say (reconcile: disabled, ssa: Ignore
// or Merge): it is returned in adopt, as are the objects the apiserver
// refused for another reason, and the caller runs them through the manager,
// which reads the live object first, as kustomize-controller does. The
// entries of the objects created so far come back even on failure, so that
// they are inventoried.
func applyNew(ctx context.Context, c client.Client, objects []*unstructured.Unstructured) (created []ssa.ChangeSetEntry, adopt []*unstructured.Unstructured, err error) {
	sort.Sort(ssa.SortableUnstructureds(objects))
	created = make([]ssa.ChangeSetEntry, 0, len(objects))
	for _, o := range objects {
		applied := o.DeepCopy()
		applied.SetResourceVersion(createOnly)
		code := 0
		err := c.Patch(withStatusCode(ctx, &code), applied, client.Apply, client.ForceOwnership, client.FieldOwner(FieldManager))
		switch {
		case err == nil && code == http.StatusCreated:
			created = append(created, ssa.ChangeSetEntry{
				ObjMetadata:  object.UnstructuredToObjMetadata(o),
				GroupVersion: o.GroupVersionKind().Version,
				Subject:      ssautils.FmtUnstructured(o),
				Action:       ssa.CreatedAction,
			})
		case err == nil, apierrors.IsInvalid(err), apierrors.IsConflict(err), apierrors.IsAlreadyExists(err):
			// 200: an existing object that had the precondition's version.
			adopt = append(adopt, o)
		default:
			return created, adopt, fmt.Errorf("%s apply failed: %w", ssautils.FmtUnstructured(o), err)
		}
	}
	return created, adopt, nil
}
