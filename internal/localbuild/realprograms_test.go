package localbuild

import (
	"bytes"
	"context"
	"encoding/json"
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
	progs, err := realprograms.RealLike("../../kcl/testdata/real_like")
	if err != nil {
		t.Fatal(err)
	}
	packages := DefaultPackages()
	packages.CacheDir = t.TempDir()
	for _, p := range progs {
		t.Run(p.Name, func(t *testing.T) {
			want, ok, err := p.ExpectedObjects()
			switch {
			case err != nil:
				t.Fatal(err)
			case !ok:
				t.Skip("the output is not Kubernetes objects, which the controller refuses")
			case !p.RunsFromFolder() || len(p.External) > 0:
				t.Skip("the program needs files or -E packages its folder does not name")
			}
			var out, log bytes.Buffer
			err = Build(context.Background(), Options{Dir: p.Dir, Arguments: p.Args, Packages: packages}, &out, &log)
			wantText := printedObjects(t, want)
			same := err == nil && out.String() == wantText
			switch {
			case p.KnownDiff != "" && same:
				t.Fatalf("output now equals the official engine's: delete %s/KNOWN_DIFF", p.Dir)
			case p.KnownDiff != "":
				t.Skipf("known difference: %s", p.KnownDiff)
			case err != nil:
				t.Fatalf("build: %v\n%s", err, log.String())
			case !same:
				t.Fatalf("output differs from the official engine's objects\n--- got\n%s\n--- want\n%s", out.String(), wantText)
			}
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
