package applier

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
	"github.com/kcl-lang/flux-kcl-controller/services/applier/lease"
)

// leaseBusyDelay is how long a request first waits when another reconcile of
// the same KCLRun is in flight (the newest request replaces it on its
// subject meanwhile); each further delivery waits one more, up to
// leaseBusyMaxDelay, so a long health check is not polled every second.
const (
	leaseBusyDelay    = time.Second
	leaseBusyMaxDelay = 10 * time.Second
)

// consume pulls requests and runs up to Concurrent of them at once. It binds
// to the consumer again whenever the iterator stops (e.g. NATS restarted).
func (s *Service) consume(ctx context.Context, wg *sync.WaitGroup) error {
	slots := make(chan struct{}, s.cfg.Concurrent)
	for attempt := 0; ; attempt++ {
		if ctx.Err() != nil {
			return nil
		}
		cons, err := s.js.Consumer(ctx, reconcilerequest.StreamName, reconcilerequest.ConsumerName)
		if err == nil {
			var it jetstream.MessagesContext
			it, err = cons.Messages(jetstream.PullMaxMessages(s.cfg.Concurrent))
			if err == nil {
				attempt = 0
				s.ready.Do(func() { close(s.isUp) })
				s.drain(ctx, wg, it, slots)
				continue
			}
		}
		if ctx.Err() != nil {
			return nil
		}
		s.log.Error(err, "binding the reconcile request consumer, retrying")
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(backoff(attempt, 5*time.Second)):
		}
	}
}

func (s *Service) drain(ctx context.Context, wg *sync.WaitGroup, it jetstream.MessagesContext, slots chan struct{}) {
	stop := context.AfterFunc(ctx, it.Stop)
	defer stop()
	defer it.Stop()
	for {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return
		}
		msg, err := it.Next()
		if err != nil {
			<-slots
			if ctx.Err() != nil || errors.Is(err, jetstream.ErrMsgIteratorClosed) {
				return
			}
			s.log.V(1).Info("reconcile request iterator", "error", err.Error())
			if errors.Is(err, jetstream.ErrConsumerDeleted) || errors.Is(err, jetstream.ErrConsumerNotFound) {
				return
			}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			s.handle(ctx, msg)
		}()
	}
}

// handle reconciles under the KCLRun's lease and settles the message: ack
// once status is written, nak with a delay to retry.
func (s *Service) handle(ctx context.Context, msg jetstream.Msg) {
	req, err := reconcilerequest.Decode(msg.Data())
	if err != nil {
		s.log.Error(err, "dropping undecodable reconcile request", "subject", msg.Subject())
		_ = msg.Term()
		return
	}
	delivered := uint64(1)
	if md, err := msg.Metadata(); err == nil {
		delivered = md.NumDelivered
	}
	log := s.log.WithValues("kclrun", req.Key(), "reason", req.Reason)

	var out Outcome
	err = s.leases.Hold(ctx, lease.Key(req.Namespace, req.Name), func(ctx context.Context) error {
		stop := keepInProgress(ctx, msg)
		defer stop()
		if s.hooks.Enter != nil {
			s.hooks.Enter(req.Key())
		}
		out = s.reconcile(ctx, req, delivered)
		if s.hooks.Exit != nil {
			s.hooks.Exit(req.Key(), out)
		}
		return nil
	})
	switch {
	case errors.Is(err, lease.ErrHeld):
		log.V(1).Info("another reconcile of this KCLRun is running, requeued")
		_ = msg.NakWithDelay(min(leaseBusyDelay*time.Duration(delivered), leaseBusyMaxDelay))
	case err != nil:
		log.Error(err, "reconcile interrupted, requeued")
		_ = msg.NakWithDelay(backoff(int(delivered), s.cfg.MaxBackoff))
	case out.RetryAfter > 0:
		_ = msg.NakWithDelay(out.RetryAfter)
	default:
		s.ack(ctx, msg, log)
	}
}

// ack confirms with the server, retrying through a NATS reconnect, so that a
// settled request is not delivered again after a restart.
func (s *Service) ack(ctx context.Context, msg jetstream.Msg, log interface{ Error(error, string, ...any) }) {
	for attempt := 0; attempt < 8; attempt++ {
		ackCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		err := msg.DoubleAck(ackCtx)
		cancel()
		if err == nil || errors.Is(err, jetstream.ErrMsgAlreadyAckd) {
			return
		}
		if attempt == 7 {
			log.Error(err, "ack failed, the request will be delivered again")
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff(attempt, 5*time.Second)):
		}
	}
}

// keepInProgress stops the server from redelivering a long reconcile.
func keepInProgress(ctx context.Context, msg jetstream.Msg) func() {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		t := time.NewTicker(reconcilerequest.DefaultAckWait / 4)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				_ = msg.InProgress()
			}
		}
	}()
	return cancel
}

// backoff is 1s, 2s, 4s… capped.
func backoff(attempt int, limit time.Duration) time.Duration {
	if attempt < 1 {
		attempt = 1
	}
	d := time.Second << min(attempt-1, 20)
	return min(d, limit)
}
