package sourcecontroller_test

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/test/harness/sourcecontroller"
)

// With the binaries cached but the Go module cache empty (`go clean -modcache`, another
// user's cache), the Helm CRDs are still found: the module is downloaded first.
func TestHelmCRDFilesWithEmptyModuleCache(t *testing.T) {
	if skip != "" {
		t.Skip(skip)
	}
	modcache := t.TempDir()
	t.Cleanup(func() { // the module cache is read-only; go clean knows how to remove it
		cmd := exec.Command("go", "clean", "-modcache")
		cmd.Env = append(os.Environ(), "GOMODCACHE="+modcache)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("go clean -modcache: %v: %s", err, out)
		}
	})
	t.Setenv("GOMODCACHE", modcache)
	t.Setenv("GOFLAGS", "-mod=mod")

	paths, err := sourcecontroller.HelmCRDFiles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 2 {
		t.Fatalf("want the HelmRepository and HelmChart CRDs, got %q", paths)
	}
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("CRD file: %v", err)
		}
	}
}
