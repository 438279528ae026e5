package faults

import (
	"testing"
	"time"

	"github.com/kcl-lang/flux-kcl-controller/loadtest/fault"
)

// kube-apiserver restarts (etcd keeps its data) in the middle of a stream of changes: the
// watcher's informers and the appliers' clients reconnect, reconciles cut by the outage are
// retried, and every KCLRun converges.
func TestAPIServerRestart(t *testing.T) {
	f := startFleet(t, fleetOptions{})
	f.addTenants(f.opts.tenants)
	t.Logf("initial convergence of %d KCLRuns: %s", len(f.tenants), f.waitConverged().Round(time.Millisecond))
	s := f.startStream(100 * time.Millisecond)
	s.waitChanges(t, 4)
	f.runFault(fault.APIServerRestart(suite.env), s, *outage, nil)
}
