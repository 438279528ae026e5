// Package lease gives one holder at a time the right to write for a key,
// across goroutines and across processes, using a JetStream key-value bucket:
// a lease is a key created with compare-and-set (Create fails when the key is
// live), kept alive by revision-checked updates, and dropped by a
// revision-checked delete. The bucket's MaxAge is the lease TTL, so the lease
// of a holder that died expires on its own.
package lease

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// ErrHeld reports that another holder owns the lease right now.
var ErrHeld = errors.New("lease held by another holder")

// ErrLost reports that the lease expired or was taken while its work ran.
var ErrLost = errors.New("lease lost")

// ErrUnavailable reports that the bucket could not be asked (NATS unreachable, or the
// bucket's stream without a leader while a cluster elects one): nothing was held, and
// trying again soon is all there is to do.
var ErrUnavailable = errors.New("lease bucket unavailable")

// Config tunes a lease bucket.
type Config struct {
	// Bucket is the KV bucket name.
	Bucket string
	// TTL is how long a lease lives without renewal.
	TTL time.Duration
	// Holder identifies this process in the bucket (for operators reading it).
	Holder string
	// Replicas of the bucket's stream; 1 for a single server.
	Replicas int
}

// Leases hands out leases from one bucket.
type Leases struct {
	kv  jetstream.KeyValue
	cfg Config
}

// Open creates (or binds to) the bucket.
func Open(ctx context.Context, js jetstream.JetStream, cfg Config) (*Leases, error) {
	if cfg.TTL <= 0 {
		return nil, fmt.Errorf("lease TTL must be positive, got %s", cfg.TTL)
	}
	if cfg.Replicas == 0 {
		cfg.Replicas = 1
	}
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      cfg.Bucket,
		Description: "flux-kcl-controller: one writer per KCLRun",
		History:     1,
		TTL:         cfg.TTL,
		Storage:     jetstream.FileStorage,
		Replicas:    cfg.Replicas,
	})
	if err != nil {
		return nil, fmt.Errorf("opening lease bucket %s: %w", cfg.Bucket, err)
	}
	return &Leases{kv: kv, cfg: cfg}, nil
}

// Key builds the lease key of a namespaced object; namespaces hold no dots,
// so "<namespace>.<name>" is unambiguous.
func Key(namespace, name string) string {
	return namespace + "." + strings.ReplaceAll(name, "/", "_")
}

// Hold runs work while holding the lease for key. It returns ErrHeld at once
// when someone else holds it. The context given to work is cancelled when a
// renewal fails, so writes stop before the lease could pass to another holder;
// Hold then returns an error wrapping ErrLost.
func (l *Leases) Hold(ctx context.Context, key string, work func(ctx context.Context) error) error {
	rev, err := l.kv.Create(ctx, key, []byte(l.cfg.Holder))
	if err != nil {
		if errors.Is(err, jetstream.ErrKeyExists) {
			return ErrHeld
		}
		return fmt.Errorf("%w: acquiring lease %s: %w", ErrUnavailable, key, err)
	}

	workCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	renewed := make(chan uint64, 1)
	go func() {
		renewed <- l.renew(workCtx, key, rev, cancel)
	}()

	workErr := work(workCtx)
	lost := context.Cause(workCtx)
	cancel(nil)
	rev = <-renewed

	if errors.Is(lost, ErrLost) {
		return errors.Join(lost, workErr)
	}
	// Release with a fresh context: the caller's may be done, and a lease
	// left behind would block the key for a whole TTL.
	releaseCtx, done := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer done()
	if err := l.kv.Delete(releaseCtx, key, jetstream.LastRevision(rev)); err != nil {
		return errors.Join(workErr, fmt.Errorf("releasing lease %s: %w", key, err))
	}
	return workErr
}

// renew keeps the lease alive at a third of its TTL until ctx ends, and
// returns the last revision it wrote.
func (l *Leases) renew(ctx context.Context, key string, rev uint64, cancel context.CancelCauseFunc) uint64 {
	ticker := time.NewTicker(l.cfg.TTL / 3)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return rev
		case <-ticker.C:
			next, err := l.kv.Update(ctx, key, []byte(l.cfg.Holder), rev)
			if err != nil {
				if ctx.Err() != nil {
					return rev
				}
				cancel(fmt.Errorf("%w: renewing %s: %w", ErrLost, key, err))
				return rev
			}
			rev = next
		}
	}
}
