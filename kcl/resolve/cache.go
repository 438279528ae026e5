package resolve

import (
	"fmt"
	"strings"
	"sync"

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

// cacheKeys names each package by its path, the identity of its modules
// and, recursively, the keys of its imports.
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
		var b strings.Builder
		b.WriteString(p.Path)
		for _, f := range p.Files {
			fmt.Fprintf(&b, "|%p:%p:%d", f.Module, f.Body, len(f.Body))
			for _, st := range f.Body {
				imp, ok := st.(*syntax.ImportStmt)
				if !ok || f.Imports[imp] == nil {
					continue
				}
				dep := f.Imports[imp]
				dk := key(dep, depth+1)
				if dk == "" {
					return ""
				}
				fmt.Fprintf(&b, "(%s)", dk)
			}
		}
		k := b.String()
		keys[p] = k
		return k
	}
	for _, p := range prog.Packages {
		key(p, 0)
	}
	return keys
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
