package compiler

import (
	"strings"
	"testing"
)

func TestSplitObjects(t *testing.T) {
	stream := `apiVersion: v1
kind: ConfigMap
metadata:
  name: a
data:
  n: "1"
---
---
items:
- apiVersion: v1
  kind: Service
  metadata:
    name: b
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: c
`
	objects, err := splitObjects([]byte(stream))
	if err != nil {
		t.Fatal(err)
	}
	if len(objects) != 3 {
		t.Fatalf("got %d objects, want 3: %s", len(objects), objects)
	}
	if want := `{"apiVersion":"v1","data":{"n":"1"},"kind":"ConfigMap","metadata":{"name":"a"}}`; string(objects[0]) != want {
		t.Errorf("first object %s, want %s", objects[0], want)
	}
	if !strings.Contains(string(objects[2]), `"kind":"Deployment"`) {
		t.Errorf("third object %s is not the Deployment", objects[2])
	}
}

func TestSplitObjectsRejectsNonObjects(t *testing.T) {
	for name, tc := range map[string]struct{ stream, want string }{
		"scalar":        {"a\n", "document 1 is a string"},
		"list":          {"- 1\n- 2\n", "document 1 is a list"},
		"missing kind":  {"apiVersion: v1\nmetadata: {name: a}\n", `document 1 is not a Kubernetes object: "kind"`},
		"no metadata":   {"apiVersion: v1\nkind: A\n", `"metadata" is missing`},
		"second doc":    {"apiVersion: v1\nkind: A\nmetadata: {name: a}\n---\nx: 1\n", "document 2"},
		"bad list item": {"items:\n- 1\n", "document 1, items[0] is a number"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := splitObjects([]byte(tc.stream))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestSplitObjectsEmpty(t *testing.T) {
	objects, err := splitObjects([]byte("\n"))
	if err != nil || len(objects) != 0 {
		t.Fatalf("got %v, %v; want no objects", objects, err)
	}
}
