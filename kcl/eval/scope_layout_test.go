package eval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestScopeLayoutsSharedForPackagesOnly checks that the layouts of imported
// packages are shared by runs, that a main package's are not (a controller
// compiles thousands of distinct ones), and that the layouts let go of their
// ASTs once the package parse cache drops a file.
func TestScopeLayoutsSharedForPackagesOnly(t *testing.T) {
	dir := t.TempDir()
	writeLargePackage(t, dir, 2, 3)
	run := func(rev int) int {
		t.Helper()
		src := fmt.Sprintf("import k8s\n\nr = k8s.Kind0_0 {field1 = \"rev%d\"}\n", rev)
		if err := os.WriteFile(filepath.Join(dir, "main.k"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Run(context.Background(), &Config{Root: dir, ModRoot: dir, Files: []string{filepath.Join(dir, "main.k")}}); err != nil {
			t.Fatal(err)
		}
		scopeLayouts.Lock()
		defer scopeLayouts.Unlock()
		return scopeLayouts.n
	}
	first := run(0)
	if first == 0 {
		t.Fatal("no layout was shared for the imported package")
	}
	for rev := 1; rev <= 3; rev++ {
		if n := run(rev); n != first {
			t.Fatalf("revision %d of the main package: %d shared layouts, want %d (the imported package's only)", rev, n, first)
		}
	}
	resetParseCache()
	if n := run(4); n == 0 || n > first {
		t.Fatalf("after the parse cache dropped its files: %d shared layouts, want between 1 and %d", n, first)
	}
}
