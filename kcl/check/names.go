package check

import (
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
)

// ident checks a loaded identifier, `a` or `a.b.c`; false when it is an
// undefined name or a module's missing member, which the official resolver
// types any.
func (r *checker) ident(id *syntax.Identifier) bool {
	if id == nil || len(id.Names) == 0 || id.Ctx == syntax.Store {
		return true
	}
	first := id.Names[0].Value
	// A parent's undeclared body names are locals of its body: the official
	// resolver does not see them in a child's.
	if r.localHas(first) || (r.schema != nil && r.schema.hasDeclared(first)) {
		if len(id.Names) > 1 {
			r.attrPath(r.nameType(first), id, true)
		}
		return true
	}
	sym := r.pkg.globals[first]
	if sym == nil {
		if builtinSet[first] {
			return true
		}
		if s := r.schema; s != nil {
			// Mixins and rules keep some dynamic lookups: a lower-case
			// name in a mixin may be an attribute of its host.
			if s.isRule || (s.isMixin && !startsUpper(first)) {
				return true
			}
		}
		r.undefined(first, id.Pos())
		return false
	}
	if len(id.Names) > 1 {
		if sym.kind == symModule {
			if !r.moduleMembers(sym, id) {
				return false
			}
			if len(id.Names) > 2 && sym.module != nil {
				// pkg.value.member: the member of the value's type.
				if target := r.infos[sym.module.Path]; target != nil && target.varTypes[id.Names[1].Value] != nil {
					rest := &syntax.Identifier{Span: id.Span, Names: id.Names[1:], Ctx: id.Ctx}
					r.attrPath(target.varTypes[id.Names[1].Value], rest, true)
				}
			}
			return true
		}
		r.attrPath(r.nameType(first), id, true)
	}
	return true
}

// visibleGlobal is the package's global name, nil if it has none or the
// first global pass has not met it yet (see globalPass).
func (r *checker) visibleGlobal(name string) *symbol {
	sym := r.pkg.globals[name]
	if sym == nil || r.early == nil || r.early[name] {
		return sym
	}
	switch sym.kind {
	case symModule, symSchema:
		return sym
	}
	return nil
}

// undefined reports a name that no scope defines, with suggestions.
func (r *checker) undefined(name string, pos syntax.Position) {
	cands := append([]string(nil), builtinNames...)
	for _, n := range r.pkg.order {
		if r.visibleGlobal(n) != nil {
			cands = append(cands, n)
		}
	}
	var locals [][]string
	for sc := r.local; sc != nil; sc = sc.parent {
		locals = append(locals, sc.order)
	}
	for i := len(locals) - 1; i >= 0; i-- {
		cands = append(cands, locals[i]...)
	}
	r.report(errkind.Compile, pos, "name '%s' is not defined%s", strings.ReplaceAll(name, "@", ""), suggestionText(suggestions(name, cands)))
}

// moduleMembers checks the member of `mod.member` when mod is a module;
// false when the module has no such member.
func (r *checker) moduleMembers(sym *symbol, id *syntax.Identifier) bool {
	return r.moduleMembersAt(sym, id, id.Pos())
}

// moduleMembersAt is moduleMembers reporting at pos.
func (r *checker) moduleMembersAt(sym *symbol, id *syntax.Identifier, pos syntax.Position) bool {
	if sym.kind != symModule || len(id.Names) < 2 {
		return true
	}
	member := id.Names[1].Value
	var modName string
	switch {
	case sym.module != nil:
		target := r.infos[sym.module.Path]
		if target == nil || target.globals[member] != nil {
			return true
		}
		modName = sym.module.Path
	case sym.system != "":
		if systemMembers[sym.system][member] {
			return true
		}
		modName = sym.system
	default:
		return true // plugin
	}
	r.report(errkind.Type, pos, "attribute '%s' not found in 'module '%s''", member, modName)
	return false
}

func startsUpper(s string) bool { return s != "" && s[0] >= 'A' && s[0] <= 'Z' }

// loopVar reports that name is a comprehension or quantifier variable.
func (r *checker) loopVar(name string) bool { return r.loopVarIn(r.local, name) }

// loopVarIn is loopVar from scope from outwards.
func (r *checker) loopVarIn(from *scope, name string) bool {
	for sc := from; sc != nil; sc = sc.parent {
		if sc.names[name] {
			return sc.loop
		}
	}
	return false
}

func (r *checker) localHas(name string) bool {
	for sc := r.local; sc != nil; sc = sc.parent {
		if sc.names[name] {
			return true
		}
	}
	return false
}
