package check_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/kcl/check"
	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
)

// chunk is one program of a testdata file with the errors it must raise.
type chunk struct {
	name string
	src  string
	want []wantError
}

type wantError struct {
	line int
	msg  string
}

var wantRE = regexp.MustCompile(`### (.*)$`)

// readChunks splits a testdata file into programs, as starlark-go's
// testdata files are split: '---' lines separate chunks, a '### text'
// comment expects an error on its line whose message contains text (several
// separated by ' ### '), and every error must be expected.
func readChunks(t testing.TB, path string) []chunk {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []chunk
	line := 1
	for i, src := range strings.Split(string(b), "\n---\n") {
		c := chunk{name: fmt.Sprintf("%s:%d", filepath.Base(path), line), src: src + "\n"}
		for n, l := range strings.Split(src, "\n") {
			if m := wantRE.FindStringSubmatch(l); m != nil {
				for _, msg := range strings.Split(m[1], " ### ") {
					c.want = append(c.want, wantError{line: n + 1, msg: strings.TrimSpace(msg)})
				}
			}
		}
		line += strings.Count(src, "\n") + 2
		_ = i
		out = append(out, c)
	}
	return out
}

// diagnostics parses src and checks it as a whole program, without eval.
func diagnostics(t testing.TB, src string) []*check.Diagnostic {
	m, err := syntax.ParseFile("main.k", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return check.File(m)
}

// TestFile checks each chunk of testdata/*.k with check.File: every
// diagnostic must be expected by a ### comment on its line, and every
// expectation met.
func TestFile(t *testing.T) {
	files, err := filepath.Glob("testdata/*.k")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	for _, f := range files {
		for _, c := range readChunks(t, f) {
			t.Run(c.name, func(t *testing.T) {
				got := diagnostics(t, c.src)
				for _, w := range c.want {
					found := false
					for _, g := range got {
						if g.Messages[0].Pos.Line == w.line && strings.Contains(g.Messages[0].Msg, w.msg) {
							found = true
						}
					}
					if !found {
						t.Errorf("line %d: no error containing %q; got:", w.line, w.msg)
						for _, g := range got {
							t.Errorf("  %v", g)
						}
					}
				}
				for _, g := range got {
					expected := false
					for _, w := range c.want {
						expected = expected || g.Messages[0].Pos.Line == w.line && strings.Contains(g.Messages[0].Msg, w.msg)
					}
					if !expected {
						t.Errorf("unexpected diagnostic %v", g)
					}
				}
			})
		}
	}
}

// An undefined name in an annotation is reported once, at the annotation's
// start (a lambda's return type: at its statement's), as kcl run 0.12.1 does;
// those of the official global pass (top-level assignments, schemas) come
// before every other error.
func TestUndefinedNameInAnnotationAtItsStart(t *testing.T) {
	for _, c := range []struct {
		src       string
		line, col int
		n         int
	}{
		{"x: [Nope] = []\n", 1, 4, 1},
		{"x: int | Nope = 1\n", 1, 4, 1},
		{"f = lambda a: int | Nope { a }\n", 1, 15, 1},
		{"a = [\n    lambda -> Nope { 1 }\n]\n", 1, 1, 1},
		{"a = 1 + \"s\"\nschema A:\n    x: Nope\n", 3, 8, 2},
		{"a: int = \"s\"\nb: Nope = 1\n", 2, 4, 2},
		{"a = 1 + \"s\"\nschema A[p: Nope]:\n    x: int\n", 2, 10, 2},
		{"a = 1 + \"s\"\ntype T = Nope\n", 2, 6, 2},
		{"schema A:\n    f = lambda -> Nope { 1 }\n", 2, 5, 1},
	} {
		got := diagnostics(t, c.src)
		if len(got) == 0 {
			t.Fatalf("%q: want a diagnostic, got none", c.src)
		}
		first := got[0].Messages[0].Pos
		if len(got) != c.n || first.Line != c.line || first.Col != c.col || got[0].Kind != errkind.Compile {
			t.Errorf("%q: got %d diagnostics, first %v, want %d, first %d:%d", c.src, len(got), got[0], c.n, c.line, c.col)
		}
	}
}
