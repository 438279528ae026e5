package eval

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

// BenchmarkStaticPass measures the static pass alone on a program importing
// the 600-schema package of BenchmarkLargeImport, next to the warm compile
// of the same program ("run"), so that its share of a compile is visible
// in one run on a busy machine.
func BenchmarkStaticPass(b *testing.B) {
	dir := b.TempDir()
	writeLargePackage(b, dir, 20, 30)
	cfg := func() *Config {
		return &Config{Root: dir, ModRoot: dir, Files: []string{filepath.Join(dir, "main.k")}}
	}
	if _, err := Run(context.Background(), cfg()); err != nil { // warm the parse cache
		b.Fatal(err)
	}
	b.Run("run", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Run(context.Background(), cfg()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("check", func(b *testing.B) {
		b.ReportAllocs()
		c := cfg()
		sb, err := newSandbox([]string{c.Root}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer sb.Close()
		for b.Loop() {
			in := &Interp{cfg: c, thread: &value.Thread{Ctx: context.Background()}, sb: sb, pkgs: map[string]*pkgState{}}
			main, err := in.loadMain()
			if err != nil {
				b.Fatal(err)
			}
			if err := in.checkProgram(main); err != nil {
				b.Fatal(err)
			}
		}
	})
}
