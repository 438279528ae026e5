package faults

import (
	"context"
	"testing"
	"time"

	eventv1 "github.com/fluxcd/pkg/apis/event/v1"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"

	"github.com/kcl-lang/flux-kcl-controller/loadtest/fault"
)

// revisionKey is the event metadata key of the applied revision.
var revisionKey = v1alpha1.GroupVersion.Group + "/revision"

// notification-controller's receiver goes away during a stream of changes: nothing waits
// for it, every KCLRun converges, and events flow again once it is back.
func TestEventsReceiverOutage(t *testing.T) {
	f := startFleet(t, fleetOptions{})
	f.addTenants(f.opts.tenants)
	t.Logf("initial convergence of %d KCLRuns: %s", len(f.tenants), f.waitConverged().Round(time.Millisecond))
	s := f.startStream(100 * time.Millisecond)
	s.waitChanges(t, 4)
	f.runFault(fault.EventsReceiverOutage(f.events), s, *outage, nil)

	// A change after the outage is reported to the receiver again.
	tn := f.tenants[0]
	if err := f.publish(context.Background(), tn, nil); err != nil {
		t.Fatal(err)
	}
	f.waitConverged()
	revision := tn.source.(*sourcev1.GitRepository).Status.Artifact.Revision
	waitFor(t, "an event for the revision applied after the outage", func() bool {
		for _, ev := range f.events.Events() {
			if ev.InvolvedObject.Namespace == tn.ns && ev.Metadata[revisionKey] == revision && ev.Severity == eventv1.EventSeverityInfo {
				return true
			}
		}
		return false
	})
	t.Logf("%d events received in all", len(f.events.Events()))
}

// --events-addr names a port nobody listens on: reconciles are not slowed or blocked.
func TestEventsAddrRefused(t *testing.T) {
	addr, err := fault.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	f := startFleet(t, fleetOptions{eventsAddr: "http://" + addr})
	f.addTenants(f.opts.tenants)
	t.Logf("initial convergence of %d KCLRuns: %s", len(f.tenants), f.waitConverged().Round(time.Millisecond))
	s := f.startStream(100 * time.Millisecond)
	s.waitChanges(t, 12)
	s.stop()
	t.Logf("converged %s after %d changes with events refused", f.waitConverged().Round(time.Millisecond), s.changes.Load())
	f.checkSettled()
	f.checkJournal()
}
