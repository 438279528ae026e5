package check

import (
	"fmt"
	"runtime"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
)

// mainProgram is a program of one main file parsed from src, as a parse cache miss makes it.
func mainProgram(t *testing.T, src string) *Program {
	t.Helper()
	m, err := syntax.ParseFile("main.k", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	main := &Package{Path: "__main__", Files: []*SourceFile{{Module: m, Body: m.Body}}}
	return &Program{Main: main, Packages: map[string]*Package{main.Path: main}}
}

// TestProgramCacheFollowsItsModules checks that a check's cache entry lives only as long as
// the program's modules: the same modules hit it, the same bytes parsed again into new
// modules (the parse cache evicted them) miss it, and entries whose modules are gone are
// dropped, so that the cache holds no AST the parse cache let go.
func TestProgramCacheFollowsItsModules(t *testing.T) {
	g := NewWithT(t)
	programCache.Lock()
	programCache.m = map[string]*programEntry{}
	programCache.Unlock()

	const src = "a = undefined_name\n"
	prog := mainProgram(t, src)
	first := Check(prog)
	g.Expect(first).To(HaveLen(1))
	g.Expect(programCacheLen()).To(Equal(1))
	_, hit := programCacheGet(mainCacheKey(prog, cacheKeys(prog)))
	g.Expect(hit).To(BeTrue(), "the same modules hit")

	again := mainProgram(t, src)
	_, hit = programCacheGet(mainCacheKey(again, cacheKeys(again)))
	g.Expect(hit).To(BeFalse(), "a re-parse of the same bytes is other modules")
	g.Expect(Check(again)).To(HaveLen(1))
	runtime.KeepAlive(prog)

	// Many programs checked and let go, as tenant programs pass through the
	// main parse cache: the entries go with their modules.
	for i := range 200 {
		Check(mainProgram(t, fmt.Sprintf("a%d = undefined_name\n", i)))
	}
	prog, again = nil, nil
	g.Eventually(func() int {
		runtime.GC()
		return programCacheLen()
	}).Should(BeZero())
}
