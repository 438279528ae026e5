package applier

import (
	"context"
	"sync"
	"time"
)

// fairQueue holds the requests an applier has taken from the stream but not
// started, one FIFO per namespace, and hands them out round-robin across
// namespaces: a tenant that changes a thousand KCLRuns at once gets one turn
// in each round like any other, so its backlog does not hold another
// tenant's single change. Plain round-robin, not weighted: the applier knows
// no priority between tenants, and equal turns are what a namespace-scoped
// tenancy promises.
//
// It coalesces as the stream does: a request for a KCLRun that already has
// one queued replaces it in its place (the stream, one message per subject,
// has already dropped the older), so the wider window does not turn a
// KCLRun's repeated changes into repeated reconciles.
//
// It is bounded (limit), so an applier replica takes from the stream only
// what it can hold; the stream keeps the rest for any replica.
type fairQueue[T any] struct {
	mu    sync.Mutex
	limit int
	byNS  map[string][]queued[T]
	// keys counts the queued items of each key (a KCLRun's subject).
	keys map[string]int
	// turns lists the namespaces with queued items in the order of their next turn.
	turns []string
	n     int
	// added and freed wake a waiting pop and a waiting waitRoom.
	added chan struct{}
	freed chan struct{}
}

type queued[T any] struct {
	key  string
	item T
	at   time.Time
}

func newFairQueue[T any](limit int) *fairQueue[T] {
	return &fairQueue[T]{
		limit: max(limit, 1),
		byNS:  map[string][]queued[T]{},
		keys:  map[string]int{},
		added: make(chan struct{}, 1),
		freed: make(chan struct{}, 1),
	}
}

// push queues item at the back of its namespace's queue or, when an item
// of the same key is queued, in that item's place; the replaced item is
// returned for the caller to settle.
func (q *fairQueue[T]) push(namespace, key string, item T, now time.Time) (replaced T, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	items, known := q.byNS[namespace]
	if q.keys[key] > 0 {
		for i := range items {
			if items[i].key == key {
				replaced, items[i] = items[i].item, queued[T]{key: key, item: item, at: now}
				return replaced, true
			}
		}
	}
	if !known {
		q.turns = append(q.turns, namespace)
	}
	q.byNS[namespace] = append(items, queued[T]{key: key, item: item, at: now})
	q.keys[key]++
	q.n++
	signal(q.added)
	return replaced, false
}

// tryPop takes the front item of the namespace whose turn it is; that
// namespace, if it has more, goes to the back of the turns.
func (q *fairQueue[T]) tryPop() (T, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	var zero T
	if q.n == 0 {
		return zero, false
	}
	ns := q.turns[0]
	items := q.byNS[ns]
	item, key := items[0].item, items[0].key
	items[0] = queued[T]{}
	if q.keys[key]--; q.keys[key] == 0 {
		delete(q.keys, key)
	}
	q.turns = q.turns[1:]
	if len(items) == 1 {
		delete(q.byNS, ns)
	} else {
		q.byNS[ns] = items[1:]
		q.turns = append(q.turns, ns)
	}
	q.n--
	if q.n > 0 {
		signal(q.added) // another popper may go on
	}
	signal(q.freed)
	return item, true
}

// pop waits for an item; false once ctx is done.
func (q *fairQueue[T]) pop(ctx context.Context) (T, bool) {
	for {
		if item, ok := q.tryPop(); ok {
			return item, true
		}
		select {
		case <-q.added:
		case <-ctx.Done():
			var zero T
			return zero, false
		}
	}
}

// waitRoom waits until the queue holds fewer than limit items; false once ctx is done.
func (q *fairQueue[T]) waitRoom(ctx context.Context) bool {
	for {
		q.mu.Lock()
		room := q.n < q.limit
		q.mu.Unlock()
		if room {
			return true
		}
		select {
		case <-q.freed:
		case <-ctx.Done():
			return false
		}
	}
}

// queuedBefore lists the items queued before t (to keep them alive on the server).
func (q *fairQueue[T]) queuedBefore(t time.Time) []T {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []T
	for _, items := range q.byNS {
		for _, it := range items {
			if it.at.Before(t) {
				out = append(out, it.item)
			}
		}
	}
	return out
}

// len is the number of queued items.
func (q *fairQueue[T]) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.n
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
