package applier

import (
	"reflect"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

func TestImageChanges(t *testing.T) {
	first := []v1alpha1.ResolvedImage{
		{Policy: "flux-system/nginx", Location: "main.k:3", From: "nginx:1.7.7", To: "nginx:1.7.8"},
		{Policy: "flux-system/redis", Location: "main.k:4", From: "redis:7", To: "redis:7"},
	}
	if got, want := imageChanges(nil, first), []string{"nginx:1.7.7 → nginx:1.7.8 (policy flux-system/nginx, main.k:3)"}; !reflect.DeepEqual(got, want) {
		t.Errorf("first apply: got %q, want %q", got, want)
	}
	second := []v1alpha1.ResolvedImage{
		{Policy: "flux-system/nginx", Location: "main.k:3", From: "nginx:1.7.7", To: "nginx:1.7.9"},
		first[1],
	}
	if got, want := imageChanges(first, second), []string{"nginx:1.7.8 → nginx:1.7.9 (policy flux-system/nginx, main.k:3)"}; !reflect.DeepEqual(got, want) {
		t.Errorf("policy change: got %q, want %q", got, want)
	}
	if got := imageChanges(second, second); len(got) != 0 {
		t.Errorf("nothing moved, got %q", got)
	}
}
