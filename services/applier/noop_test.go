package applier_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	. "github.com/onsi/gomega"

	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
	"github.com/kcl-lang/flux-kcl-controller/internal/shard"
	"github.com/kcl-lang/flux-kcl-controller/services/applier"
	"github.com/kcl-lang/flux-kcl-controller/services/applier/lease"
)

// A request that changes nothing neither compiles nor writes; the test
// measures its apiserver writes and duration, and the latency of a real
// change for comparison.
func TestNoOpReconcileWritesNothing(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)
	artifact := publishProgram(t, ns, "app", webApp(1, true))
	createKCLRun(t, ns, "web", "app")
	readyAt(t, ns, "web", artifact.Revision)
	key := ns + "/web"
	// A no-op is known by the record the last apply stored in the bucket. A
	// write the bucket could not take (it pauses writes for a second after
	// one, as while JetStream recovers from the previous test's restart)
	// costs one more apply, which stores it: that apply is not measured.
	for try := 0; ; try++ {
		waitQuiet(t, key)
		if fingerprintStored(t, ns, "web") {
			break
		}
		if try == 3 {
			t.Fatalf("no fingerprint stored after %d applies: %s", try+1, tracker.since(key, 0))
		}
		requestAndWait(t, ns, "web", reconcilerequest.ReasonRequested)
	}

	const rounds = 10
	var noop []time.Duration
	var writesPerNoop []int64
	for range rounds {
		// Let drift requests caused by the last apply drain first.
		waitQuiet(t, key)
		n, start, before := tracker.count(key), time.Now(), writes.n.Load()
		request(t, ns, "web", reconcilerequest.ReasonRequested)
		g.Eventually(func() int { return tracker.count(key) }, "1m", "5ms").Should(BeNumerically(">", n))
		noop = append(noop, time.Since(start))
		writesPerNoop = append(writesPerNoop, writes.n.Load()-before)
		g.Expect(tracker.last(key).Result).To(Equal(applier.ResultNoOp), "reconciles since the request: %s (all: %s)", tracker.since(key, n), tracker.since(key, 0))
	}
	for _, w := range writesPerNoop {
		g.Expect(w).To(BeZero(), "apiserver writes during a no-op reconcile")
	}

	var change []time.Duration
	for i := range rounds {
		waitQuiet(t, key)
		a := publishProgram(t, ns, "app", webApp(2+i, true))
		start := time.Now()
		request(t, ns, "web", reconcilerequest.ReasonSourceChanged)
		readyAt(t, ns, "web", a.Revision)
		change = append(change, time.Since(start))
	}
	t.Logf("no-op reconcile (request to settled): writes %v, median %s, max %s", writesPerNoop, median(noop), maxOf(noop))
	t.Logf("new revision (request to Ready observed): median %s, max %s", median(change), maxOf(change))
	assertNoOverlap(t)
}

// fingerprintStored reports whether the bucket holds a record of the last
// apply of namespace/name.
func fingerprintStored(t testing.TB, namespace, name string) bool {
	t.Helper()
	js, done := suiteJetStream(t)
	defer done()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	kv, err := js.KeyValue(ctx, shard.Name("").FingerprintBucket())
	if err != nil {
		t.Fatal(err)
	}
	_, err = kv.Get(ctx, lease.Key(namespace, name))
	if err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
		t.Fatal(err)
	}
	return err == nil
}

// waitQuiet waits until key has nothing left to reconcile: no reconcile of it
// running, no request for it in the stream (one requeued for a while, as a
// drift request that found the lease held is for 1 s, included) and no
// reconcile finished for a moment (a drift request an apply caused may still
// be on its way to the stream).
func waitQuiet(t testing.TB, key string) {
	t.Helper()
	namespace, name, _ := strings.Cut(key, "/")
	js, done := suiteJetStream(t)
	defer done()
	last := -1
	NewWithT(t).Eventually(func(g Gomega) {
		n := tracker.count(key)
		quiet := n == last
		last = n
		g.Expect(quiet).To(BeTrue(), "a reconcile finished since the last look")
		g.Expect(tracker.running(key)).To(BeZero(), "reconciles running")
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		stream, err := js.Stream(ctx, shard.Name("").Stream())
		g.Expect(err).NotTo(HaveOccurred())
		// State.Msgs counts the whole stream, whatever the filter: the
		// filter only fills State.Subjects, this KCLRun's count.
		subject := reconcilerequest.Subject("", namespace, name)
		info, err := stream.Info(ctx, jetstream.WithSubjectFilter(subject))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(info.State.Subjects[subject]).To(BeZero(), "requests in the stream: %s", describeLeft(ctx, js, stream, namespace, name))
	}, "1m", "700ms").Should(Succeed())
}

// describeLeft says what the stream holds and where the consumer is with it,
// so that a test that fails waiting names its cause: the oldest request not
// acknowledged, and the reconciles still running.
func describeLeft(ctx context.Context, js jetstream.JetStream, stream jetstream.Stream, namespace, name string) string {
	var b strings.Builder
	describe := func(what string, m *jetstream.RawStreamMsg) {
		req, _ := reconcilerequest.Decode(m.Data)
		fmt.Fprintf(&b, "%s: seq %d at %s, id %q, request %+v; ", what, m.Sequence, m.Time.Format(time.RFC3339Nano), m.Header.Get(jetstream.MsgIDHeader), req)
	}
	if m, err := stream.GetLastMsgForSubject(ctx, reconcilerequest.Subject("", namespace, name)); err == nil {
		describe("this KCLRun's", m)
	}
	if c, err := js.Consumer(ctx, shard.Name("").Stream(), shard.Name("").Consumer()); err == nil {
		if ci, err := c.Info(ctx); err == nil {
			fmt.Fprintf(&b, "consumer: pending %d, ack pending %d, redelivered %d, waiting %d, delivered %d, ack floor %d; ",
				ci.NumPending, ci.NumAckPending, ci.NumRedelivered, ci.NumWaiting, ci.Delivered.Stream, ci.AckFloor.Stream)
			if m, err := stream.GetMsg(ctx, ci.AckFloor.Stream+1); err == nil {
				describe("oldest not acknowledged", m)
			}
		}
	}
	fmt.Fprintf(&b, "running: %v", tracker.runningKeys())
	return b.String()
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func maxOf(d []time.Duration) time.Duration {
	var m time.Duration
	for _, x := range d {
		m = max(m, x)
	}
	return m
}
