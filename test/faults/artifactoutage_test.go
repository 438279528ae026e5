package faults

import (
	"testing"
	"time"

	"github.com/kcl-lang/flux-kcl-controller/loadtest/fault"
)

// The artifact server (source-controller's storage) refuses connections while sources keep
// announcing new revisions: fetches fail as transient errors, are retried with backoff,
// and every KCLRun catches up once it is back.
func TestArtifactServerOutage(t *testing.T) {
	f := startFleet(t, fleetOptions{})
	f.addTenants(f.opts.tenants)
	t.Logf("initial convergence of %d KCLRuns: %s", len(f.tenants), f.waitConverged().Round(time.Millisecond))
	s := f.startStream(100 * time.Millisecond)
	s.waitChanges(t, 4)
	f.runFault(fault.ArtifactServerOutage(f.artifacts), s, *outage, nil)
}
