package check

import (
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"io"
	"runtime"
	"sync"
	"unsafe"
	"weak"

	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
)

// A warm compile reuses the parsed modules of unchanged files (the
// evaluator's parse cache hands out the same *syntax.Module), so the result
// of checking an imported package is reusable too while its files and those
// of everything it imports are the same modules: the large packages a
// program imports (the k8s module) are checked once per process, not once
// per compile. The main package, whose body may be rewritten per run, is
// always checked.

const maxCachedPackages = 4096

var pkgCache = struct {
	sync.Mutex
	m map[string]*pkgInfo
}{m: map[string]*pkgInfo{}}

// cacheKeys names each package by a digest of its path, the identity of
// its modules and, recursively, the keys of its imports. A digest, not the
// text it is made of: spelled out, a package's key would hold the keys of
// its imports once per import statement (the k8s module's core/v1 imports
// meta/v1 from forty files), hundreds of kilobytes rebuilt on every compile.
func cacheKeys(prog *Program) map[*Package]string {
	keys := map[*Package]string{}
	var key func(p *Package, depth int) string
	key = func(p *Package, depth int) string {
		if k, ok := keys[p]; ok {
			return k
		}
		if depth > 200 {
			return ""
		}
		keys[p] = "" // an import cycle has no stable key
		h := newKeyHash()
		h.str(p.Path)
		for _, f := range p.Files {
			h.ptr(unsafe.Pointer(f.Module))
			h.ptr(unsafe.Pointer(unsafe.SliceData(f.Body)))
			h.int(len(f.Body))
			for _, st := range f.Body {
				imp, ok := st.(*syntax.ImportStmt)
				if !ok || f.Imports[imp] == nil {
					continue
				}
				dk := key(f.Imports[imp], depth+1)
				if dk == "" {
					return ""
				}
				h.str(dk)
			}
			h.int(-1) // the end of a file's imports
		}
		k := h.sum()
		keys[p] = k
		return k
	}
	for _, p := range prog.Packages {
		key(p, 0)
	}
	return keys
}

// keyHash accumulates a cache key; every part is written with its length
// or fixed size, so that different sequences of parts never collide.
type keyHash struct {
	h   hash.Hash
	buf [8]byte
}

func newKeyHash() *keyHash { return &keyHash{h: sha256.New()} }

func (k *keyHash) int(n int) {
	binary.LittleEndian.PutUint64(k.buf[:], uint64(n))
	k.h.Write(k.buf[:])
}

func (k *keyHash) ptr(p unsafe.Pointer) { k.int(int(uintptr(p))) }

func (k *keyHash) bool(b bool) {
	if b {
		k.int(1)
	} else {
		k.int(0)
	}
}

func (k *keyHash) str(s string) {
	k.int(len(s))
	io.WriteString(k.h, s)
}

func (k *keyHash) sum() string {
	var out [sha256.Size]byte
	return string(k.h.Sum(out[:0]))
}

func cacheGet(key string) *pkgInfo {
	if key == "" {
		return nil
	}
	pkgCache.Lock()
	defer pkgCache.Unlock()
	return pkgCache.m[key]
}

func cachePut(key string, pi *pkgInfo) {
	if key == "" {
		return
	}
	pi.cached = true
	pkgCache.Lock()
	defer pkgCache.Unlock()
	if len(pkgCache.m) >= maxCachedPackages {
		pkgCache.m = map[string]*pkgInfo{}
	}
	pkgCache.m[key] = pi
}

// A warm compile is mostly a repeat: the compiler service runs the same
// artifact again and again, so the main package is the same parsed modules
// (the parse cache hands out one *syntax.Module per content) with bodies
// rewritten the same way (merging of `name: Schema {}` declarations depends
// only on the modules; -O specs are Program.MainVariant). The diagnostics of
// such a program are those of its first check and are reused whole.

