package applier

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/kcl-lang/flux-kcl-controller/test/harness/natsserver"
)

// A fingerprint bucket that cannot take a write (here a three-replica bucket with two of
// its three nodes down: no quorum) fails the write; the writes after it within
// fingerprintPause are skipped without asking the bucket, and the next one after the pause
// asks again.
func TestFingerprintWritesPauseWhileTheBucketIsUnavailable(t *testing.T) {
	c := natsserver.StartClusterT(t)
	nc, err := c.Connect()
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	kv, err := js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: "FINGERPRINTS", Replicas: 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.WaitStreamLeaders(ctx, natsserver.KVStream("FINGERPRINTS")); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	b := newFingerprintBucket(kv)
	b.now = func() time.Time { return now }
	if err := b.put(ctx, "team.app", "fp-1"); err != nil {
		t.Fatalf("a write with every node up: %v", err)
	}

	down := 0
	for i := range c.Nodes() {
		if down < 2 && c.Running(i) {
			c.Shutdown(i)
			down++
		}
	}
	// A bounded write, as a reconcile's would be by nats.go's default timeout.
	writeCtx, done := context.WithTimeout(ctx, 500*time.Millisecond)
	err = b.put(writeCtx, "team.app", "fp-2")
	done()
	if err == nil || errors.Is(err, errFingerprintsPaused) {
		t.Fatalf("a write without quorum: %v, want the bucket's failure", err)
	}
	if !bucketUnavailable(err) {
		t.Fatalf("a write without quorum failed with %v, which does not pause the writes", err)
	}
	if err := b.put(ctx, "team.app", "fp-3"); !errors.Is(err, errFingerprintsPaused) {
		t.Fatalf("a write right after: %v, want %v", err, errFingerprintsPaused)
	}
	if err := b.drop(ctx, "team.app"); !errors.Is(err, errFingerprintsPaused) {
		t.Fatalf("a delete right after: %v, want %v", err, errFingerprintsPaused)
	}

	now = now.Add(fingerprintPause)
	writeCtx, done = context.WithTimeout(ctx, 500*time.Millisecond)
	err = b.put(writeCtx, "team.app", "fp-4")
	done()
	if errors.Is(err, errFingerprintsPaused) {
		t.Fatalf("a write after the pause was skipped: %v", err)
	}
}
