package value

import (
	"math"
	"math/rand"
	"strconv"
	"testing"
)

func TestEngineFloat(t *testing.T) {
	// values the engine prints with a different last digit, because it re-reads
	// its own JSON text with serde_json's fast float reader
	x := 100.12
	cases := map[float64]string{
		x - 100:               "0.12000000000000456",
		1.175494351e-36:       "1.1754943510000001e-36",
		1.436506529759401e-10: "1.4365065297594008e-10",
		0.1:                   "0.1",
		1e22:                  "1e22",
		123.0:                 "123.0",
	}
	for f, want := range cases {
		if got := RyuFloat(EngineFloat(f)); got != want {
			t.Errorf("%v: got %s want %s", f, got, want)
		}
	}
	if v, _ := ParseJSONNumber("18446744073709551615"); v.String() != "18446744073709552000.0" {
		t.Errorf("u64: %v", v)
	}
	if v, _ := ParseJSONNumber("-12"); v != Int(-12) {
		t.Errorf("int: %v", v)
	}
	if _, err := ParseJSONNumber("01"); err == nil {
		t.Error("leading zero accepted")
	}
}

// The digits printed for floats whose shortest form the ryu crate is known
// to give (serde_json's output of the official engine for them).
func TestShortestDigits(t *testing.T) {
	for f, want := range map[float64]string{
		5e-324: "5e-324", 1.7976931348623157e308: "1.7976931348623157e308", 2.2250738585072014e-308: "2.2250738585072014e-308",
		1e21: "1e21", 1e16: "1e16", 1e15: "1000000000000000.0", 1.5e-7: "1.5e-7",
		0.0001: "0.0001", 1e-5: "0.00001", 1e-7: "1e-7", 123456789.125: "123456789.125", 9007199254740993: "9007199254740992.0",
	} {
		if got := RyuFloat(f); got != want {
			t.Errorf("%v printed %s, want %s", f, got, want)
		}
	}
}

func TestRyuRoundTrips(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for range 200000 {
		f := math.Float64frombits(r.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) || f == 0 {
			continue
		}
		s := RyuFloat(f)
		back, err := strconv.ParseFloat(s, 64)
		if err != nil || back != f {
			t.Fatalf("%v printed %s, reads back %v (%v)", f, s, back, err)
		}
		if g := strconv.FormatFloat(f, 'e', -1, 64); len(digitsOf(g)) < len(digitsOf(s)) {
			t.Fatalf("%v: %s longer than shortest %s", f, s, g)
		}
	}
}

func digitsOf(s string) string {
	out := []byte{}
	for i := 0; i < len(s); i++ {
		if s[i] == 'e' {
			break
		}
		if s[i] >= '0' && s[i] <= '9' {
			out = append(out, s[i])
		}
	}
	for len(out) > 1 && out[0] == '0' {
		out = out[1:]
	}
	for len(out) > 1 && out[len(out)-1] == '0' {
		out = out[:len(out)-1]
	}
	return string(out)
}
