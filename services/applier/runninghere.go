package applier

import (
	"context"
	"sync"

	"github.com/nats-io/nats.go/jetstream"
)

// runningHere parks a request for a KCLRun that this applier is reconciling
// already: it runs on the same slot as soon as that reconcile ends, rather
// than going back to the stream for the lease-busy delay (1 s, then 2 s…).
// A policy's election arriving while a rollout's request reconciles the same
// KCLRun waited that long. One request waits per KCLRun, a newer one
// superseding it as in the stream; another applier's reconcile of it is still
// a lease held.
type runningHere struct {
	mu   sync.Mutex
	runs map[string]*waiting // by subject: the KCLRun
}

// waiting is the request parked behind a running reconcile, if any.
type waiting struct {
	msg  jetstream.Msg
	stop func() // its keepInProgress
}

func newRunningHere() *runningHere {
	return &runningHere{runs: map[string]*waiting{}}
}

// enter reports whether msg may run now. When a reconcile of its KCLRun runs
// here, msg waits for it (kept in progress on the server) and enter is false.
func (r *runningHere) enter(ctx context.Context, msg jetstream.Msg) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	w, running := r.runs[msg.Subject()]
	if !running {
		r.runs[msg.Subject()] = &waiting{}
		return true
	}
	if w.msg != nil {
		older, newer := w.msg, msg
		if streamSeq(newer) < streamSeq(older) {
			older, newer = newer, older
		}
		if streamSeq(older) < streamSeq(newer) {
			// Superseded: the stream already dropped it. (The same sequence
			// is a redelivery of one message: one copy will do.)
			_ = older.Ack()
		}
		if newer == w.msg {
			return false
		}
		w.stop()
	}
	w.msg, w.stop = msg, keepInProgress(ctx, msg)
	return false
}

// exit ends the running reconcile of subject and hands over the request
// that waited for it: the caller runs it next and calls exit again after.
func (r *runningHere) exit(subject string) jetstream.Msg {
	r.mu.Lock()
	defer r.mu.Unlock()
	w := r.runs[subject]
	if w == nil || w.msg == nil {
		delete(r.runs, subject)
		return nil
	}
	msg := w.msg
	w.stop()
	w.msg, w.stop = nil, nil
	return msg
}
