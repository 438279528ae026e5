package eval_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/kcl"
)

// With -d the official engine locates a run-time error at the top-level
// statement that was running, not inside the lambda or schema, and adds a
// backtrace note naming it.
func TestDebugLocatesRuntimeErrorsAtTheTopLevelStatement(t *testing.T) {
	for _, c := range []struct {
		name, src string
		line      int
		labelLine int // 0: no label
	}{
		{"lambda", "f = lambda x {\n    x.a\n}\nb = f(None)\n", 4, 0},
		{"overflow in a schema default", "schema A:\n    x: int = 2147483647 + 1\na = A {}\n", 3, 0},
		{"assert", "a = 1\nassert a == 2\n", 2, 0},
		{"check label", "schema A:\n    v: int = 1\n    check:\n        v > 5\nx = 1\na = A {}\n", 6, 6},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "main.k"), []byte(c.src), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := kcl.Run(context.Background(), kcl.Options{WorkDir: dir, Files: []string{"main.k"}, Debug: true, StrictRangeCheck: true})
			var kerr *kcl.Error
			if !errors.As(err, &kerr) {
				t.Fatalf("want a program error, got %v", err)
			}
			want := "backtrace:\n\t0: kcl_main\n\t\tat " + filepath.Join(dir, "main.k") + ":" + strconv.Itoa(c.line)
			if kerr.Line != c.line || kerr.Note != want {
				t.Fatalf("got line %d note %q, want line %d note %q", kerr.Line, kerr.Note, c.line, want)
			}
			if c.labelLine != 0 && (len(kerr.Labels) == 0 || kerr.Labels[0].Line != c.labelLine || kerr.Labels[0].File != "main.k") {
				t.Fatalf("labels %+v, want one at main.k:%d", kerr.Labels, c.labelLine)
			}
		})
	}
}
