package applier_test

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
	"github.com/kcl-lang/flux-kcl-controller/internal/shard"
)

// A request for a KCLRun that the applier is reconciling waits for that
// reconcile and runs right after it, delivered once. It used to go back to
// the stream for the lease-busy delay (1 s, then 2 s): a policy's election
// arriving while a rollout's request reconciled the same KCLRun took 2–3 s.
func TestRequestDuringAReconcileRunsRightAfterIt(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)
	art := publishProgram(t, ns, "web", configMap("settings", "one"))
	createKCLRun(t, ns, "web", "web")
	readyAt(t, ns, "web", art.Revision)
	key := ns + "/web"
	before := len(tracker.outcomesOf(key))

	release := tracker.hold(key)
	defer release()
	request(t, ns, "web", reconcilerequest.ReasonRequested)
	g.Eventually(func() int { return tracker.running(key) }, "1m").Should(Equal(1), "the first reconcile started")
	second := publishAndWaitDelivered(t, ns, "web", reconcilerequest.ReasonImagePolicyChanged)
	release()

	g.Eventually(func() int { return len(tracker.outcomesOf(key)) }, "1m").Should(BeNumerically(">=", before+2))
	outs := tracker.outcomesOf(key)[before:]
	g.Expect(outs[0].Request.Reason).To(Equal(reconcilerequest.ReasonRequested))
	g.Expect(outs[1].Request.Reason).To(Equal(reconcilerequest.ReasonImagePolicyChanged))
	g.Expect(outs[1].Delivered).To(BeEquivalentTo(1), "request %d was handed back to the stream and delivered again", second)
	waitQuiet(t, key)
	assertNoOverlap(t)
}

// publishAndWaitDelivered publishes a request and waits until the consumer
// delivered it to an applier; it returns its stream sequence.
func publishAndWaitDelivered(t *testing.T, namespace, name string, reason reconcilerequest.Reason) uint64 {
	t.Helper()
	js, done := suiteJetStream(t)
	defer done()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pub, err := reconcilerequest.NewPublisher(js, "").Publish(ctx, reconcilerequest.Request{Namespace: namespace, Name: name, Reason: reason},
		"test/delivered/"+namespace+"/"+name+"/"+string(reason))
	if err != nil {
		t.Fatal(err)
	}
	NewWithT(t).Eventually(func(g Gomega) uint64 {
		c, err := js.Consumer(ctx, shard.Name("").Stream(), shard.Name("").Consumer())
		g.Expect(err).NotTo(HaveOccurred())
		info, err := c.Info(ctx)
		g.Expect(err).NotTo(HaveOccurred())
		return info.Delivered.Stream
	}, "1m", "50ms").Should(BeNumerically(">=", pub.Sequence))
	return pub.Sequence
}
