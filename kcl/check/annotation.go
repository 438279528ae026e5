package check

import (
	"fmt"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
)

func (r *checker) typ(t syntax.Type) {
	switch t := t.(type) {
	case *syntax.NamedType:
		if t.Identifier != nil {
			r.typeName(t.Identifier)
		}
	case *syntax.ListType:
		r.typ(t.InnerType)
	case *syntax.DictType:
		r.typ(t.KeyType)
		r.typ(t.ValueType)
	case *syntax.UnionType:
		for _, e := range t.TypeElements {
			r.typ(e)
		}
	case *syntax.FunctionType:
		for _, p := range t.ParamsTy {
			r.typ(p)
		}
		r.typ(t.RetTy)
	}
}

// annotation checks a type annotation. The official resolver reports an
// undefined name in one at the annotation's start: `x: [Nope]` at `[`. The
// annotations its global passes resolve are reported by globalPass and
// schemaPrepass, before any statement is walked, and not again.
func (r *checker) annotation(t syntax.Type) {
	if t == nil {
		return
	}
	if !r.prepassed[t] {
		r.typeAtStart(t)
	}
}

// typeAtStart reports the undefined names of t at t's start.
func (r *checker) typeAtStart(t syntax.Type) {
	if t == nil {
		return
	}
	p := t.Pos()
	r.typeAt = &p
	r.typ(t)
	r.typeAt = nil
}

// The official resolver builds a package's global scope in passes before it
// walks the bodies, and each resolves names as far as the scope then holds
// them (identical diagnostics are reported once, see dedupe):
//
//   - the first global pass, file by file: the file's type aliases, then its
//     top-level statements (in top-level ifs too) in order: an assignment's
//     annotation (unless the global is assigned twice, reported there
//     instead) and the schema name of `x: T {…}`; a global is in scope from
//     its statement on, schemas, rules and imports from the start;
//   - the schema types (checkSchemaTypes): index signatures, attribute types
//     and the schema names of `x: T {…}` in schema bodies (at the
//     statement), parameters;
//   - the second global pass, the same with every global in scope, where an
//     undefined name gets its "did you mean" a second time.
//
// An undefined name in any of them comes before every error of the walk.

// globalPass is one of the two global passes over a file (early: the first).
func (r *checker) globalPass(f *SourceFile, early bool) {
	r.file = f
	for _, st := range f.Body {
		s, ok := st.(*syntax.TypeAliasStmt)
		if !ok || s.TypeName == nil {
			continue
		}
		r.markType(s.Ty, s.TypeName.Pos()) // at the alias's name
		if early {
			r.aliasName(s)
			r.early[s.TypeName.Name()] = true
		}
		r.aliasGlobal(s)
	}
	var walk func(stmts []syntax.Stmt)
	walk = func(stmts []syntax.Stmt) {
		for _, st := range stmts {
			switch s := st.(type) {
			case *syntax.AssignStmt:
				marked := false
				for _, t := range s.Targets {
					if d := r.immutableAt[t]; d != nil && early {
						r.diag(d)
						continue
					}
					if !marked {
						r.markAtStart(s.Ty)
						marked = true
					}
					if early && t != nil && t.Name != nil {
						r.early[t.Name.Value] = true
					}
					r.globalType(t, s.Ty)
				}
			case *syntax.UnificationStmt:
				if s.Value != nil && s.Value.Name != nil {
					r.schemaName(s.Value.Name, s.Value.Name.Pos())
				}
				if early && s.Target != nil && len(s.Target.Names) > 0 {
					r.early[s.Target.Names[0].Value] = true
				}
				if s.Target != nil && len(s.Target.Names) > 0 {
					t := anyT
					if s.Value != nil {
						if si := r.schemaByIdent(r.pkg, s.Value.Name); si != nil && !si.isRule {
							t = &typ{kind: tSchema, schema: si, instance: true}
						}
					}
					r.globals[s.Target.Names[0].Value] = &globalObj{t: t, pos: s.Target.Pos()}
				}
			case *syntax.IfStmt:
				walk(s.Body)
				walk(s.Orelse)
			}
		}
	}
	walk(f.Body)
}

// aliasGlobal gives a type alias's name, a global of the official scope,
// the aliased type (each pass, and the walk, inserts it again): a value
// assigned to that name must fit it.
func (r *checker) aliasGlobal(s *syntax.TypeAliasStmt) {
	if s.Ty != nil {
		r.globals[s.TypeName.Name()] = &globalObj{t: r.fromSyntax(r.pkg, s.Ty, 0), pos: s.TypeName.Pos()}
	}
}

