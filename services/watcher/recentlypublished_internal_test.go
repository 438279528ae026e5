package watcher

import (
	"testing"
	"time"

	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
)

func TestRecentlyPublished(t *testing.T) {
	now := time.Date(2026, 12, 5, 1, 0, 0, 0, time.UTC)
	r := newRecentlyPublished()
	r.now = func() time.Time { return now }
	rollout := reconcilerequest.Request{Reason: reconcilerequest.ReasonImageRolloutChanged}
	policy := reconcilerequest.Request{Reason: reconcilerequest.ReasonImagePolicyChanged}

	if r.remembers(rollout, "a") {
		t.Fatal("remembers an id never published")
	}
	r.taken(rollout, "a", reconcilerequest.Published{Sequence: 10})
	r.taken(policy, "p", reconcilerequest.Published{Sequence: 11})
	r.taken(rollout, "d", reconcilerequest.Published{Sequence: 3, Duplicate: true})
	switch {
	case !r.remembers(rollout, "a"):
		t.Fatal("a rollout request JetStream took is not remembered")
	case r.remembers(policy, "p"):
		t.Fatal("only a rollout's requests are skipped: another is asked again by nothing")
	case r.remembers(rollout, "d"):
		t.Fatal("a duplicate's window began at a time not known here")
	}

	// Half of JetStream's window later, it is published again.
	now = now.Add(reconcilerequest.DuplicateWindow / 2)
	if r.remembers(rollout, "a") {
		t.Fatal("remembered past half of the duplicate window")
	}
	r.taken(rollout, "b", reconcilerequest.Published{Sequence: 12})
	if _, ok := r.published["a"]; ok {
		t.Fatal("an expired id was not swept")
	}

	// Concurrent publishes are answered a little out of order.
	r.taken(rollout, "e", reconcilerequest.Published{Sequence: 11})
	if !r.remembers(rollout, "b") {
		t.Fatal("an answer out of order forgot the ids")
	}

	// A sequence far below the last one: the stream was made again, its window is gone.
	r.taken(rollout, "c", reconcilerequest.Published{Sequence: 1})
	if r.remembers(rollout, "b") || !r.remembers(rollout, "c") {
		t.Fatal("a stream made again did not forget the ids published to the old one")
	}
	r.forget()
	if r.remembers(rollout, "c") {
		t.Fatal("forget kept an id")
	}
}
