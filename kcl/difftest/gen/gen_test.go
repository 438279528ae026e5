package gen

import (
	"testing"
)

// The same seed gives the same program, so that a divergence can be replayed.
func TestDeterministic(t *testing.T) {
	for seed := int64(0); seed < 50; seed++ {
		a, b := New(seed, Options{Broken: 0.1}), New(seed, Options{Broken: 0.1})
		if a.Source() != b.Source() {
			t.Fatalf("seed %d gives two programs", seed)
		}
	}
}
