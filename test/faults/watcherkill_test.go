package faults

import (
	"testing"
	"time"

	"github.com/kcl-lang/flux-kcl-controller/loadtest/fault"
)

// The watcher is SIGKILLed while changes keep coming and restarted after the outage: the
// changes it did not see are picked up by the resync of its restart (a Created request for
// every KCLRun listed), and every KCLRun converges.
func TestWatcherKilled(t *testing.T) {
	f := startFleet(t, fleetOptions{})
	f.addTenants(f.opts.tenants)
	t.Logf("initial convergence of %d KCLRuns: %s", len(f.tenants), f.waitConverged().Round(time.Millisecond))
	s := f.startStream(100 * time.Millisecond)
	s.waitChanges(t, 4)
	f.runFault(fault.Kill(f.watcher, ""), s, *outage, nil)
}
