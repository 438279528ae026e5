package resolve_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/kcl"
)

// TestImportedPackageErrorsSurviveTheCache runs a program twice: the second
// run reuses the check of the unchanged imported package and must still
// report its error.
func TestImportedPackageErrorsSurviveTheCache(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"kcl.mod": "",
		"main.k":  "import pkg\n\nb = pkg.a\n",
		"pkg/a.k": "a = undefined_in_pkg\n",
		"pkg/b.k": "c = 1\n",
	}
	for name, src := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for run := 0; run < 2; run++ {
		_, err := kcl.Run(context.Background(), kcl.Options{WorkDir: dir, Files: []string{"main.k"}})
		var ke *kcl.Error
		if !errors.As(err, &ke) || !strings.Contains(ke.Message, "name 'undefined_in_pkg' is not defined") {
			t.Fatalf("run %d: got %v", run+1, err)
		}
	}
}
