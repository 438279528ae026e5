// Package inventory converts between the objects a KCLRun applied and the
// ResourceInventory recorded in its status, in Flux's format: entry IDs are
// "<namespace>_<name>_<group>_<kind>" and the version is kept beside the ID so
// that a stale object can be addressed for pruning after its kind's preferred
// version changed.
package inventory

import (
	"fmt"
	"sort"

	"github.com/fluxcd/cli-utils/pkg/object"
	"github.com/fluxcd/pkg/ssa"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// New returns an empty inventory; a nil inventory means "never applied".
func New() *v1alpha1.ResourceInventory {
	return &v1alpha1.ResourceInventory{Entries: []v1alpha1.ResourceRef{}}
}

// FromChangeSet records every object of an apply change set, sorted by ID so
// that equal sets produce equal statuses (and no spurious status writes).
func FromChangeSet(cs *ssa.ChangeSet) *v1alpha1.ResourceInventory {
	inv := New()
	if cs == nil {
		return inv
	}
	seen := make(map[string]bool, len(cs.Entries))
	for _, e := range cs.Entries {
		id := e.ObjMetadata.String()
		if seen[id] {
			continue
		}
		seen[id] = true
		inv.Entries = append(inv.Entries, v1alpha1.ResourceRef{ID: id, Version: e.GroupVersion})
	}
	sortEntries(inv)
	return inv
}

// FromObjects records objects that are about to be (or were) applied.
func FromObjects(objects []*unstructured.Unstructured) (*v1alpha1.ResourceInventory, error) {
	inv := New()
	seen := make(map[string]bool, len(objects))
	for _, o := range objects {
		m, err := object.RuntimeToObjMeta(o)
		if err != nil {
			return nil, fmt.Errorf("inventory entry for %s: %w", o.GetName(), err)
		}
		id := m.String()
		if seen[id] {
			continue
		}
		seen[id] = true
		inv.Entries = append(inv.Entries, v1alpha1.ResourceRef{ID: id, Version: o.GroupVersionKind().Version})
	}
	sortEntries(inv)
	return inv, nil
}

// ObjMetadataSet parses the entries for ssa's wait and delete helpers.
func ObjMetadataSet(inv *v1alpha1.ResourceInventory) (object.ObjMetadataSet, error) {
	if inv == nil {
		return nil, nil
	}
	set := make(object.ObjMetadataSet, 0, len(inv.Entries))
	for _, e := range inv.Entries {
		m, err := object.ParseObjMetadata(e.ID)
		if err != nil {
			return nil, fmt.Errorf("invalid inventory entry %q: %w", e.ID, err)
		}
		set = append(set, m)
	}
	return set, nil
}

// Objects turns the entries into unstructured stubs (apiVersion, kind,
// namespace, name) suitable for deletion or status polling.
func Objects(inv *v1alpha1.ResourceInventory) ([]*unstructured.Unstructured, error) {
	if inv == nil {
		return nil, nil
	}
	objects := make([]*unstructured.Unstructured, 0, len(inv.Entries))
	for _, e := range inv.Entries {
		m, err := object.ParseObjMetadata(e.ID)
		if err != nil {
			return nil, fmt.Errorf("invalid inventory entry %q: %w", e.ID, err)
		}
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(schema.GroupVersionKind{Group: m.GroupKind.Group, Version: e.Version, Kind: m.GroupKind.Kind})
		u.SetNamespace(m.Namespace)
		u.SetName(m.Name)
		objects = append(objects, u)
	}
	return objects, nil
}

// Stale lists the objects of previous that current no longer holds: the prune
// candidates. Entries are compared by ID only, so a version change is not a
// removal.
func Stale(previous, current *v1alpha1.ResourceInventory) ([]*unstructured.Unstructured, error) {
	if previous == nil {
		return nil, nil
	}
	keep := make(map[string]bool)
	if current != nil {
		for _, e := range current.Entries {
			keep[e.ID] = true
		}
	}
	gone := New()
	for _, e := range previous.Entries {
		if !keep[e.ID] {
			gone.Entries = append(gone.Entries, e)
		}
	}
	return Objects(gone)
}

// Equal reports whether two inventories hold the same entries.
func Equal(a, b *v1alpha1.ResourceInventory) bool {
	if a == nil || b == nil {
		return a == b
	}
	if len(a.Entries) != len(b.Entries) {
		return false
	}
	for i := range a.Entries {
		if a.Entries[i] != b.Entries[i] {
			return false
		}
	}
	return true
}

func sortEntries(inv *v1alpha1.ResourceInventory) {
	sort.Slice(inv.Entries, func(i, j int) bool { return inv.Entries[i].ID < inv.Entries[j].ID })
}

// Subject spells an entry ID as Flux's events do, Kind/namespace/name (Kind/name when
// cluster-scoped); an ID that does not parse is returned as it is.
func Subject(id string) string {
	m, err := object.ParseObjMetadata(id)
	if err != nil {
		return id
	}
	if m.Namespace == "" {
		return m.GroupKind.Kind + "/" + m.Name
	}
	return m.GroupKind.Kind + "/" + m.Namespace + "/" + m.Name
}
