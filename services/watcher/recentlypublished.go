package watcher

import (
	"sync"
	"time"

	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
)

// recentlyPublished remembers the ids of a rollout's requests that JetStream
// took as new in the last half of its duplicate window: publishing one again
// would only be dropped as a duplicate, so the round trip is skipped. A
// rollout steps on every change of its KCLRuns and asks again for each one
// not yet at its stage's image: during a first sync of 1,000 KCLRuns with a
// rollout installed that was 45,829 duplicate publishes, queued ahead of
// every other request. Only ImageRolloutChanged requests are remembered: a
// request skipped after the stream lost it (a wiped store) is asked again by
// the rollout's next step, once the memory is forgotten.
type recentlyPublished struct {
	mu        sync.Mutex
	ttl       time.Duration
	now       func() time.Time
	published map[string]time.Time // by message id
	lastSeq   uint64
	swept     time.Time
}

func newRecentlyPublished() *recentlyPublished {
	return &recentlyPublished{ttl: reconcilerequest.DuplicateWindow / 2, now: time.Now, published: map[string]time.Time{}}
}

// remembers says whether req would be dropped as a duplicate of one taken recently.
func (r *recentlyPublished) remembers(req reconcilerequest.Request, msgID string) bool {
	if req.Reason != reconcilerequest.ReasonImageRolloutChanged || msgID == "" {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	at, ok := r.published[msgID]
	return ok && r.now().Sub(at) < r.ttl
}

// taken records what JetStream answered a publish. A new message's sequence
// far below the highest seen (under half: concurrent publishes answer a little
// out of order) means the stream was made again and lost its duplicate
// window: everything is forgotten. Forgetting too much only costs round trips.
func (r *recentlyPublished) taken(req reconcilerequest.Request, msgID string, res reconcilerequest.Published) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !res.Duplicate && res.Sequence*2 < r.lastSeq {
		clear(r.published)
		r.lastSeq = 0
	}
	r.lastSeq = max(r.lastSeq, res.Sequence)
	now := r.now()
	if now.Sub(r.swept) >= r.ttl {
		for id, at := range r.published {
			if now.Sub(at) >= r.ttl {
				delete(r.published, id)
			}
		}
		r.swept = now
	}
	// Only a publish JetStream took as new starts a window: the window of
	// a duplicate began with its first publish, at a time not known here.
	if req.Reason == reconcilerequest.ReasonImageRolloutChanged && msgID != "" && !res.Duplicate {
		r.published[msgID] = now
	}
}

// forget drops every id, when the stream is found gone.
func (r *recentlyPublished) forget() {
	r.mu.Lock()
	defer r.mu.Unlock()
	clear(r.published)
	r.lastSeq = 0
}
