package eval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeLargePackage writes a k8s-like package: files × schemas per file, each
// schema with a dozen typed attributes and a parent.
func writeLargePackage(tb testing.TB, dir string, files, perFile int) int {
	tb.Helper()
	pkg := filepath.Join(dir, "k8s")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		tb.Fatal(err)
	}
	size := 0
	for f := 0; f < files; f++ {
		var b strings.Builder
		for s := 0; s < perFile; s++ {
			fmt.Fprintf(&b, "schema Kind%d_%d:\n    \"\"\"Kind%d_%d is a generated resource.\"\"\"\n", f, s, f, s)
			for a := 0; a < 12; a++ {
				fmt.Fprintf(&b, "    field%d?: str = \"v%d\"\n    items%d?: [{str:str}]\n", a, a, a)
			}
			b.WriteString("    check:\n        field0 != \"\", \"field0 must be set\"\n\n")
		}
		size += b.Len()
		if err := os.WriteFile(filepath.Join(pkg, fmt.Sprintf("kinds%02d.k", f)), []byte(b.String()), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "kcl.mod"), nil, 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.k"), []byte("import k8s\n\nr = k8s.Kind0_0 {field1 = \"x\"}\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	return size
}

// BenchmarkLargeImport runs a program importing a 600-schema package: "cold"
// parses it every time, "cached" reuses the content-keyed parse cache.
func BenchmarkLargeImport(b *testing.B) {
	dir := b.TempDir()
	size := writeLargePackage(b, dir, 20, 30)
	cfg := func() *Config {
		return &Config{Root: dir, ModRoot: dir, Files: []string{filepath.Join(dir, "main.k")}}
	}
	b.Run("cold", func(b *testing.B) {
		b.ReportAllocs()
		b.ReportMetric(float64(size), "src-bytes")
		SetParseCacheLimit(0)
		defer SetParseCacheLimit(DefaultParseCacheBytes)
		for b.Loop() {
			if _, err := Run(context.Background(), cfg()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cached", func(b *testing.B) {
		b.ReportAllocs()
		if _, err := Run(context.Background(), cfg()); err != nil { // warm the cache
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := Run(context.Background(), cfg()); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func TestLargeImportIsParsedOnce(t *testing.T) {
	dir := t.TempDir()
	writeLargePackage(t, dir, 4, 10)
	cfg := &Config{Root: dir, ModRoot: dir, Files: []string{filepath.Join(dir, "main.k")}}
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	before := ParseCacheStats()
	cfg = &Config{Root: dir, ModRoot: dir, Files: []string{filepath.Join(dir, "main.k")}}
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	after := ParseCacheStats()
	if after.Misses != before.Misses {
		t.Fatalf("second run parsed %d files again (hits %d -> %d)", after.Misses-before.Misses, before.Hits, after.Hits)
	}
}

// Many distinct main programs (a controller's tenants, each compiled once)
// stay within the main files' bound and do not push the package they import
// out of the cache.
func TestDistinctMainProgramsKeepImportedPackageCached(t *testing.T) {
	dir := t.TempDir()
	writeLargePackage(t, dir, 2, 5)
	const mainLimit = 4 << 10
	SetMainParseCacheLimit(mainLimit)
	defer SetMainParseCacheLimit(DefaultMainParseCacheBytes)
	main := filepath.Join(dir, "main.k")
	run := func(i int) {
		t.Helper()
		src := fmt.Sprintf("import k8s\n\n# tenant %d%s\nr = k8s.Kind0_0 {field1 = \"t%d\"}\n", i, strings.Repeat(" padding", 40), i)
		cfg := &Config{Root: dir, ModRoot: dir, Files: []string{main}, FileOverrides: map[string][]byte{main: []byte(src)}}
		if _, err := Run(context.Background(), cfg); err != nil {
			t.Fatal(err)
		}
	}
	run(0)
	for i := 1; i <= 100; i++ {
		run(i)
	}
	if got := mainParseCache.stats().SourceBytes; got > mainLimit {
		t.Fatalf("main files' cache holds %d bytes of source, bound %d", got, mainLimit)
	}
	before := sharedParseCache.stats()
	run(101)
	if after := sharedParseCache.stats(); after.Misses != before.Misses {
		t.Fatalf("the imported package was parsed again after 100 distinct programs (%d files)", after.Misses-before.Misses)
	}
}
