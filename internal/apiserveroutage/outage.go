// Package apiserveroutage lets the services follow a kube-apiserver outage
// closely instead of through client-go's backoffs. A reflector whose watch
// fails with a refused connection waits 0.8 s doubling, with jitter, up to
// 30 s before it tries again: after a 16 s outage the informers listed again
// about 27 s after the apiserver was back, and every change made meanwhile
// waited for them.
//
// A Gate probes the apiserver's /readyz, only while a caller saw it
// unreachable, and tells every waiter the moment it answers again. Its
// ListerWatcher wraps an informer's so that a list or watch refused by a
// down apiserver waits for the Gate and tries again at once; the reflector
// never sees the error, so its backoff does not grow through the outage.
//
//	gate, _ := apiserveroutage.New(restConfig)
//	informer := toolscache.NewSharedIndexInformer(gate.ListerWatcher(lw), obj, resync, indexers)
//	if apiserveroutage.Unavailable(err) { wasDown, _ := gate.WaitBack(ctx) }
package apiserveroutage

import (
	"context"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

// Probe intervals: the first probe is at once, then every firstInterval
// doubling up to maxInterval, so the apiserver is seen back within half a
// second of being ready and a long outage costs two refused connections a
// second.
const (
	firstInterval = 100 * time.Millisecond
	maxInterval   = 500 * time.Millisecond
	probeTimeout  = 2 * time.Second
)

// Unavailable reports whether err says the apiserver could not be reached
// or is not serving yet (refused or reset connection, a connection cut
// mid-response, 503), as opposed to an answer to the request itself.
func Unavailable(err error) bool {
	if err == nil {
		return false
	}
	return utilnet.IsConnectionRefused(err) || utilnet.IsConnectionReset(err) ||
		utilnet.IsProbableEOF(err) || apierrors.IsServiceUnavailable(err)
}

// Gate tracks whether the apiserver is back after a caller found it
// unavailable. One probe loop serves every waiter; none runs while nobody
// waits, so a healthy apiserver costs nothing.
type Gate struct {
	probe func(ctx context.Context) error

	mu    sync.Mutex
	round *round // the probing in progress; nil when nobody waits
}

// round is one run of probes, from the first waiter until a probe succeeds.
type round struct {
	waiters int
	cancel  context.CancelFunc
	// first is closed after the first probe; firstOK is its result.
	first   chan struct{}
	firstOK bool
	// back is closed when a probe succeeded.
	back chan struct{}
}

// New returns a Gate probing the apiserver of cfg at /readyz, which answers
// only once the apiserver serves every API again (its CRDs included).
func New(cfg *rest.Config) (*Gate, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.Timeout = probeTimeout
	// The probes are few and must not wait behind the client's own requests.
	cfg.RateLimiter = nil
	cfg.QPS, cfg.Burst = -1, 0
	cfg.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	client, err := rest.UnversionedRESTClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("building the apiserver readiness probe: %w", err)
	}
	return NewWithProbe(func(ctx context.Context) error {
		return client.Get().AbsPath("/readyz").Do(ctx).Error()
	}), nil
}

// NewWithProbe returns a Gate that calls probe (nil error: the apiserver is
// ready); for tests and other health endpoints.
func NewWithProbe(probe func(ctx context.Context) error) *Gate {
	return &Gate{probe: probe}
}

// WaitBack returns once the apiserver is ready: at once, with wasDown
// false, if the first probe finds it ready (the failure that sent the
// caller here was not an outage, so it should back off as usual); else
// when a later probe does, with wasDown true. It returns ctx's error if ctx
// ends first.
func (g *Gate) WaitBack(ctx context.Context) (wasDown bool, err error) {
	r := g.join()
	defer g.leave(r)
	select {
	case <-r.first:
	case <-ctx.Done():
		return false, ctx.Err()
	}
	if r.firstOK {
		return false, nil
	}
	select {
	case <-r.back:
		return true, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

func (g *Gate) join() *round {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.round == nil {
		ctx, cancel := context.WithCancel(context.Background())
		g.round = &round{cancel: cancel, first: make(chan struct{}), back: make(chan struct{})}
		go g.run(ctx, g.round)
	}
	g.round.waiters++
	return g.round
}

// leave stops the probes when the last waiter of an unfinished round gives up.
func (g *Gate) leave(r *round) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r.waiters--
	if r.waiters == 0 && g.round == r {
		g.round = nil
		r.cancel()
	}
}

func (g *Gate) run(ctx context.Context, r *round) {
	defer r.cancel()
	interval := firstInterval
	for attempt := 0; ; attempt++ {
		ok := g.probeOnce(ctx)
		if attempt == 0 {
			r.firstOK = ok
			close(r.first)
		}
		if ok {
			g.mu.Lock()
			if g.round == r {
				g.round = nil
			}
			g.mu.Unlock()
			close(r.back)
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(interval):
		}
		interval = min(2*interval, maxInterval)
	}
}

func (g *Gate) probeOnce(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	return g.probe(ctx) == nil
}
