package eval

import (
	"container/list"
	"crypto/sha256"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
)

// Parsed files are shared by every run in the process, keyed by file name and
// content: a large package (the k8s module: thousands of schemas) is parsed
// once and reused by each run and each KCLRun that imports it. ASTs are never
// mutated after parsing (config merging copies the statements it rewrites), so
// runs share them without locks. Before reading a file again, a run compares
// its status (size, times, inode) with the one recorded when it was parsed:
// when unchanged, neither the read nor the hash is repeated, which is most of
// the cost of a warm run importing a large package. The cache is bounded by the size of the
// sources it holds and drops the least recently used files first, so a
// long-running controller that sees many revisions does not grow forever.

// DefaultParseCacheBytes bounds the sources behind the cached ASTs of
// imported packages. An AST takes ten to twenty times its source (twenty for
// the load test's tenant programs); the k8s module of one Kubernetes version
// is about 4 MiB of source.
const DefaultParseCacheBytes = 64 << 20

// DefaultMainParseCacheBytes bounds the sources behind the cached ASTs of
// main-package files (a run's own program, not what it imports), kept apart:
// a controller compiles thousands of distinct programs, each once per
// revision, and with one shared bound they would fill it (10,000 tenant
// programs of 1.7 KiB are 17 MiB of source, 350 MiB of ASTs) and push out the
// packages they all import. 256 KiB of source is 5–8 MiB of ASTs (20–30
// times, measured on the load test's programs).
const DefaultMainParseCacheBytes = 256 << 10

// ParseCacheStatistics counts lookups in the shared parse cache.
type ParseCacheStatistics struct {
	Hits, Misses int64
	Files        int
	SourceBytes  int64
}

// ParseCacheStats reports the parse caches' counters, packages' and main
// files' together.
func ParseCacheStats() ParseCacheStatistics {
	a, b := sharedParseCache.stats(), mainParseCache.stats()
	return ParseCacheStatistics{Hits: a.Hits + b.Hits, Misses: a.Misses + b.Misses, Files: a.Files + b.Files, SourceBytes: a.SourceBytes + b.SourceBytes}
}

// SetParseCacheLimit changes the bound on cached source bytes of imported
// packages (0 disables caching) and evicts files beyond it.
func SetParseCacheLimit(sourceBytes int64) {
	sharedParseCache.setLimit(sourceBytes)
}

// SetMainParseCacheLimit changes the bound on cached source bytes of
// main-package files (0 disables caching them) and evicts files beyond it.
func SetMainParseCacheLimit(sourceBytes int64) {
	mainParseCache.setLimit(sourceBytes)
}

var (
	sharedParseCache = newParseCache(DefaultParseCacheBytes)
	mainParseCache   = newParseCache(DefaultMainParseCacheBytes)
)

type parseCache struct {
	mu       sync.Mutex
	byKey    map[[32]byte]*list.Element
	byPath   map[string]*list.Element // files whose status was recorded
	lru      list.List                // of *parsedFile, most recently used first
	bytes    int64
	maxBytes int64

	hits, misses atomic.Int64
	// evictions counts dropped files: what holds on to cached ASTs beside
	// the cache (the shared scope layouts) lets go when it moves.
	evictions atomic.Int64
}

type parsedFile struct {
	key  [32]byte
	mod  *syntax.Module
	size int64
	// path and id, when id is set, tell the status of the file the AST came from.
	path  string
	id    fileIdentity
	hasID bool
}

// fileIdentity is what identityOf reads from a file's status.
type fileIdentity struct {
	size, mtime, ctime int64
	ino, dev           uint64
}

