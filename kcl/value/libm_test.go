package value

import (
	"math"
	"testing"
)

func TestLibm(t *testing.T) {
	// values where the C library (and the engine) differ from Go's math
	if got := LibmExp(-6.89); got != 0.0010179138409954387 {
		t.Errorf("exp: %v", got)
	}
	if got := LibmExpm1(-10.89); got != -0.9999813562576685 { // correctly rounded
		t.Errorf("expm1: %v", got)
	}
	for _, x := range []float64{0.5, 1, 2, 3.7, 1e-10, 123456.789, 1e300} {
		if d := math.Abs(LibmLog(x)-math.Log(x)) / math.Abs(math.Log(x)+1e-300); d > 1e-15 {
			t.Errorf("log(%v) = %v vs %v", x, LibmLog(x), math.Log(x))
		}
	}
	if LibmLog10(1000) != 3 || LibmLog2(8) != 3 {
		t.Error("exact logs")
	}
	cases := [][3]float64{{2, 10, 1024}, {2, -1, 0.5}, {-2, 3, -8}, {9, 0.5, 3}, {10, 22, 1e22}}
	for _, c := range cases {
		if got := LibmPow(c[0], c[1]); got != c[2] {
			t.Errorf("pow(%v, %v) = %v", c[0], c[1], got)
		}
	}
	if !math.IsNaN(LibmPow(-2, 0.5)) {
		t.Error("pow of a negative to a fraction")
	}
}
