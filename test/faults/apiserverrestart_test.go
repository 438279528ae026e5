package faults

import (
	"context"
	"testing"
	"time"

	"github.com/kcl-lang/flux-kcl-controller/loadtest/fault"
)

// kube-apiserver restarts (etcd keeps its data) in the middle of a stream of changes: the
// watcher's informers and the appliers' clients reconnect, reconciles cut by the outage are
// retried, and every KCLRun converges. As soon as the apiserver is back every tenant gets a
// new revision, before the informers could have listed again: the watcher sees those
// changes once its informers watch again, which they do when the apiserver answers
// (internal/apiserveroutage), not after client-go's reflector backoff (up to 30 s).
func TestAPIServerRestart(t *testing.T) {
	f := startFleet(t, fleetOptions{})
	f.addTenants(f.opts.tenants)
	t.Logf("initial convergence of %d KCLRuns: %s", len(f.tenants), f.waitConverged().Round(time.Millisecond))
	s := f.startStream(100 * time.Millisecond)
	s.waitChanges(t, 4)
	rep := f.runFault(changedWhenBack{Fault: fault.APIServerRestart(suite.Env), f: f}, s, *outage, nil)
	t.Logf("changes made as the apiserver came back applied %s later", rep.Recovery.Round(time.Millisecond))
}

// changedWhenBack gives every tenant a new revision right after the apiserver is back (the
// stream of changes has stopped by then).
type changedWhenBack struct {
	fault.Fault
	f *fleet
}

func (c changedWhenBack) Recover(ctx context.Context) error {
	if err := c.Fault.Recover(ctx); err != nil {
		return err
	}
	for _, tn := range c.f.tenants {
		if err := c.f.publish(ctx, tn, nil); err != nil {
			return err
		}
	}
	return nil
}
