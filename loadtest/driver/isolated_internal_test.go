package driver

import (
	"testing"
	"time"
)

func TestOverlapRateCountsOnlyWhileAllUnitsRan(t *testing.T) {
	ms := func(n int64) int64 { return n * int64(time.Millisecond) }
	results := []unitResult{
		// Starts first, ends last: its completions before 100 ms and after 1,000 ms
		// are outside the overlap.
		{Start: 0, Done: []int64{ms(50), ms(200), ms(400), ms(600), ms(800), ms(1000), ms(1500)}},
		// Starts at 100 ms, ends first at 1,000 ms.
		{Start: ms(100), Done: []int64{ms(300), ms(500), ms(700), ms(900), ms(1000)}},
	}
	// 5 + 5 completions in (100 ms, 1,000 ms]: 10 in 0.9 s.
	if got, want := overlapRate(results), 10/0.9; got < want-1e-9 || got > want+1e-9 {
		t.Errorf("overlapRate = %v, want %v", got, want)
	}
	if got := overlapRate([]unitResult{{Start: ms(10), Done: []int64{ms(5)}}}); got != 0 {
		t.Errorf("a unit that ended before it started: %v, want 0", got)
	}
}
