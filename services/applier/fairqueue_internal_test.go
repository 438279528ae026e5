package applier

import (
	"context"
	"slices"
	"testing"
	"time"
)

// A burst of one namespace queued first gives up every other turn to the
// namespaces queued after it; each namespace keeps its own order.
func TestFairQueueTakesNamespacesInTurns(t *testing.T) {
	q := newFairQueue[string](100)
	now := time.Now()
	for _, k := range []string{"a1", "a2", "a3", "a4"} {
		q.push("a", k, k, now)
	}
	q.push("b", "b1", "b1", now)
	q.push("c", "c1", "c1", now)
	q.push("b", "b2", "b2", now)
	var got []string
	for item, ok := q.tryPop(); ok; item, ok = q.tryPop() {
		got = append(got, item)
	}
	want := []string{"a1", "b1", "c1", "a2", "b2", "a3", "a4"}
	if !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
	if q.len() != 0 {
		t.Fatalf("%d left", q.len())
	}
}

// A second request for a queued KCLRun takes the first one's place, as the
// stream's one message per subject does.
func TestFairQueueCoalescesAKCLRun(t *testing.T) {
	q := newFairQueue[string](100)
	now := time.Now()
	q.push("a", "a/x", "x-old", now)
	q.push("a", "a/y", "y", now)
	replaced, ok := q.push("a", "a/x", "x-new", now)
	if !ok || replaced != "x-old" {
		t.Fatalf("replaced %q %v, want x-old", replaced, ok)
	}
	var got []string
	for item, ok := q.tryPop(); ok; item, ok = q.tryPop() {
		got = append(got, item)
	}
	if want := []string{"x-new", "y"}; !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
	// Taken, the key may be queued again.
	if _, ok := q.push("a", "a/x", "x-3", now); ok {
		t.Fatal("a taken item was replaced")
	}
}

func TestFairQueueBounded(t *testing.T) {
	q := newFairQueue[int](2)
	now := time.Now()
	q.push("a", "1", 1, now)
	q.push("a", "2", 2, now)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if q.waitRoom(ctx) {
		t.Fatal("room in a full queue")
	}
	q.tryPop()
	if !q.waitRoom(context.Background()) {
		t.Fatal("no room after a pop")
	}
	if got := q.queuedBefore(now.Add(time.Second)); !slices.Equal(got, []int{2}) {
		t.Fatalf("queued %v, want [2]", got)
	}
}
