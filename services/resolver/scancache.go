package resolver

import (
	"container/list"
	"sync"
)

// scanCache keeps the markers of recently scanned programs, keyed by artifact
// digest and path: content-addressed, so entries never go stale. It makes the
// second call of the two-call protocol (with the missing policies) cheap.
type scanCache struct {
	mu      sync.Mutex
	max     int
	order   *list.List // front = most recently used
	entries map[string]*list.Element
}

type scanEntry struct {
	key  string
	prog *scanned
}

func newScanCache(max int) *scanCache {
	return &scanCache{max: max, order: list.New(), entries: map[string]*list.Element{}}
}

func (c *scanCache) get(key string) (*scanned, bool) {
	if c.max <= 0 {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*scanEntry).prog, true
}

func (c *scanCache) put(key string, prog *scanned) {
	if c.max <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok {
		c.order.MoveToFront(el)
		return
	}
	c.entries[key] = c.order.PushFront(&scanEntry{key: key, prog: prog})
	for c.order.Len() > c.max {
		oldest := c.order.Back()
		c.order.Remove(oldest)
		delete(c.entries, oldest.Value.(*scanEntry).key)
	}
}
