package driver

import (
	"runtime"
	"sync"
	"time"
)

// calibrationSpin is how long each spinner of machineSpeedup runs.
const calibrationSpin = 1500 * time.Millisecond

// machineSpeedup measures what the machine itself gives for n busy threads:
// the work n spinners (each on its own OS thread) get done in a fixed time
// over what one spinner alone gets done. On a dedicated 2-core machine it is
// near 2 for n = 2; on a VM whose vCPUs share physical cores it is lower, and
// no set of n processes can scale past it. The scale-out reports it beside
// the workers' speedup.
func machineSpeedup(n int) float64 {
	n = min(n, runtime.NumCPU())
	if n <= 1 {
		return 1
	}
	one := spin(1)
	if one == 0 {
		return 0
	}
	return spin(n) / one
}

// spin runs n spinners for calibrationSpin and returns the iterations done.
func spin(n int) float64 {
	var wg sync.WaitGroup
	counts := make([]uint64, n)
	deadline := time.Now().Add(calibrationSpin)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var c, x uint64 = 0, 1
			for time.Now().Before(deadline) {
				for range 1 << 14 {
					x ^= x << 13
					x ^= x >> 7
					x ^= x << 17
				}
				c++
			}
			counts[i] = c + x&1 // x keeps the loop from being optimised away
		}()
	}
	wg.Wait()
	var total float64
	for _, c := range counts {
		total += float64(c)
	}
	return total
}
