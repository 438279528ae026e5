package lease

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/kcl-lang/flux-kcl-controller/test/harness/natsserver"
)

// An R3 lease bucket on a three-node cluster: opening it again (another applier, a
// restart) keeps it as it is, and when the node leading it dies while a lease is held,
// a rival gets the lease only after the holder's work has ended (it keeps renewing, or
// loses the lease and stops), never beside it.
func TestR3LeaseSurvivesItsLeaderDying(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := natsserver.StartClusterT(t)
	open := func(holder string) *Leases {
		t.Helper()
		nc, err := c.Connect()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		js, err := jetstream.New(nc)
		if err != nil {
			t.Fatal(err)
		}
		l, err := Open(ctx, js, Config{Bucket: "leases", TTL: 3 * time.Second, Holder: holder, Replicas: 3})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	a, b := open("a"), open("b")
	st, err := a.kv.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r := st.(*jetstream.KeyValueBucketStatus).StreamInfo().Config.Replicas; r != 3 {
		t.Fatalf("bucket has %d replicas, want 3", r)
	}
	stream := natsserver.KVStream("leases")
	if err := c.WaitStreamLeaders(ctx, stream); err != nil {
		t.Fatal(err)
	}

	var inside atomic.Bool
	held := make(chan struct{})
	release := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- a.Hold(ctx, "ns.app", func(ctx context.Context) error {
			inside.Store(true)
			defer inside.Store(false)
			close(held)
			select {
			case <-release:
				return nil
			case <-ctx.Done():
				return context.Cause(ctx)
			}
		})
	}()
	<-held
	c.Shutdown(c.StreamLeader(stream))
	// Across three TTLs the rival polls; whenever it gets in, the holder must be out.
	deadline := time.Now().Add(9 * time.Second)
	for time.Now().Before(deadline) {
		err := b.Hold(ctx, "ns.app", func(context.Context) error {
			if inside.Load() {
				t.Error("the rival holds the lease beside its holder")
			}
			return nil
		})
		if err != nil && !errors.Is(err, ErrHeld) {
			t.Logf("rival: %v", err) // no leader yet: acquiring fails, as it would in the applier
		}
		time.Sleep(100 * time.Millisecond)
	}
	close(release)
	if err := <-done; err != nil && !errors.Is(err, ErrLost) {
		t.Fatal(err)
	}
}
