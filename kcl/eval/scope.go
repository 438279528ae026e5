// Scopes and the lazy scope.
//
// A name is looked up (Interp.lookup) through, in order: the local variables
// of lambdas and comprehensions (env.locals, a chain of maps, which also
// holds the keys written so far in a config literal being built), the schema
// instance being built or read by the running code (Interp.frameStack, which
// is dynamic: a lambda called from a schema body reads that schema's
// attributes), the package's globals, the imports of the file (and, for the
// main package, of its other files), then the builtins.
//
// Globals and schema attributes live in a lazyScope: see lazy.go.

package eval

import (
	"hash/maphash"
	"slices"
	"strings"
	"sync"

	"github.com/kcl-lang/flux-kcl-controller/kcl/builtins"
	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

// env is where an expression is evaluated: its file (imports), package
// (globals), local variables (lambda parameters, comprehension variables) and
// the schema instance being built, if any.
type env struct {
	file   *fileUnit
	pkg    *pkgState
	locals *locals
	schema *schemaFrame
	// lambda is the innermost lambda's local scope: assignments go there.
	lambda *locals
}

// locals is a chain of variable maps.
type locals struct {
	vars map[string]value.Value
	// config is a config literal under construction: the keys written in it
	// (named) are in scope inside it (`{name = "a", label = name}`); keys
	// that came in through `**x` are not, as the official resolver binds
	// names by what the literal spells.
	config *value.Dict
	named  map[string]bool
	// loop marks comprehension and quantifier variables.
	loop bool
	// params marks a schema's parameters, below its attributes (see lookup).
	params bool
	// unset (a lambda's locals) lists the names its body assigns: read
	// unassigned and found nowhere else, they are Undefined, not undefined
	// names (the static pass has judged the program).
	unset []string
	// unresolved marks a scope the static pass did not walk (a schema's
	// parameter defaults): any name found nowhere is Undefined there.
	unresolved bool
	parent     *locals
}

func (e *env) withLocals(vars map[string]value.Value) *env {
	c := *e
	c.locals = &locals{vars: vars, parent: e.locals}
	return &c
}

func (e *env) withLoopVars(vars map[string]value.Value) *env {
	c := *e
	c.locals = &locals{vars: vars, loop: true, parent: e.locals}
	return &c
}

// loopVar finds a comprehension or quantifier variable.
func (l *locals) loopVar(name string) (value.Value, bool) {
	for s := l; s != nil; s = s.parent {
		if v, ok := s.vars[name]; ok {
			return v, s.loop
		}
	}
	return nil, false
}

func (l *locals) get(name string) (value.Value, bool) {
	return l.find(name, true, true)
}

// find looks a name up in the chain: with keys, in the config literals'
// written keys too; with params, in a schema's parameters too.
func (l *locals) find(name string, keys, params bool) (value.Value, bool) {
	for s := l; s != nil; s = s.parent {
		if s.params && !params {
			continue
		}
		if v, ok := s.vars[name]; ok {
			return v, true
		}
		if keys && s.config != nil && s.named[name] {
			if v, ok := s.config.Get(name); ok {
				return v, true
			}
		}
	}
	return nil, false
}

// lookup resolves a name: locals, schema attributes, globals, imports, builtins.
func (in *Interp) lookup(e *env, name string, pos syntax.Position) (value.Value, error) {
	if e.schema != nil && e.schema.hasAttr(name) {
		// An attribute of the schema being built shadows its parameters
		// (0.12.1 binds `schema S[w](Base)`'s w below Base's attribute w)
		// and, in the schema body but not in a lambda written there, a
		// config literal's key of the same name, as 0.12.1 resolves
		// `d = {port = 80, targetPort = port}` to the attribute port.
		if v, ok := e.locals.find(name, e.lambda != nil, false); ok {
			return v, nil
		}
	} else if v, ok := e.locals.get(name); ok {
		return v, nil
	}
	// While a schema is being built, names are its attributes first, and
	// globals are read as they are (see lazy.go).
	fr, inSchema := in.topFrame()
	if inSchema {
		v, ok, err := in.frameLookup(fr, name)
		if err != nil {
			return nil, err
		}
		if ok {
			return v, nil
		}
	}
	if e.pkg != nil {
		var v value.Value
		var ok bool
		var err error
		if inSchema {
			v, ok, err = in.globalCurrent(e.pkg, name)
		} else {
			v, ok, err = in.globalLookup(e.pkg, name)
		}
		if err != nil {
			return nil, err
		}
		if ok {
			return v, nil
		}
	}
	if e.file != nil {
		if v, ok := e.file.imports[name]; ok {
			return v, nil
		}
		// Imports are bound when their statement runs; run it on first use.
		if v, ok, err := in.lazyImport(e.file, name); err != nil {
			return nil, err
		} else if ok {
			return v, nil
		}
		// A config entry merged in from another file of the main package sees
		// the imports of the file it was written in, as the official engine does.
		if other := e.pkg.fileAt(pos.File); other != nil && other != e.file {
			if v, ok, err := in.lazyImport(other, name); err != nil {
				return nil, err
			} else if ok {
				return v, nil
			}
		}
		// Imports are package-wide for the official resolver. Its evaluator
		// binds them so for the main package (`kcl run main.k render.k` where
		// only render.k imports manifests); in other packages a name imported
		// only by a sibling file evaluates to Undefined.
		if v, ok, err := in.siblingImport(e, name); err != nil || ok {
			return v, err
		}
	}
	if v, ok := builtins.Universe[name]; ok {
		return v, nil
	}
	if v, ok := in.evaluatorBuiltins(name); ok {
		return v, nil
	}
	for s := e.locals; s != nil; s = s.parent {
		if s.unresolved || slices.Contains(s.unset, name) {
			return value.Undefined, nil
		}
	}
	if !staticPassOff {
		// The static pass reported every name it resolves; 0.12.1's
		// evaluator reads one its resolver never resolved (a rule's check,
		// a variadic builtin's extra keyword) as Undefined.
		return value.Undefined, nil
	}
	return nil, errorAt(pos, errkind.Compile, "name '%s' is not defined", name)
}

// globalLookup reads a package global, backtracking its assignments (see
// lazy.go). A name assigned only on a branch that did not run is Undefined.
func (in *Interp) globalLookup(p *pkgState, name string) (value.Value, bool, error) {
	ls := p.global
	if err := in.defineGlobalType(p, name); err != nil {
		return nil, false, err
	}
	if v, ok := in.shadow(p, name); ok {
		// Bound in an open scope: read as a local, not backtracked.
		return v, true, nil
	}
	id, ok := ls.lay.ids[name]
	if !ok {
		v, ok := ls.vals[name]
		return v, ok, nil
	}
	def, ok := ls.vals[name]
	if !ok {
		def = value.Undefined
	}
	v, err := in.lazyGet(ls, id, name, def, func(s setter) error {
		in.pushBacktrack(s)
		defer in.popBacktrack()
		return in.runGlobalStmt(p, s.stmt)
	}, func() value.Value {
		if v, ok := in.shadow(p, name); ok {
			return v
		}
		if v, ok := ls.vals[name]; ok {
			return v
		}
		return value.Undefined
	})
	return v, true, err
}

// globalCurrent reads a package global as it is now, without backtracking: a
// schema body sees globals so (see lazy.go).
func (in *Interp) globalCurrent(p *pkgState, name string) (value.Value, bool, error) {
	ls := p.global
	if err := in.defineGlobalType(p, name); err != nil {
		return nil, false, err
	}
	if v, ok := in.shadow(p, name); ok {
		return v, true, nil
	}
	if v, ok := ls.vals[name]; ok {
		return v, true, nil
	}
	if _, ok := ls.lay.ids[name]; ok {
		return value.Undefined, true, nil
	}
	return nil, false, nil
}

// defineGlobalType runs the schema or rule statement that defines name, if it
// has not run: types are defined before the other statements, and a type
// read before its statement (a parent written later) is defined on the spot.
func (in *Interp) defineGlobalType(p *pkgState, name string) error {
	ls := p.global
	for _, i := range ls.lay.defs[name] {
		if !ls.defined[i] {
			ls.defined[i] = true
			if err := in.runGlobalStmt(p, i); err != nil {
				return err
			}
		}
	}
	return nil
}

func (in *Interp) lazyImport(f *fileUnit, name string) (value.Value, bool, error) {
	for _, s := range f.body {
		imp, ok := s.(*syntax.ImportStmt)
		if !ok || imp.Name != name {
			continue
		}
		if err := in.execImport(f, imp); err != nil {
			return nil, false, err
		}
		v, ok := f.imports[name]
		return v, ok, nil
	}
	return nil, false, nil
}

// siblingImport finds name among the imports of the other files of e's package.
func (in *Interp) siblingImport(e *env, name string) (value.Value, bool, error) {
	if e.pkg == nil {
		return nil, false, nil
	}
	for _, f := range e.pkg.files {
		if f == e.file || !importsName(f, name) {
			continue
		}
		if e.pkg != in.main {
			return value.Undefined, true, nil
		}
		return in.lazyImport(f, name)
	}
	return nil, false, nil
}

func importsName(f *fileUnit, name string) bool {
	for _, s := range f.body {
		if imp, ok := s.(*syntax.ImportStmt); ok && imp.Name == name {
			return true
		}
	}
	return false
}

// isPrivate reports names that are mutable and not exported.
func isPrivate(name string) bool { return strings.HasPrefix(name, "_") }

// fileAt returns the package's file with the given absolute path, if any.
func (p *pkgState) fileAt(path string) *fileUnit {
	if p == nil || path == "" {
		return nil
	}
	for _, f := range p.files {
		if f.path == path {
			return f
		}
	}
	return nil
}

// lazyScope is a scope of order-independent assignments (see lazy.go).
type lazyScope struct {
	vals  map[string]value.Value
	order []string
	lay   *scopeLayout
	stmts []stmtRef
	// st is the backtracking state; a schema instance switches it per body.
	st *lazyState
	// defined marks the schema and rule statements that have run.
	defined []bool
	// assigned records where each name got a plain assignment, for
	// immutability: the same statement may run again by backtracking.
	assigned map[string]syntax.Position
	// inOrder (shared, read-only) holds the names of the layout's order,
	// added those set later.
	inOrder map[string]bool
	added   map[string]bool
	// types are the annotations of globals; later assignments must match.
	types map[string]declaredType
}

func newLazyScope(refs []stmtRef) *lazyScope {
	lay := layoutOf(refs)
	return &lazyScope{
		vals:     map[string]value.Value{},
		lay:      lay,
		order:    lay.order[:len(lay.order):len(lay.order)], // an append copies
		inOrder:  lay.inOrder,
		stmts:    refs,
		st:       newLazyState(len(lay.names)),
		defined:  make([]bool, len(refs)),
		assigned: map[string]syntax.Position{},
		types:    map[string]declaredType{},
	}
}

// id is name's index in the layout, or -1.
func (ls *lazyScope) id(name string) int {
	if id, ok := ls.lay.ids[name]; ok {
		return id
	}
	return -1
}

func (ls *lazyScope) set(name string, v value.Value) {
	if !ls.inOrder[name] && !ls.added[name] {
		// inOrder belongs to the shared layout: names it lacks go apart.
		if ls.added == nil {
			ls.added = map[string]bool{}
		}
		ls.added[name] = true
		ls.order = append(ls.order, name)
	}
	ls.vals[name] = v
}

// scopeLayout is what a lazy scope knows of its statements before any of
// them runs: which statements may assign each name and the names in
// declaration order. It depends on the statements only, so runs share it:
// the k8s module's packages and its schemas' bodies are laid out once per
// process, not on every import and every instance. It is read-only.
type scopeLayout struct {
	// stmts are the statements it was made from; holding them keeps their
	// addresses, which find it, from being reused by other statements.
	stmts []syntax.Stmt
	// ids numbers the names that have setters; setters and names are indexed
	// by those numbers.
	ids     map[string]int
	names   []string
	setters [][]setter
	// defs are the schema and rule statements defining each type name.
	defs    map[string][]int
	order   []string
	inOrder map[string]bool
}

func (lay *scopeLayout) nameID(name string) int {
	if id, ok := lay.ids[name]; ok {
		return id
	}
	id := len(lay.names)
	lay.ids[name] = id
	lay.names = append(lay.names, name)
	lay.setters = append(lay.setters, nil)
	return id
}

func newScopeLayout(refs []stmtRef) *scopeLayout {
	lay := &scopeLayout{stmts: make([]syntax.Stmt, len(refs)), ids: map[string]int{}, inOrder: map[string]bool{}}
	for i, r := range refs {
		lay.stmts[i] = r.stmt
		switch s := r.stmt.(type) {
		case *syntax.SchemaStmt:
			if lay.defs == nil {
				lay.defs = map[string][]int{}
			}
			lay.defs[s.Name.Value] = append(lay.defs[s.Name.Value], i)
		case *syntax.RuleStmt:
			if lay.defs == nil {
				lay.defs = map[string][]int{}
			}
			lay.defs[s.Name.Value] = append(lay.defs[s.Name.Value], i)
		default:
			lay.emitSetters(i, r.stmt)
		}
		for _, n := range stmtTargets(r.stmt, nil) {
			// Output order is declaration order, whatever order values are computed in.
			if !lay.inOrder[n] {
				lay.inOrder[n] = true
				lay.order = append(lay.order, n)
			}
		}
	}
	return lay
}

// maxScopeLayouts bounds the shared layouts; past it the cache starts over.
const maxScopeLayouts = 8192

var scopeLayouts = struct {
	sync.Mutex
	m map[uint64][]*scopeLayout
	n int
	// evictions is the package parse cache's count of dropped files when
	// the map was started: once a file is dropped, the layouts start over,
	// so that they never keep alive an AST the cache let go of.
	evictions int64
}{m: map[uint64][]*scopeLayout{}}

var scopeLayoutSeed = maphash.MakeSeed()

// layoutOf returns the shared layout of refs' statements, made on first use.
// Only statements of imported packages' parsed modules are shared (see
// sharedBodies), which the package parse cache holds anyway: a controller
// compiles thousands of distinct main packages, whose ASTs the layouts would
// otherwise keep alive past the main files' cache, and a body rewritten for
// one run would only fill the map.
func layoutOf(refs []stmtRef) *scopeLayout {
	if !sharedBodies(refs) {
		return newScopeLayout(refs)
	}
	h := uint64(len(refs))
	for _, r := range refs {
		h = h*1099511628211 ^ maphash.Comparable(scopeLayoutSeed, r.stmt)
	}
	scopeLayouts.Lock()
	if ev := sharedParseCache.evictions.Load(); ev != scopeLayouts.evictions {
		scopeLayouts.m, scopeLayouts.n, scopeLayouts.evictions = map[uint64][]*scopeLayout{}, 0, ev
	}
	for _, lay := range scopeLayouts.m[h] {
		if sameStmts(lay.stmts, refs) {
			scopeLayouts.Unlock()
			return lay
		}
	}
	scopeLayouts.Unlock()
	lay := newScopeLayout(refs)
	scopeLayouts.Lock()
	defer scopeLayouts.Unlock()
	if scopeLayouts.n >= maxScopeLayouts {
		scopeLayouts.m, scopeLayouts.n = map[uint64][]*scopeLayout{}, 0
	}
	scopeLayouts.m[h] = append(scopeLayouts.m[h], lay)
	scopeLayouts.n++
	return lay
}

func sameStmts(stmts []syntax.Stmt, refs []stmtRef) bool {
	if len(stmts) != len(refs) {
		return false
	}
	for i, r := range refs {
		if stmts[i] != r.stmt {
			return false
		}
	}
	return true
}

// sharedBodies reports statements that all come from the bodies of parsed
// modules of imported packages (schema bodies included), not of the main
// package, and not from a per-run copy of a file's body made when configs
// were merged or overrides applied.
func sharedBodies(refs []stmtRef) bool {
	for _, r := range refs {
		f := r.file
		if f == nil || f.mod == nil || f.pkg == nil || f.pkg.path == value.MainPkg || !sameBody(f.body, f.mod.Body) {
			return false
		}
	}
	return true
}

func sameBody(a, b []syntax.Stmt) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// stmtTargets lists the names a statement may assign.
func stmtTargets(s syntax.Stmt, out []string) []string {
	switch s := s.(type) {
	case *syntax.SchemaStmt:
		out = append(out, s.Name.Value)
	case *syntax.RuleStmt:
		out = append(out, s.Name.Value)
	case *syntax.IfStmt:
		for _, b := range s.Body {
			out = stmtTargets(b, out)
		}
		for _, b := range s.Orelse {
			out = stmtTargets(b, out)
		}
	default:
		out = assignedNames(s, out)
	}
	return out
}
