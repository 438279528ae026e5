package faults

import (
	"context"
	"testing"
	"time"

	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/internal/harness/kube"
	"github.com/kcl-lang/flux-kcl-controller/loadtest/fault"
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
	wc, err := client.NewWithWatch(suite.env.Config, client.Options{Scheme: kube.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	w, err := wc.Watch(ctx, &corev1.ConfigMapList{}, client.InNamespace(target.ns))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if err := f.publish(ctx, target, nil); err != nil {
		t.Fatal(err)
	}
	revision := target.source.(*sourcev1.GitRepository).Status.Artifact.Revision
	firstWrite(t, w, revision)

	sum, err := fault.ReadJournal(f.journal)
	if err != nil {
		t.Fatal(err)
	}
	holders := sum.Open[target.key()]
	if len(holders) != 1 {
		t.Fatalf("%s is held by %v while its objects are written", target.key(), holders)
	}
	var victim *fault.Process
	for _, p := range f.appliers {
		if p.PID() == holders[0] {
			victim = p
		}
	}
	if victim == nil {
		t.Fatalf("no applier has pid %d", holders[0])
	}
	f.runFault(fault.Kill(victim, f.journal), s, 2*time.Second, func() {
		applied := 0
		var cms corev1.ConfigMapList
		if err := suite.env.Client.List(ctx, &cms, client.InNamespace(target.ns)); err == nil {
			for _, cm := range cms.Items {
				if cm.Data["rev"] == revision {
					applied++
				}
			}
		}
		t.Logf("%s killed in the apply of %s: %d of %d ConfigMaps of the new revision written", victim.Name, target.key(), applied, objects)
		// A newer change replaces the request the killed applier held (unacked, it would
		// otherwise be redelivered only after the consumer's ack wait).
		if err := f.flip(ctx, target); err != nil {
			t.Error(err)
		}
	})
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
