package faults

import (
	"context"
	"testing"
	"time"

	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/loadtest/fault"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/kube"
)

// The applier holding a KCLRun is SIGKILLed in the middle of its server-side apply (the
// first of the new revision's ConfigMaps is written, not all): its lease expires after the
// TTL, the other replica takes over the newer request, and the KCLRun converges with no two
// reconciles at once.
func TestApplierKilledMidApply(t *testing.T) {
	const objects = 30
	f := startFleet(t, fleetOptions{objects: objects})
	f.addTenants(f.opts.tenants)
	t.Logf("initial convergence of %d KCLRuns: %s", len(f.tenants), f.waitConverged().Round(time.Millisecond))
	target := f.tenants[0]
	s := f.startStream(100*time.Millisecond, target)
	s.waitChanges(t, 4)

	ctx, cancel := context.WithTimeout(context.Background(), convergeTimeout)
	defer cancel()
	victim, revision := catchApply(ctx, t, f, target)
	f.runFault(fault.Kill(victim, f.journal), s, 2*time.Second, func() {
		applied := countRevision(ctx, target, revision)
		t.Logf("%s killed in the apply of %s: %d of %d ConfigMaps of the new revision written", victim.Name, target.key(), applied, objects)
		// A newer change replaces the request the killed applier held (unacked, it would
		// otherwise be redelivered only after the consumer's ack wait).
		if err := f.flip(ctx, target); err != nil {
			t.Error(err)
		}
	})
}

// catchApply publishes revisions of target until it catches an applier between the first
// and the last object write of one, and returns that applier and the revision.
func catchApply(ctx context.Context, t *testing.T, f *fleet, target *tenant) (*fault.Process, string) {
	t.Helper()
	wc, err := client.NewWithWatch(suite.Env.Config, client.Options{Scheme: kube.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	w, err := wc.Watch(ctx, &corev1.ConfigMapList{}, client.InNamespace(target.ns))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	// A very quick apply may finish before the journal is read: then the next revision.
	for attempt := 1; attempt <= 5; attempt++ {
		if err := f.publish(ctx, target, nil); err != nil {
			t.Fatal(err)
		}
		revision := target.source.(*sourcev1.GitRepository).Status.Artifact.Revision
		firstWrite(t, w, revision)
		if victim := holder(t, f, target); victim != nil {
			return victim, revision
		}
		t.Logf("the apply of %s ended before the journal was read; next revision", revision)
	}
	t.Fatalf("no apply of %s caught in flight in 5 revisions", target.key())
	return nil, ""
}

// countRevision counts the tenant's ConfigMaps at revision.
func countRevision(ctx context.Context, tn *tenant, revision string) int {
	var cms corev1.ConfigMapList
	if err := suite.Env.Client.List(ctx, &cms, client.InNamespace(tn.ns)); err != nil {
		return -1
	}
	n := 0
	for _, cm := range cms.Items {
		if cm.Data["rev"] == revision {
			n++
		}
	}
	return n
}

// holder is the applier process inside a reconcile of tn, nil if none.
func holder(t *testing.T, f *fleet, tn *tenant) *fault.Process {
	t.Helper()
	sum, err := fault.ReadJournal(f.journal)
	if err != nil {
		t.Fatal(err)
	}
	holders := sum.Open[tn.key()]
	if len(holders) > 1 {
		t.Fatalf("%s is held by %v at once", tn.key(), holders)
	}
	if len(holders) == 0 {
		return nil
	}
	for _, p := range f.appliers {
		if p.PID() == holders[0] {
			return p
		}
	}
	t.Fatalf("no applier has pid %d", holders[0])
	return nil
}

// firstWrite waits for the first ConfigMap written with revision.
func firstWrite(t *testing.T, w watch.Interface, revision string) {
	t.Helper()
	for ev := range w.ResultChan() {
		if cm, ok := ev.Object.(*corev1.ConfigMap); ok && cm.Data["rev"] == revision {
			return
		}
	}
	t.Fatalf("the watch ended before a ConfigMap of %s was written", revision)
}

// The applier is killed in the apply of the last change its KCLRun sees: no newer request
// replaces the one it held, so the KCLRun waits for JetStream to redeliver it, after the
// consumer's ack wait (reconcilerequest.DefaultAckWait, 30 s). Opt-in (-fault-ackwait): it measures that wait.
func TestApplierKilledOnTheLastChange(t *testing.T) {
	if !*ackWait {
		t.Skip("measures the consumer's ack wait (30 s): run with -args -fault-ackwait")
	}
	const objects = 30
	f := startFleet(t, fleetOptions{objects: objects, tenants: 1})
	f.addTenants(f.opts.tenants)
	t.Logf("initial convergence: %s", f.waitConverged().Round(time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), convergeTimeout)
	defer cancel()
	target := f.tenants[0]
	victim, revision := catchApply(ctx, t, f, target)
	s := f.startStream(time.Hour, target) // no changes: only the fault
	f.runFault(fault.Kill(victim, f.journal), s, 0, func() {
		t.Logf("%s killed in the apply of %s: %d of %d ConfigMaps written", victim.Name, target.key(), countRevision(ctx, target, revision), objects)
	})
}