// An entry lives as long as the main package's modules do, and no longer:
// it holds them weakly, so it follows the main parse cache's evictions (a
// tenant program evicted there is parsed again into new modules, at new
// addresses, whose key never meets the old entry). Holding them strongly, the
// entries kept up to maxCachedPrograms programs' ASTs alive past that cache's
// bound (25 MiB of the heap at 10,000 KCLRuns), all of them unreachable by
// key. The imported packages' modules are held strongly: they are the shared
// parse cache's, which every entry shares.
const maxCachedPrograms = 1024

type programEntry struct {
	diags []*Diagnostic
	// main are the main package's modules, weakly: while every one is
	// alive, no other module has its address, and the key stands for them.
	main []weak.Pointer[syntax.Module]
	// imported keeps the imported modules alive, whose addresses the
	// key holds too.
	imported []*syntax.Module
}

// alive says whether every main module of the entry is still in memory.
func (e *programEntry) alive() bool {
	for _, w := range e.main {
		if w.Value() == nil {
			return false
		}
	}
	return true
}

var programCache = struct {
	sync.Mutex
	m map[string]*programEntry
}{m: map[string]*programEntry{}}

// mainCacheKey names the whole program by a digest of the main package's
// modules, whether its bodies were rewritten, its variant and the keys of
// its imports (which name the imported packages' modules, recursively); ""
// when the program has no stable key (an import cycle, a file without a
// module).
func mainCacheKey(prog *Program, keys map[*Package]string) string {
	h := newKeyHash()
	h.str(prog.Main.Path)
	for _, f := range prog.Main.Files {
		if f.Module == nil {
			return ""
		}
		same := len(f.Body) == len(f.Module.Body) && (len(f.Body) == 0 || &f.Body[0] == &f.Module.Body[0])
		h.ptr(unsafe.Pointer(f.Module))
		h.bool(same)
		for _, st := range f.Body {
			imp, ok := st.(*syntax.ImportStmt)
			if !ok || f.Imports[imp] == nil {
				continue
			}
			dk := keys[f.Imports[imp]]
			if dk == "" {
				return ""
			}
			h.str(dk)
		}
		h.int(-1) // the end of a file's imports
	}
	h.str(prog.MainVariant)
	return h.sum()
}

func programCacheGet(key string) ([]*Diagnostic, bool) {
	if key == "" {
		return nil, false
	}
	programCache.Lock()
	defer programCache.Unlock()
	e, ok := programCache.m[key]
	if !ok {
		return nil, false
	}
	if !e.alive() {
		// A module was collected before its cleanup ran: its address may
		// already be another module's.
		delete(programCache.m, key)
		return nil, false
	}
	return append([]*Diagnostic(nil), e.diags...), true
}

func programCachePut(key string, prog *Program, diags []*Diagnostic) {
	if key == "" {
		return
	}
	e := &programEntry{diags: append([]*Diagnostic(nil), diags...)}
	for _, p := range prog.Packages {
		for _, f := range p.Files {
			if p == prog.Main {
				e.main = append(e.main, weak.Make(f.Module))
			} else {
				e.imported = append(e.imported, f.Module)
			}
		}
	}
	programCache.Lock()
	defer programCache.Unlock()
	if len(programCache.m) >= maxCachedPrograms {
		programCache.m = map[string]*programEntry{}
	}
	programCache.m[key] = e
	for _, f := range prog.Main.Files {
		runtime.AddCleanup(f.Module, dropProgram, programKey{key, e})
	}
}

type programKey struct {
	key   string
	entry *programEntry
}

// dropProgram forgets an entry once one of its main modules is collected.
func dropProgram(k programKey) {
	programCache.Lock()
	defer programCache.Unlock()
	if programCache.m[k.key] == k.entry {
		delete(programCache.m, k.key)
	}
}

// programCacheLen is the number of cached program checks (tests).
func programCacheLen() int {
	programCache.Lock()
	defer programCache.Unlock()
	return len(programCache.m)
}
