package compiler_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	ssautils "github.com/fluxcd/pkg/ssa/utils"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
	"github.com/kcl-lang/flux-kcl-controller/kcl/realprograms"
)

const realLikeDir = "../../kcl/testdata/real_like"

// TestCompileRealLikePrograms compiles each real-like program as a KCLRun
// has it compiled: its folder served as a GitRepository artifact (tar.gz over
// HTTP), compiled through gRPC by a real compiler, kcl.mod dependencies
// resolved by the compiler. The service hands out objects, so the objects are
// compared with those of the official engine's output (expected.yaml), printed
// as the applier and `flux-kcl-controller build` print them.
func TestCompileRealLikePrograms(t *testing.T) {
	progs, err := realprograms.RealLike(realLikeDir)
	if err != nil {
		t.Fatal(err)
	}
	w := startWorker(t, nil)
	for _, p := range progs {
		t.Run(p.Name, func(t *testing.T) {
			want := realprograms.ControllerObjects(t, p)
			a := w.publish(t, "real-like-"+p.Name, programFiles(t, p.Dir))
			got, err := w.client.Compile(context.Background(), workerclient.CompileInput{
				Artifact: ref(a), Config: workerclient.CompileConfig{Arguments: p.Args},
			})
			var gotText string
			if err == nil {
				gotText = objectsYAML(t, got.Objects)
			}
			wantText := objectsYAML(t, toObjects(t, want))
			realprograms.CheckVerdict(t, p, "compile", err, gotText == wantText, gotText, wantText)
			for name := range p.ModPackages {
				if !slices.ContainsFunc(got.Packages, func(pkg workerclient.Package) bool { return pkg.Name == name }) {
					t.Errorf("kcl.mod dependency %s is not among the resolved packages %+v", name, got.Packages)
				}
			}
		})
	}
}

// programFiles reads every file below dir, by slash path relative to it.
func programFiles(tb testing.TB, dir string) map[string]string {
	tb.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		files[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return files
}

func toObjects(tb testing.TB, maps []map[string]any) []*unstructured.Unstructured {
	tb.Helper()
	out := make([]*unstructured.Unstructured, len(maps))
	for i, m := range maps {
		b, err := json.Marshal(m)
		if err != nil {
			tb.Fatal(err)
		}
		out[i] = &unstructured.Unstructured{}
		if err := out[i].UnmarshalJSON(b); err != nil {
			tb.Fatal(err)
		}
	}
	return out
}

func objectsYAML(tb testing.TB, objects []*unstructured.Unstructured) string {
	tb.Helper()
	text, err := ssautils.ObjectsToYAML(objects)
	if err != nil {
		tb.Fatal(err)
	}
	return text
}
