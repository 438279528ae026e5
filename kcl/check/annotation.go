package check

import (
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
// annotations its global pass resolves are reported by annotationPrepass,
// before any statement is walked, and not again.
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

// annotationPrepass is the official global pass over the annotations of a
// package: of top-level assignments (in top-level ifs too), type aliases,
// schema and rule parameters, index signatures and schema attributes. An
// undefined name in one of them comes before every other error.
func (r *checker) annotationPrepass(stmts []syntax.Stmt) {
	markAt := func(t syntax.Type, p syntax.Position) {
		if t != nil {
			r.prepassed[t] = true
			r.typeAt = &p
			r.typ(t)
			r.typeAt = nil
		}
	}
	mark := func(t syntax.Type) {
		if t != nil {
			markAt(t, t.Pos())
		}
	}
	// A schema's or rule's parameter is reported at its name.
	args := func(a *syntax.Arguments) {
		if a == nil {
			return
		}
		for i, t := range a.TyList {
			if t != nil && i < len(a.Args) && a.Args[i] != nil {
				markAt(t, a.Args[i].Pos())
			}
		}
	}
	for _, st := range stmts {
		switch s := st.(type) {
		case *syntax.AssignStmt:
			mark(s.Ty)
		case *syntax.IfStmt:
			r.annotationPrepass(s.Body)
			r.annotationPrepass(s.Orelse)
		case *syntax.TypeAliasStmt:
			if s.TypeName != nil && s.Ty != nil {
				markAt(s.Ty, s.TypeName.Pos()) // at the alias's name
			}
		case *syntax.RuleStmt:
			args(s.Args)
		case *syntax.SchemaStmt:
			args(s.Args)
			if sig := s.IndexSignature; sig != nil {
				mark(sig.KeyTy)
				mark(sig.ValueTy)
			}
			for _, b := range s.Body {
				if a, ok := b.(*syntax.SchemaAttr); ok {
					mark(a.Ty)
				}
			}
		}
	}
}

// typeName checks the name of a schema or type alias used as a type.
func (r *checker) typeName(id *syntax.Identifier) {
	if len(id.Names) == 0 {
		return
	}
	first := id.Names[0].Value
	if len(id.Names) == 1 {
		if r.pkg.globals[first] != nil || builtinSet[first] || r.localHas(first) {
			return
		}
		pos := id.Pos()
		if r.typeAt != nil {
			pos = *r.typeAt
		}
		r.undefined(id.Names[0].Value, pos)
		return
	}
	// A qualified type: the member must exist in a user module.
	sym := r.pkg.globals[first]
	if sym == nil && r.localHas(first) {
		return
	}
	if sym == nil {
		r.undefined(first, id.Pos())
		return
	}
	if sym.system != "" {
		// System modules also export types (units.NumberMultiplier); a
		// name they do not have at all is the official TypeError.
		member := id.Names[1].Value
		if len(id.Names) == 2 && !systemMembers[sym.system][member] && !(sym.system == "units" && member == "NumberMultiplier") {
			pos := id.Pos()
			if r.typeAt != nil {
				pos = *r.typeAt
			}
			r.report(errkind.Type, pos, "attribute '%s' not found in 'module '%s''", member, sym.system)
		}
		return
	}
	r.moduleMembers(sym, id)
}