// aliasName reports a type alias named as a built-in type.
func (r *checker) aliasName(s *syntax.TypeAliasStmt) {
	switch name := s.TypeName.Name(); name {
	case "any", "int", "float", "str", "bool":
		r.report(errkind.Type, s.TypeName.Pos(), `type alias '%s' cannot be the same as the built-in types (["any", "int", "float", "str", "bool"])`, name)
	}
}

// globalType records a top-level assignment's target in the global scope,
// as each official global pass does: an annotation may not widen the type
// the name has so far ("can not change the type", the first pass reports a
// later annotation, the second an earlier one against the last), and it
// gives the name its type; the place is the last assignment's.
func (r *checker) globalType(t *syntax.Target, ann syntax.Type) {
	if t == nil || t.Name == nil {
		return
	}
	name := t.Name.Value
	prev := r.globals[name]
	g := &globalObj{t: anyT, pos: t.Pos()}
	switch {
	case ann != nil:
		g.t = r.fromSyntax(r.pkg, ann, 0)
		if prev != nil && !narrowerIn(g.t, prev.t, 0, r.early == nil) {
			r.diag(&Diagnostic{Kind: errkind.Type, Messages: []Message{
				{Pos: t.Pos(), Msg: fmt.Sprintf("can not change the type of '%s' to %s", name, prev.t)},
				{Pos: prev.pos, Msg: fmt.Sprintf("expected %s", prev.t)},
			}})
		}
	case prev != nil:
		g.t = prev.t
	}
	r.globals[name] = g
}

// markType reports the undefined names of an annotation the global passes
// resolve, at p, and keeps the walk from reporting them again.
func (r *checker) markType(t syntax.Type, p syntax.Position) {
	if t == nil {
		return
	}
	r.prepassed[t] = true
	r.typeAt = &p
	r.typ(t)
	r.typeAt = nil
}

func (r *checker) markAtStart(t syntax.Type) {
	if t != nil {
		r.markType(t, t.Pos())
	}
}

// paramAnnotations resolves the parameter types of a schema or rule, each reported
// at the parameter's name, after the parameter's clash with an attribute of
// attrs.
func (r *checker) paramAnnotations(a *syntax.Arguments, attrs map[string]bool) {
	if a == nil {
		return
	}
	for i, p := range a.Args {
		if p == nil {
			continue
		}
		if len(p.Names) == 1 && attrs[p.Names[0].Value] {
			// A schema's own attributes (its body's names) only: an
			// inherited or mixed-in one may share the parameter's name.
			r.report(errkind.Compile, p.Pos(), "Unexpected parameter name '%s' with the same name as the schema attribute", p.Names[0].Value)
		}
		if i < len(a.TyList) && a.TyList[i] != nil {
			r.markType(a.TyList[i], p.Pos())
		}
	}
}

// schemaName resolves the schema name of `x: T {…}` in a global pass,
// reporting at pos: an undefined name or a missing member of a module (a
// variable's type is not known yet, so nothing else).
func (r *checker) schemaName(id *syntax.Identifier, pos syntax.Position) {
	if len(id.Names) == 0 {
		return
	}
	first := id.Names[0].Value
	sym := r.visibleGlobal(first)
	if sym == nil {
		if !builtinSet[first] {
			r.undefined(first, pos)
		}
		return
	}
	if len(id.Names) > 1 && sym.kind == symModule {
		r.moduleMembersAt(sym, id, pos)
	}
}

// typeName checks the name of a schema or type alias used as a type.
func (r *checker) typeName(id *syntax.Identifier) {
	if len(id.Names) == 0 {
		return
	}
	pos := id.Pos()
	if r.typeAt != nil {
		pos = *r.typeAt
	}
	first := id.Names[0].Value
	if len(id.Names) == 1 {
		if r.visibleGlobal(first) != nil || builtinSet[first] || r.localHas(first) {
			return
		}
		r.undefined(id.Names[0].Value, pos)
		return
	}
	// A qualified type: the member must exist in a user module.
	sym := r.visibleGlobal(first)
	if sym == nil && r.localHas(first) {
		return
	}
	if sym == nil {
		r.undefined(first, pos)
		return
	}
	if sym.system != "" {
		// System modules also export types (units.NumberMultiplier); a
		// name they do not have at all is the official TypeError.
		member := id.Names[1].Value
		if len(id.Names) == 2 && !systemMembers[sym.system][member] && !(sym.system == "units" && member == "NumberMultiplier") {
			r.report(errkind.Type, pos, "attribute '%s' not found in 'module '%s''", member, sym.system)
		}
		return
	}
	r.moduleMembersAt(sym, id, pos)
}