func newParseCache(maxBytes int64) *parseCache {
	return &parseCache{byKey: map[[32]byte]*list.Element{}, byPath: map[string]*list.Element{}, maxBytes: maxBytes}
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

// getUnchanged returns the AST parsed from path if the file still has the
// status recorded then.
func (c *parseCache) getUnchanged(path string, id fileIdentity) (*syntax.Module, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byPath[path]
	if !ok {
		return nil, false
	}
	f := el.Value.(*parsedFile)
	if !f.hasID || f.id != id {
		return nil, false
	}
	c.lru.MoveToFront(el)
	return f.mod, true
}

func (c *parseCache) put(f *parsedFile) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if f.size > c.maxBytes {
		return
	}
	if el, ok := c.byKey[f.key]; ok {
		// Same content: refresh the recorded status (the file was rewritten).
		old := el.Value.(*parsedFile)
		if f.hasID && (!old.hasID || old.id != f.id) {
			c.unlinkPath(old)
			old.path, old.id, old.hasID = f.path, f.id, true
			c.byPath[f.path] = el
		}
		return
	}
	el := c.lru.PushFront(f)
	c.byKey[f.key] = el
	if f.hasID {
		if prev, ok := c.byPath[f.path]; ok {
			prev.Value.(*parsedFile).hasID = false
		}
		c.byPath[f.path] = el
	}
	c.bytes += f.size
	c.evict()
}

// unlinkPath forgets f's recorded status; c.mu is held.
func (c *parseCache) unlinkPath(f *parsedFile) {
	if f.hasID && c.byPath[f.path] != nil && c.byPath[f.path].Value == f {
		delete(c.byPath, f.path)
	}
	f.hasID = false
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
		c.unlinkPath(f)
		c.bytes -= f.size
		c.evictions.Add(1)
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

// errSourceUnreadable marks a file that could not be read (as opposed to one
// that does not parse).
var errSourceUnreadable = errors.New("source file cannot be read")

// parse returns the AST of the file at abs (inside the sandbox): the shared one
// when the file is unchanged since it was parsed, else it reads the file.
// main says the file belongs to the run's main package (its own cache).
func (sb *sandbox) parse(abs string, main bool) (*syntax.Module, error) {
	c := sharedParseCache
	if main {
		c = mainParseCache
	}
	clean := filepath.Clean(abs)
	if src, ok := sb.overrides[clean]; ok {
		return c.parse(abs, src, fileIdentity{}, false)
	}
	r, rel, err := sb.locateClean(clean)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errSourceUnreadable, err)
	}
	// Lstat: a symbolic link's own status says nothing of its target, so
	// linked files are read every time.
	id, hasID := fileIdentity{}, false
	if fi, ok := sb.listed[clean]; ok {
		id, hasID = identityOf(fi)
	} else if fi, err := r.Lstat(rel); err == nil {
		id, hasID = identityOf(fi)
	}
	if hasID {
		if m, ok := c.getUnchanged(abs, id); ok {
			c.hits.Add(1)
			return m, nil
		}
	}
	src, err := r.ReadFile(rel)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errSourceUnreadable, err)
	}
	return c.parse(abs, src, id, hasID && int64(len(src)) == id.size)
}

// parse parses a file or returns the cached AST of identical content.
func (c *parseCache) parse(filename string, src []byte, id fileIdentity, hasID bool) (*syntax.Module, error) {
	key := parseKey(filename, src)
	if m, ok := c.get(key); ok {
		c.hits.Add(1)
		return m, nil
	}
	c.misses.Add(1)
	m, err := syntax.ParseFile(filename, src)
	if err != nil {
		var se *syntax.Error
		if errors.As(err, &se) {
			// The partial module goes on to the static pass, whose errors
			// the official engine reports after the syntax errors.
			return m, syntaxError(se)
		}
		return nil, err
	}
	c.put(&parsedFile{key: key, mod: m, size: int64(len(src)), path: filename, id: id, hasID: hasID})
	return m, nil
}

// resetParseCache empties the caches (benchmarks of cold runs).
func resetParseCache() {
	sharedParseCache.setLimit(0)
	sharedParseCache.setLimit(DefaultParseCacheBytes)
	mainParseCache.setLimit(0)
	mainParseCache.setLimit(DefaultMainParseCacheBytes)
}
