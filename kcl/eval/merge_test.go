package eval

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/kcl/output"
)

// TestMergedConfigsLeaveTheParsedFile checks that merging the main package's
// `name: Schema {…}` statements does not edit the parsed file the parse
// cache hands the next run: a warm compile merged the earlier statements
// into the last one again, so `l += [1]` grew by one item a run.
func TestMergedConfigsLeaveTheParsedFile(t *testing.T) {
	dir := t.TempDir()
	src := "schema A:\n    l: [int] = []\n    x: int = 0\n\na: A {\n    l += [1]\n}\na: A {\n    x = 1\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "main.k"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "a:\n  l:\n  - 1\n  x: 1\n"
	for run := 1; run <= 3; run++ {
		v, err := Run(context.Background(), &Config{Root: dir, ModRoot: dir, Files: []string{filepath.Join(dir, "main.k")}})
		if err != nil {
			t.Fatal(err)
		}
		got, err := output.YAML(v, output.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Fatalf("run %d:\n%s\nwant:\n%s", run, got, want)
		}
	}
}
