package gen

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

var (
	printSeed   = flag.Int64("print", -1, "print the program of this seed")
	printBroken = flag.Float64("print-broken", 0.1, "the Broken option of -print (TestFuzzLong's -broken)")
	printLazy   = flag.Float64("print-lazy", 0.5, "the Lazy option of -print (TestFuzzLong's -lazy)")
	printNested = flag.Float64("print-nested", 0, "the Nested option of -print (TestFuzzLong's -nested)")
	printShared = flag.Float64("print-shared", 0, "the Shared option of -print (TestFuzzLong's -shared)")
	printDir    = flag.String("print-dir", "", "also write the files of -print's program to this directory")
)

func TestPrint(t *testing.T) {
	if *printSeed < 0 {
		t.Skip("-print not given")
	}
	p := New(*printSeed, Options{Broken: *printBroken, Lazy: *printLazy, Nested: *printNested, Shared: *printShared})
	fmt.Print(p.Source())
	if *printDir == "" {
		return
	}
	for name, src := range p.Files {
		path := filepath.Join(*printDir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
