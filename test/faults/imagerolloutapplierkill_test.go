package faults

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/loadtest/fault"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/kube"
)

// The applier giving the canary stage its new image is SIGKILLed in the middle of the
// apply (the first of its ConfigMaps at the target written, not all), while new revisions
// of the rest tenants keep coming. No newer change replaces the request it held: JetStream
// redelivers it after the consumer's ack wait (reconcilerequest.DefaultAckWait, 30 s) to
// the other applier, once the lease expired. Then the canary bakes and the rollout
// completes, in order, with nothing lost and its status never reset (the canary admitted
// once).
func TestImageRolloutApplierKilledMidStage(t *testing.T) {
	const objects = 30
	rf := startRolloutFleet(t, fleetOptions{objects: objects}, 2*time.Second)
	s := rf.startStream(200*time.Millisecond, rf.canary)
	s.waitChanges(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), convergeTimeout)
	defer cancel()
	target, victim := rf.catchCanaryApply(ctx)
	rf.runFault(faultLogged{Fault: fault.Kill(victim, rf.journal), rf: rf}, s, 2*time.Second, func() {
		t.Logf("%s killed in the apply of %s to %s: %d of %d ConfigMaps at it", victim.Name, target, rf.canary.key(), countImage(ctx, rf.canary, target), objects)
	})
	rf.waitCompleted(target)
	rf.checkRollout(target)
}

// catchCanaryApply elects 2.0.0 and returns it with the applier caught between the first
// and the last ConfigMap write of the canary at it. An apply too quick to catch is followed
// by a next election (a superseding target, which the canary stage takes first again).
func (rf *rolloutFleet) catchCanaryApply(ctx context.Context) (string, *fault.Process) {
	t := rf.t
	t.Helper()
	wc, err := client.NewWithWatch(suite.Env.Config, client.Options{Scheme: kube.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	w, err := wc.Watch(ctx, &corev1.ConfigMapList{}, client.InNamespace(rf.canary.ns))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	for major := 2; major <= 6; major++ {
		target := rf.elect(fmt.Sprintf("%d.0.0", major))
		firstImage(t, w, target)
		if victim := holder(t, rf.fleet, rf.canary); victim != nil {
			return target, victim
		}
		t.Logf("the canary's apply of %s ended before the journal was read; next election", target)
		rf.waitStage(target, canaryStage, v1alpha1.StageBaking, v1alpha1.StageSucceeded)
	}
	t.Fatalf("no apply of the canary caught in flight in 5 elections")
	return "", nil
}

// firstImage waits for the first ConfigMap written with image.
func firstImage(t *testing.T, w watch.Interface, image string) {
	t.Helper()
	for ev := range w.ResultChan() {
		if cm, ok := ev.Object.(*corev1.ConfigMap); ok && cm.Data["image"] == image {
			return
		}
	}
	t.Fatalf("the watch ended before a ConfigMap at %s was written", image)
}

// countImage counts the tenant's ConfigMaps at image.
func countImage(ctx context.Context, tn *tenant, image string) int {
	var cms corev1.ConfigMapList
	if err := suite.Env.Client.List(ctx, &cms, client.InNamespace(tn.ns)); err != nil {
		return -1
	}
	n := 0
	for _, cm := range cms.Items {
		if cm.Data["image"] == image {
			n++
		}
	}
	return n
}
