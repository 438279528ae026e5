package check_test

import (
	"path/filepath"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/kcl/check"
	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
)

// FuzzCheck feeds the pass whatever parses: it must never panic.
func FuzzCheck(f *testing.F) {
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
		check.File(m)
	})
}
