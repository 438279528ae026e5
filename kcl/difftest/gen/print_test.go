package gen

import (
	"flag"
	"fmt"
	"testing"
)

var (
	printSeed   = flag.Int64("print", -1, "print the program of this seed")
	printBroken = flag.Float64("print-broken", 0.1, "the Broken option of -print (TestFuzzLong's -broken)")
)

func TestPrint(t *testing.T) {
	if *printSeed < 0 {
		t.Skip("-print not given")
	}
	fmt.Print(New(*printSeed, Options{Broken: *printBroken}).Source())
}
