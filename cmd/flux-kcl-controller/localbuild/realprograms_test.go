package localbuild

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	ssautils "github.com/fluxcd/pkg/ssa/utils"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kcl-lang/flux-kcl-controller/kcl/realprograms"
)

// TestBuildRealLikePrograms runs `flux-kcl-controller build DIR` on each
// real-like program folder, its -D arguments given: the controller's own
// resolver and compiler, kcl.mod dependencies resolved as a KCLRun's are. Build
// prints objects (as the applier receives them), so its output is compared
// byte for byte with the official engine's objects (expected.yaml) printed
// the same way.
func TestBuildRealLikePrograms(t *testing.T) {
	progs, err := realprograms.RealLike("../../../kcl/testdata/real_like")
	if err != nil {
		t.Fatal(err)
	}
	packages := DefaultPackages()
	packages.CacheDir = t.TempDir()
	for _, p := range progs {
		t.Run(p.Name, func(t *testing.T) {
			want := realprograms.ControllerObjects(t, p)
			var out, log bytes.Buffer
			err := Build(context.Background(), Options{Dir: p.Dir, Arguments: p.Args, Packages: packages}, &out, &log)
			wantText := printedObjects(t, want)
			if err != nil {
				err = fmt.Errorf("%w\n%s", err, log.String())
			}
			realprograms.CheckVerdict(t, p, "build", err, out.String() == wantText, out.String(), wantText)
			for name := range p.ModPackages {
				if !strings.Contains(log.String(), "package "+name+" ") {
					t.Errorf("kcl.mod dependency %s is not logged as resolved:\n%s", name, log.String())
				}
			}
		})
	}
}

// printedObjects prints objects as Build does.
func printedObjects(tb testing.TB, maps []map[string]any) string {
	tb.Helper()
	objects := make([]*unstructured.Unstructured, len(maps))
	for i, m := range maps {
		b, err := json.Marshal(m)
		if err != nil {
			tb.Fatal(err)
		}
		objects[i] = &unstructured.Unstructured{}
		if err := objects[i].UnmarshalJSON(b); err != nil {
			tb.Fatal(err)
		}
	}
	text, err := ssautils.ObjectsToYAML(objects)
	if err != nil {
		tb.Fatal(err)
	}
	return strings.TrimSuffix(text, "---\n")
}
