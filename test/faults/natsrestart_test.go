package faults

import (
	"testing"
	"time"

	"github.com/kcl-lang/flux-kcl-controller/loadtest/fault"
)

// NATS goes down (JetStream store kept) while changes keep coming: the watcher retries its
// publishes, the appliers rebind their consumer and retry their acks; every change lands.
func TestNATSRestart(t *testing.T) {
	f := startFleet(t, fleetOptions{})
	f.addTenants(f.opts.tenants)
	t.Logf("initial convergence of %d KCLRuns: %s", len(f.tenants), f.waitConverged().Round(time.Millisecond))
	s := f.startStream(100 * time.Millisecond)
	s.waitChanges(t, 4)
	f.runFault(fault.NATSRestart(f.nats), s, *outage, nil)
}
