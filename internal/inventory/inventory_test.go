package inventory

import (
	"testing"

	"github.com/fluxcd/cli-utils/pkg/object"
	"github.com/fluxcd/pkg/ssa"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

func entry(ns, name, group, version, kind string) ssa.ChangeSetEntry {
	return ssa.ChangeSetEntry{
		ObjMetadata:  object.ObjMetadata{Namespace: ns, Name: name, GroupKind: schema.GroupKind{Group: group, Kind: kind}},
		GroupVersion: version,
		Action:       ssa.CreatedAction,
	}
}

func TestFromChangeSetUsesFluxIDs(t *testing.T) {
	cs := ssa.NewChangeSet()
	cs.Add(entry("apps", "web", "apps", "v1", "Deployment"))
	cs.Add(entry("apps", "web", "", "v1", "Service"))
	cs.Add(entry("", "apps", "", "v1", "Namespace"))

	inv := FromChangeSet(cs)
	want := []v1alpha1.ResourceRef{
		{ID: "_apps__Namespace", Version: "v1"},
		{ID: "apps_web__Service", Version: "v1"},
		{ID: "apps_web_apps_Deployment", Version: "v1"},
	}
	if len(inv.Entries) != len(want) {
		t.Fatalf("entries = %v, want %v", inv.Entries, want)
	}
	for i := range want {
		if inv.Entries[i] != want[i] {
			t.Errorf("entry %d = %v, want %v", i, inv.Entries[i], want[i])
		}
	}
}

func TestStaleComparesByIDOnly(t *testing.T) {
	previous := &v1alpha1.ResourceInventory{Entries: []v1alpha1.ResourceRef{
		{ID: "apps_web_apps_Deployment", Version: "v1"},
		{ID: "apps_web__Service", Version: "v1"},
		{ID: "apps_hpa_autoscaling_HorizontalPodAutoscaler", Version: "v1"},
	}}
	current := &v1alpha1.ResourceInventory{Entries: []v1alpha1.ResourceRef{
		{ID: "apps_web_apps_Deployment", Version: "v1"},
		{ID: "apps_hpa_autoscaling_HorizontalPodAutoscaler", Version: "v2"},
	}}
	stale, err := Stale(previous, current)
	if err != nil {
		t.Fatal(err)
	}
	if len(stale) != 1 {
		t.Fatalf("stale = %d objects, want 1", len(stale))
	}
	got := stale[0]
	if got.GetKind() != "Service" || got.GetName() != "web" || got.GetNamespace() != "apps" || got.GetAPIVersion() != "v1" {
		t.Errorf("stale object = %s %s/%s (%s)", got.GetKind(), got.GetNamespace(), got.GetName(), got.GetAPIVersion())
	}
}

func TestFromObjectsDeduplicates(t *testing.T) {
	cm := &unstructured.Unstructured{}
	cm.SetAPIVersion("v1")
	cm.SetKind("ConfigMap")
	cm.SetNamespace("default")
	cm.SetName("settings")
	inv, err := FromObjects([]*unstructured.Unstructured{cm, cm.DeepCopy()})
	if err != nil {
		t.Fatal(err)
	}
	if len(inv.Entries) != 1 || inv.Entries[0].ID != "default_settings__ConfigMap" {
		t.Errorf("entries = %v", inv.Entries)
	}
	if !Equal(inv, inv.DeepCopy()) || Equal(inv, New()) || !Equal(nil, nil) || Equal(nil, New()) {
		t.Error("Equal disagrees with itself")
	}
}

func TestObjMetadataSetRejectsGarbage(t *testing.T) {
	if _, err := ObjMetadataSet(&v1alpha1.ResourceInventory{Entries: []v1alpha1.ResourceRef{{ID: "nope"}}}); err == nil {
		t.Error("expected an error for a malformed ID")
	}
}
