package allinone

import (
	"testing"

	"github.com/spf13/pflag"
)

func TestMergedFlagSetsEveryService(t *testing.T) {
	var a, b int
	var only bool
	var addrA, addrB string
	setA := pflag.NewFlagSet("a", pflag.ContinueOnError)
	setA.IntVar(&a, "concurrent", 4, "")
	setA.StringVar(&addrA, "metrics-addr", ":8080", "")
	setB := pflag.NewFlagSet("b", pflag.ContinueOnError)
	setB.IntVar(&b, "concurrent", 2, "")
	setB.BoolVar(&only, "drift-detection", false, "")
	setB.StringVar(&addrB, "metrics-addr", ":8080", "")

	fs := pflag.NewFlagSet("all-in-one", pflag.ContinueOnError)
	var own string
	fs.StringVar(&own, "metrics-addr", ":9000", "")
	mergeFlags(fs, map[string]bool{"metrics-addr": true}, setA, setB)
	if err := fs.Parse([]string{"--concurrent=8", "--drift-detection", "--metrics-addr=:1"}); err != nil {
		t.Fatal(err)
	}
	if a != 8 || b != 8 {
		t.Errorf("--concurrent set a=%d b=%d, want 8 for both", a, b)
	}
	if !only {
		t.Error("--drift-detection without value did not set the bool")
	}
	if own != ":1" || addrA != ":8080" || addrB != ":8080" {
		t.Errorf("skipped flag leaked: own=%q a=%q b=%q", own, addrA, addrB)
	}
}
