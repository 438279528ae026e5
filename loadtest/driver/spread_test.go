package driver

import (
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/loadtest/tenant"
)

func TestSpreadPicksDistinctTenantsAcrossTheRange(t *testing.T) {
	ts := tenants(tenant.KCL, 1000)
	for _, m := range []int{1, 10, 100, 1000, 5000} {
		for _, offset := range []float64{0, 0.25, 0.5} {
			got := spread(ts, m, offset)
			if want := min(m, len(ts)); len(got) != want {
				t.Fatalf("spread(1000, %d, %v) picked %d, want %d", m, offset, len(got), want)
			}
			seen := map[int]bool{}
			for _, tn := range got {
				if seen[tn.Index] {
					t.Fatalf("spread(1000, %d, %v) picked tenant %d twice", m, offset, tn.Index)
				}
				seen[tn.Index] = true
			}
		}
	}
	if got := spread(ts, 4, 0); got[0].Index != 1 || got[3].Index != 751 {
		t.Errorf("spread(1000, 4, 0) = %d..%d, want 1..751", got[0].Index, got[3].Index)
	}
}
