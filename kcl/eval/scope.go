package eval

import (
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl/builtins"
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
	loop   bool
	parent *locals
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
	for s := l; s != nil; s = s.parent {
		if v, ok := s.vars[name]; ok {
			return v, true
		}
		if s.config != nil && s.named[name] {
			if v, ok := s.config.Get(name); ok {
				return v, true
			}
		}
	}
	return nil, false
}

// lookup resolves a name: locals, schema attributes, globals, imports, builtins.
func (in *Interp) lookup(e *env, name string, pos syntax.Position) (value.Value, error) {
	if v, ok := e.locals.get(name); ok {
		return v, nil
	}
	if e.schema != nil {
		v, ok, err := in.frameLookup(e.schema, name)
		if err != nil {
			return nil, err
		}
		if ok {
			return v, nil
		}
	}
	if e.pkg != nil {
		v, ok, err := in.globalLookup(e.pkg, name)
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
	return nil, errorAt(pos, KindCompile, "name '%s' is not defined", name)
}

// globalLookup reads a package global, running its assignments first if they
// have not run yet.
func (in *Interp) globalLookup(p *pkgState, name string) (value.Value, bool, error) {
	ls := p.global
	if idxs, ok := ls.setters[name]; ok && !ls.running[name] {
		ls.running[name] = true
		for _, i := range idxs {
			if !ls.done[i] {
				if err := in.runGlobalStmt(p, i); err != nil {
					delete(ls.running, name)
					return nil, false, err
				}
			}
		}
		delete(ls.running, name)
	}
	v, ok := ls.vals[name]
	if !ok && len(ls.setters[name]) > 0 {
		// Assigned only on a branch that did not run.
		return value.Undefined, true, nil
	}
	return v, ok, nil
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
