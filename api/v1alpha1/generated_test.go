package v1alpha1_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeneratedFilesAreUpToDate regenerates the CRD and the deepcopy functions from the types
// with the pinned controller-gen and fails if the committed files differ.
func TestGeneratedFilesAreUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs controller-gen")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	tools, err := exec.Command("bash", filepath.Join(root, "hack", "tools.sh")).Output()
	if err != nil {
		t.Fatalf("installing tools with hack/tools.sh: %v", err)
	}
	controllerGen := filepath.Join(strings.TrimSpace(lastLine(string(tools))), "controller-gen")

	out := t.TempDir()
	cmd := exec.Command(controllerGen,
		"object:headerFile="+filepath.Join(root, "hack", "boilerplate.go.txt"),
		"crd", "paths=./...",
		"output:crd:dir="+filepath.Join(out, "crd"),
		"output:object:dir="+filepath.Join(out, "object"),
	)
	cmd.Dir = filepath.Join(root, "api")
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("controller-gen: %v\n%s", err, msg)
	}

	for generated, committed := range map[string]string{
		filepath.Join(out, "crd", "krm.kcl.dev.fluxcd_kclruns.yaml"):       filepath.Join(root, "deploy", "crd", "krm.kcl.dev.fluxcd_kclruns.yaml"),
		filepath.Join(out, "crd", "krm.kcl.dev.fluxcd_imagerollouts.yaml"): filepath.Join(root, "deploy", "crd", "krm.kcl.dev.fluxcd_imagerollouts.yaml"),
		filepath.Join(out, "object", "zz_generated.deepcopy.go"):           filepath.Join(root, "api", "v1alpha1", "zz_generated.deepcopy.go"),
	} {
		want, err := os.ReadFile(generated)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(committed)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is out of date with the API types, regenerate it with controller-gen; %s", committed, firstDifference(got, want))
		}
	}
	crds, err := filepath.Glob(filepath.Join(out, "crd", "*.yaml"))
	if err != nil || len(crds) != 2 {
		t.Errorf("expected the KCLRun and ImageRollout CRDs, got %v (%v)", crds, err)
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// firstDifference describes the first line where the committed and generated files differ.
func firstDifference(committed, generated []byte) string {
	c, g := strings.Split(string(committed), "\n"), strings.Split(string(generated), "\n")
	for i := 0; i < len(c) || i < len(g); i++ {
		var cl, gl string
		if i < len(c) {
			cl = c[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if cl != gl {
			return fmt.Sprintf("line %d: committed %q, generated %q", i+1, cl, gl)
		}
	}
	return "files differ"
}
