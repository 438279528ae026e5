package drift

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func meta(gen int64, rv string, entries ...metav1.ManagedFieldsEntry) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Generation: gen, ResourceVersion: rv, ManagedFields: entries}}
}

func entry(manager string, at int, subresource string) metav1.ManagedFieldsEntry {
	t := metav1.NewTime(time.Unix(int64(at), 0))
	return metav1.ManagedFieldsEntry{Manager: manager, Time: &t, Subresource: subresource}
}

func TestDrifted(t *testing.T) {
	cases := []struct {
		name          string
		before, after *metav1.PartialObjectMetadata
		want          bool
	}{
		{"our own apply", meta(1, "1", entry("fkc", 1, "")), meta(2, "2", entry("fkc", 2, "")), false},
		{"someone edits the spec", meta(1, "1", entry("fkc", 1, "")), meta(2, "2", entry("fkc", 1, ""), entry("kubectl-edit", 2, "")), true},
		{"status written by a controller", meta(2, "1", entry("fkc", 1, "")), meta(2, "2", entry("fkc", 1, ""), entry("kcm", 2, "status")), false},
		{"generationless kind edited", meta(0, "1", entry("fkc", 1, "")), meta(0, "2", entry("fkc", 1, ""), entry("kubectl", 2, "")), true},
		{"resync without change", meta(3, "7", entry("fkc", 1, "")), meta(3, "7", entry("fkc", 1, "")), false},
	}
	for _, c := range cases {
		if got := Drifted(c.before, c.after, "fkc"); got != c.want {
			t.Errorf("%s: Drifted = %t, want %t", c.name, got, c.want)
		}
	}
}

func TestTrimManagedFieldsKeepsTheLastWriter(t *testing.T) {
	kubectl := entry("kubectl-edit", 2, "")
	kubectl.FieldsType, kubectl.FieldsV1 = "FieldsV1", &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:replicas":{}}}`)}
	obj := meta(2, "2", entry("fkc", 1, ""), kubectl)
	out, err := trimManagedFields(obj)
	if err != nil {
		t.Fatal(err)
	}
	trimmed := out.(*metav1.PartialObjectMetadata)
	for _, e := range trimmed.ManagedFields {
		if e.FieldsV1 != nil || e.FieldsType != "" {
			t.Fatalf("field set kept: %+v", e)
		}
	}
	if got := lastWriter(trimmed); got != "kubectl-edit" {
		t.Fatalf("lastWriter = %q after trimming, want kubectl-edit", got)
	}
}
