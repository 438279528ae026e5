package eval

import (
	"container/list"
	"crypto/sha256"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
)

// Parsed files are shared by every run in the process, keyed by file name and
// content: a large package (the k8s module: thousands of schemas) is parsed
// once and reused by each run and each KCLRun that imports it. ASTs are never
// mutated after parsing (config merging copies the statements it rewrites), so
// runs share them without locks. The cache is bounded by the size of the
// sources it holds and drops the least recently used files first, so a
// long-running controller that sees many revisions does not grow forever.

// DefaultParseCacheBytes bounds the sources behind the cached ASTs. An AST
// takes roughly ten times its source; the k8s module of one Kubernetes
// version is about 4 MiB of source.
const DefaultParseCacheBytes = 64 << 20

// ParseCacheStatistics counts lookups in the shared parse cache.
type ParseCacheStatistics struct {
	Hits, Misses int64
	Files        int
	SourceBytes  int64
}

// ParseCacheStats reports the shared parse cache's counters.
func ParseCacheStats() ParseCacheStatistics {
	return sharedParseCache.stats()
}

// SetParseCacheLimit changes the bound on cached source bytes (0 disables
// caching) and evicts files beyond it.
func SetParseCacheLimit(sourceBytes int64) {
	sharedParseCache.setLimit(sourceBytes)
}

var sharedParseCache = newParseCache(DefaultParseCacheBytes)

type parseCache struct {
	mu       sync.Mutex
	byKey    map[[32]byte]*list.Element
	lru      list.List // of *parsedFile, most recently used first
	bytes    int64
	maxBytes int64

	hits, misses atomic.Int64
}

type parsedFile struct {
	key  [32]byte
	mod  *syntax.Module
	size int64
}

func newParseCache(maxBytes int64) *parseCache {
	return &parseCache{byKey: map[[32]byte]*list.Element{}, maxBytes: maxBytes}
}

func parseKey(filename string, src []byte) [32]byte {
	h := sha256.New()
	h.Write([]byte(filename))
	h.Write([]byte{0})
	h.Write(src)
	var key [32]byte
	h.Sum(key[:0])
	return key
}

func (c *parseCache) get(key [32]byte) (*syntax.Module, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[key]
	if !ok {
		return nil, false
	}
	c.lru.MoveToFront(el)
	return el.Value.(*parsedFile).mod, true
}

func (c *parseCache) put(key [32]byte, m *syntax.Module, size int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[key]; ok || size > c.maxBytes {
		return
	}
	c.byKey[key] = c.lru.PushFront(&parsedFile{key: key, mod: m, size: size})
	c.bytes += size
	c.evict()
}

// evict drops least recently used files until the bound holds; c.mu is held.
func (c *parseCache) evict() {
	for c.bytes > c.maxBytes {
		el := c.lru.Back()
		if el == nil {
			return
		}
		f := c.lru.Remove(el).(*parsedFile)
		delete(c.byKey, f.key)
		c.bytes -= f.size
	}
}

func (c *parseCache) setLimit(maxBytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.maxBytes = max(maxBytes, 0)
	c.evict()
}

func (c *parseCache) stats() ParseCacheStatistics {
	c.mu.Lock()
	defer c.mu.Unlock()
	return ParseCacheStatistics{Hits: c.hits.Load(), Misses: c.misses.Load(), Files: c.lru.Len(), SourceBytes: c.bytes}
}

// parseCached parses a file or returns the shared AST of identical content.
func parseCached(filename string, src []byte) (*syntax.Module, error) {
	key := parseKey(filename, src)
	if m, ok := sharedParseCache.get(key); ok {
		sharedParseCache.hits.Add(1)
		return m, nil
	}
	sharedParseCache.misses.Add(1)
	m, err := syntax.ParseFile(filename, src)
	if err != nil {
		var se *syntax.Error
		if errors.As(err, &se) {
			return nil, &Error{Kind: se.Kind, Msg: se.Msg, Pos: se.Pos}
		}
		return nil, err
	}
	sharedParseCache.put(key, m, int64(len(src)))
	return m, nil
}
