package resolve_test

import (
	"path/filepath"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/kcl/resolve"
	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
)

// FuzzResolve feeds the pass whatever parses: it must never panic.
func FuzzResolve(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.k")
	for _, p := range files {
		for _, c := range readChunks(f, p) {
			f.Add(c.src)
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		m, err := syntax.ParseFile("main.k", []byte(src))
		if err != nil {
			return
		}
		main := &resolve.Package{Path: "__main__", Files: []*resolve.File{{Module: m, Body: m.Body}}}
		resolve.Check(&resolve.Program{Main: main, Packages: map[string]*resolve.Package{main.Path: main}})
	})
}
