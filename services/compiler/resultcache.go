package compiler

import (
	"container/list"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"sync"

	"github.com/kcl-lang/flux-kcl-controller/kcl"
	compilerv1 "github.com/kcl-lang/flux-kcl-controller/proto/compiler/v1"
)

// resultCache is a content-addressed LRU of compile responses bounded in bytes.
// The key covers everything the output depends on, so an entry never goes stale:
// it is only evicted.
type resultCache struct {
	mu       sync.Mutex
	maxBytes int64
	size     int64
	order    *list.List // front = most recently used
	entries  map[string]*list.Element
}

type cacheEntry struct {
	key      string
	response *compilerv1.CompileResponse
	size     int64
}

func newResultCache(maxBytes int64) *resultCache {
	return &resultCache{maxBytes: maxBytes, order: list.New(), entries: map[string]*list.Element{}}
}

func (c *resultCache) get(key string) (*compilerv1.CompileResponse, bool) {
	if c == nil || c.maxBytes <= 0 {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*cacheEntry).response, true
}

// put stores a response the cache then owns: callers must not modify it.
func (c *resultCache) put(key string, response *compilerv1.CompileResponse) {
	if c == nil || c.maxBytes <= 0 {
		return
	}
	size := int64(len(key)) + 64
	for _, o := range response.GetObjects() {
		size += int64(len(o.GetJson())) + 16
	}
	if e := response.GetError(); e != nil {
		size += int64(len(e.GetMessage()) + len(e.GetFile()) + len(e.GetKind()))
	}
	if size > c.maxBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok {
		c.order.MoveToFront(el)
		return
	}
	c.entries[key] = c.order.PushFront(&cacheEntry{key: key, response: response, size: size})
	c.size += size
	for c.size > c.maxBytes {
		oldest := c.order.Back()
		entry := oldest.Value.(*cacheEntry)
		c.order.Remove(oldest)
		delete(c.entries, entry.key)
		c.size -= entry.size
	}
}

func (c *resultCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

// cacheKey hashes every input of a compilation: engine version, artifact digest,
// program path, config, arguments, registry credentials, substitutions. Limits are left out because
// only successful and program-error results are cached, and those do not depend
// on them.
func cacheKey(req *compilerv1.CompileRequest, programPath string) string {
	h := sha256.New()
	writeString(h, kcl.Version)
	writeString(h, req.GetProgram().GetArtifact().GetDigest())
	writeString(h, programPath)
	cfg := req.GetConfig()
	for _, list := range [][]string{cfg.GetArguments(), cfg.GetSettings(), cfg.GetOverrides(), cfg.GetPathSelectors()} {
		writeStrings(h, list)
	}
	for _, flag := range []bool{cfg.GetVendor(), cfg.GetSortKeys(), cfg.GetShowHidden(), cfg.GetDisableNone()} {
		writeBool(h, flag)
	}
	writeInt(h, int64(len(req.GetArguments())))
	for _, a := range req.GetArguments() {
		writeString(h, a.GetName())
		writeString(h, a.GetValue())
	}
	// Credentials decide which packages a request may read: requests with
	// other credentials (or none) never share a result.
	writeString(h, string(req.GetRegistryCredentials().GetDockerConfigJson()))
	writeInt(h, int64(len(req.GetSubstitutions())))
	for _, s := range req.GetSubstitutions() {
		writeString(h, s.GetFile())
		writeInt(h, s.GetStart())
		writeInt(h, s.GetEnd())
		writeString(h, s.GetOld())
		writeString(h, s.GetNew())
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Length prefixes keep ("ab","c") and ("a","bc") apart.
func writeString(h hash.Hash, s string) {
	writeInt(h, int64(len(s)))
	h.Write([]byte(s))
}

func writeStrings(h hash.Hash, list []string) {
	writeInt(h, int64(len(list)))
	for _, s := range list {
		writeString(h, s)
	}
}

func writeBool(h hash.Hash, b bool) {
	if b {
		h.Write([]byte{1})
	} else {
		h.Write([]byte{0})
	}
}

func writeInt(h hash.Hash, n int64) {
	var buf [8]byte
	binary.BigEndian.PutUint64(buf[:], uint64(n))
	h.Write(buf[:])
}
