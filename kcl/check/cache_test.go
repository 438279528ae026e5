package check_test

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

// TestMainPackageCheckFollowsItsContent runs a faulty main package twice (the
// second run reuses the first check) and then a corrected one, which must
// not be refused by the cached verdict of the faulty content.
func TestMainPackageCheckFollowsItsContent(t *testing.T) {
	dir := t.TempDir()
	main := filepath.Join(dir, "main.k")
	write := func(src string) {
		if err := os.WriteFile(main, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a = undefined_in_main\n")
	for run := 0; run < 2; run++ {
		_, err := kcl.Run(context.Background(), kcl.Options{WorkDir: dir, Files: []string{"main.k"}})
		var ke *kcl.Error
		if !errors.As(err, &ke) || !strings.Contains(ke.Message, "name 'undefined_in_main' is not defined") {
			t.Fatalf("run %d: got %v", run+1, err)
		}
	}
	write("undefined_in_main = 1\na = undefined_in_main\n")
	res, err := kcl.Run(context.Background(), kcl.Options{WorkDir: dir, Files: []string{"main.k"}})
	if err != nil {
		t.Fatalf("corrected program: %v", err)
	}
	if got, want := string(res.YAML), "undefined_in_main: 1\na: 1\n"; got != want {
		t.Fatalf("corrected program printed %q, want %q", got, want)
	}
}
