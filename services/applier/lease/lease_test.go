package lease

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/kcl-lang/flux-kcl-controller/test/harness/natsserver"
)

func openLeases(t *testing.T, srv *natsserver.Server, holder string, ttl time.Duration) *Leases {
	t.Helper()
	nc, err := srv.Connect()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	l, err := Open(context.Background(), js, Config{Bucket: "leases", TTL: ttl, Holder: holder})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// Two holders on separate connections race for the same keys many times; at
// no moment may two of them be inside the work for one key.
func TestHoldExcludesAcrossHolders(t *testing.T) {
	srv := natsserver.StartT(t)
	a := openLeases(t, srv, "a", 10*time.Second)
	b := openLeases(t, srv, "b", 10*time.Second)

	var inside [4]atomic.Int32
	var overlaps, ran atomic.Int32
	var wg sync.WaitGroup
	for w, l := range []*Leases{a, b, a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				k := (i + w) % len(inside)
				err := l.Hold(context.Background(), Key("ns", string(rune('a'+k))), func(ctx context.Context) error {
					if inside[k].Add(1) > 1 {
						overlaps.Add(1)
					}
					ran.Add(1)
					time.Sleep(time.Millisecond)
					inside[k].Add(-1)
					return nil
				})
				if err != nil && !errors.Is(err, ErrHeld) {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if overlaps.Load() != 0 {
		t.Fatalf("%d overlapping holds", overlaps.Load())
	}
	if ran.Load() == 0 {
		t.Fatal("no hold ever ran")
	}
}

func TestHoldReturnsWorkErrorAndReleases(t *testing.T) {
	srv := natsserver.StartT(t)
	l := openLeases(t, srv, "a", 10*time.Second)
	boom := errors.New("boom")
	if err := l.Hold(context.Background(), "ns.x", func(context.Context) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("Hold = %v, want %v", err, boom)
	}
	if err := l.Hold(context.Background(), "ns.x", func(context.Context) error { return nil }); err != nil {
		t.Fatalf("lease not released after a failed work: %v", err)
	}
}

// A lease renewed by its holder outlives its TTL; a rival is refused throughout.
func TestHoldRenewsPastTTL(t *testing.T) {
	srv := natsserver.StartT(t)
	a := openLeases(t, srv, "a", time.Second)
	b := openLeases(t, srv, "b", time.Second)
	release := make(chan struct{})
	held := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- a.Hold(context.Background(), "ns.long", func(ctx context.Context) error {
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
	// Poll the rival across three TTLs; each attempt must be refused.
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		if err := b.Hold(context.Background(), "ns.long", func(context.Context) error { return nil }); !errors.Is(err, ErrHeld) {
			t.Fatalf("rival got the lease while it was renewed: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// When the key is taken away (expired, or deleted by an operator), the next
// renewal fails and the work's context is cancelled with ErrLost.
func TestHoldCancelsWorkWhenLeaseIsLost(t *testing.T) {
	srv := natsserver.StartT(t)
	l := openLeases(t, srv, "a", 3*time.Second)
	err := l.Hold(context.Background(), "ns.lost", func(ctx context.Context) error {
		if err := l.kv.Purge(context.Background(), "ns.lost"); err != nil {
			return err
		}
		<-ctx.Done()
		return context.Cause(ctx)
	})
	if !errors.Is(err, ErrLost) {
		t.Fatalf("Hold = %v, want ErrLost", err)
	}
}

// With the server away nothing can be held: Hold says the bucket is unavailable (to be
// retried soon), not that the work failed or the lease is someone else's.
func TestHoldReportsAnUnavailableBucket(t *testing.T) {
	srv := natsserver.StartT(t)
	l := openLeases(t, srv, "a", 10*time.Second)
	srv.Shutdown()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	ran := false
	err := l.Hold(ctx, "ns.down", func(context.Context) error { ran = true; return nil })
	if !errors.Is(err, ErrUnavailable) || errors.Is(err, ErrHeld) || ran {
		t.Fatalf("Hold = %v (work ran: %v), want ErrUnavailable", err, ran)
	}
}
