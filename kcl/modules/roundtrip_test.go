package modules

import (
	"math/rand"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/kcl/output"
	v "github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

// Every string the printer emits must read back as the same string, whatever
// quoting style it chose.
func TestYAMLStringsRoundTrip(t *testing.T) {
	alphabet := []rune("ab01 -:#'\"\\\n\t?,[]{}&*!|>%@`~.=+é\u0085日")
	r := rand.New(rand.NewSource(42))
	for range 20000 {
		n := r.Intn(8)
		rs := make([]rune, n)
		for i := range rs {
			rs[i] = alphabet[r.Intn(len(alphabet))]
		}
		s := string(rs)
		doc := output.EncodeYAML(v.DictOf("k", v.Str(s), s, v.Int(1)), false, false, false)
		back, err := DecodeYAML(doc)
		if err != nil {
			t.Fatalf("%q printed as %q does not parse: %v", s, doc, err)
		}
		d := back.(*v.Dict)
		if got, _ := d.Get("k"); got != v.Str(s) {
			t.Fatalf("value %q printed as %q reads back as %#v", s, doc, got)
		}
		if _, ok := d.Get(s); !ok {
			t.Fatalf("key %q printed as %q does not read back (keys %q)", s, doc, d.Keys())
		}
	}
}
