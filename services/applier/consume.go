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

// fairWindow is how many requests one applier takes from the stream ahead of
// its workers, in its fair queue: a burst from one namespace up to about this
// size is looked past, so another namespace's request, behind it in the
// stream, gets the next turn. The consumer's MaxAckPending leaves room for
// several appliers' windows. Held requests are kept in progress on the server
// (keepQueuedInProgress), so a long wait in the queue is not redelivered.
const fairWindow = 4096

// pullBatch is how many requests the iterator asks the server for at once;
// the iterator asks for more only as the queue takes them, so when the queue
// is full at most this many wait in the iterator.
const pullBatch = 128

// consume pulls requests into the fair queue and runs up to Concurrent of
// them at once, taken round-robin across namespaces. It binds to the consumer
// again whenever the iterator stops (e.g. NATS restarted); the queue outlives
// a binding, its requests settle on the same connection.
func (s *Service) consume(ctx context.Context, wg *sync.WaitGroup) error {
	q := newFairQueue[jetstream.Msg](fairWindow)
	var run sync.WaitGroup
	run.Add(2)
	go func() { defer run.Done(); s.dispatch(ctx, wg, q) }()
	go func() { defer run.Done(); keepQueuedInProgress(ctx, q) }()
	defer func() {
		run.Wait()
		// Handed back at once rather than left to AckWait, so another applier
		// takes them now.
		for msg, ok := q.tryPop(); ok; msg, ok = q.tryPop() {
			_ = msg.Nak()
		}
	}()
	for attempt := 0; ; attempt++ {
		if ctx.Err() != nil {
			return nil
		}
		cons, err := s.js.Consumer(ctx, s.cfg.Shard.Stream(), s.cfg.Shard.Consumer())
		if err == nil {
			var it jetstream.MessagesContext
			it, err = cons.Messages(jetstream.PullMaxMessages(pullBatch))
			if err == nil {
				attempt = 0
				s.ready.Do(func() { close(s.isUp) })
				s.fill(ctx, it, q)
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

// fill moves requests from the iterator into the fair queue while it has room.
func (s *Service) fill(ctx context.Context, it jetstream.MessagesContext, q *fairQueue[jetstream.Msg]) {
	stop := context.AfterFunc(ctx, it.Stop)
	defer stop()
	defer it.Stop()
	for q.waitRoom(ctx) {
		msg, err := it.Next()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, jetstream.ErrMsgIteratorClosed) {
				return
			}
			s.log.V(1).Info("reconcile request iterator", "error", err.Error())
			if errors.Is(err, jetstream.ErrConsumerDeleted) || errors.Is(err, jetstream.ErrConsumerNotFound) {
				return
			}
			continue
		}
		// An unparsable subject queues under "" and is dropped by handle.
		namespace, _, _ := reconcilerequest.ParseSubject(s.cfg.Shard, msg.Subject())
		if older, ok := q.push(namespace, msg.Subject(), msg, time.Now()); ok && streamSeq(older) < streamSeq(msg) {
			// Superseded while queued: the stream already dropped it. (The
			// same sequence is a redelivery of one message: one copy will do.)
			_ = older.Ack()
		}
	}
}

// streamSeq is the message's sequence in the stream, 0 if unknown.
func streamSeq(msg jetstream.Msg) uint64 {
	md, err := msg.Metadata()
	if err != nil {
		return 0
	}
	return md.Sequence.Stream
}

// dispatch runs the queue's requests, up to Concurrent at once. Serialisation
// per KCLRun stays with the lease in handle, coalescing with the stream.
func (s *Service) dispatch(ctx context.Context, wg *sync.WaitGroup, q *fairQueue[jetstream.Msg]) {
	slots := make(chan struct{}, s.cfg.Concurrent)
	for {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return
		}
		msg, ok := q.pop(ctx)
		if !ok {
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			s.handle(ctx, msg)
		}()
	}
}

// keepQueuedInProgress stops the server from redelivering a request that
// waits in the queue longer than AckWait.
func keepQueuedInProgress(ctx context.Context, q *fairQueue[jetstream.Msg]) {
	every := reconcilerequest.DefaultAckWait / 4
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			for _, msg := range q.queuedBefore(now.Add(-every)) {
				_ = msg.InProgress()
			}
		}
	}
}

// handle runs a request, and after it those of the same KCLRun that arrived
// meanwhile (runningHere); stopping, those go back to the stream at once.
func (s *Service) handle(ctx context.Context, msg jetstream.Msg) {
	if !s.here.enter(ctx, msg) {
		return
	}
	s.handleOne(ctx, msg)
	for next := s.here.exit(msg.Subject()); next != nil; next = s.here.exit(msg.Subject()) {
		if ctx.Err() != nil {
			_ = next.Nak()
			continue
		}
		s.handleOne(ctx, next)
	}
}

// handleOne reconciles under the KCLRun's lease and settles the message: ack
// once status is written, nak with a delay to retry.
func (s *Service) handleOne(ctx context.Context, msg jetstream.Msg) {
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
		out.Request, out.Delivered = req, delivered
		if s.hooks.Exit != nil {
			s.hooks.Exit(req.Key(), out)
		}
		return nil
	})
	switch {
	case errors.Is(err, lease.ErrHeld):
		log.V(1).Info("another reconcile of this KCLRun is running, requeued")
		_ = msg.NakWithDelay(min(leaseBusyDelay*time.Duration(delivered), leaseBusyMaxDelay))
	case errors.Is(err, lease.ErrUnavailable):
		// Nothing ran: the bucket is electing a leader or NATS is away. The deliveries it
		// took meanwhile say nothing about this KCLRun, so no backoff by their count (after
		// a cluster regains its quorum that wait was the whole recovery time).
		log.Error(err, "lease bucket unavailable, requeued")
		_ = msg.NakWithDelay(leaseBusyDelay)
	case err != nil:
		log.Error(err, "reconcile interrupted, requeued")
		_ = msg.NakWithDelay(backoff(int(delivered), s.cfg.MaxBackoff))
	case out.RetryAfter > 0 && out.retryWhenBack:
		s.retryWhenBack(ctx, msg, out.RetryAfter)
	case out.RetryAfter > 0:
		_ = msg.NakWithDelay(out.RetryAfter)
	default:
		s.ack(ctx, msg, log)
	}
}

// retryWhenBack hands a request cut by an apiserver outage back as soon as
// the apiserver is ready again, at the latest after delay (the backoff). It
// keeps its slot meanwhile: the requests behind it would fail the same way.
// When the apiserver is ready at once the outage was not its (a target
// cluster's, spec.kubeConfig) and the request backs off as usual.
func (s *Service) retryWhenBack(ctx context.Context, msg jetstream.Msg, delay time.Duration) {
	waitCtx, cancel := context.WithTimeout(ctx, delay)
	defer cancel()
	wasDown, err := s.outage.WaitBack(waitCtx)
	if err == nil && !wasDown {
		_ = msg.NakWithDelay(delay)
		return
	}
	// Back, the backoff elapsed, or stopping: another attempt now.
	_ = msg.Nak()
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
