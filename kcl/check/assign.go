package check

import (
	"fmt"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
)

// mustAssign reports a value of type got stored where want is expected.
func (r *checker) mustAssign(got, want *typ, pos syntax.Position, decl *syntax.SchemaAttr) {
	if decl != nil {
		p := decl.Pos()
		r.mustAssignAt(got, want, pos, &p)
		return
	}
	r.mustAssignAt(got, want, pos, nil)
}

// mustAssignAt is mustAssign with the declaration's position, if any.
func (r *checker) mustAssignAt(got, want *typ, pos syntax.Position, declPos *syntax.Position) {
	r.dictIntoSchema(got, want, pos, 0)
	if assignable(got, want) {
		return
	}
	d := &Diagnostic{Kind: errkind.Type, Messages: []Message{{Pos: pos, Msg: fmt.Sprintf("expected %s, got %s", want, got)}}}
	if declPos != nil {
		d.Messages = append(d.Messages, Message{Pos: *declPos, Msg: fmt.Sprintf("variable is defined here, its type is %s, but got %s", want, got)})
	}
	r.diag(d)
}

// assignTypes checks an assignment against the declared type of its target
// and records the types of globals.
func (r *checker) assignTypes(s *syntax.AssignStmt) {
	if len(s.Targets) != 1 || s.Targets[0] == nil || s.Targets[0].Name == nil {
		return
	}
	if len(s.Targets[0].Paths) != 0 {
		if s.Ty == nil {
			// x.a[0].b = v: the place's type, through schema attributes,
			// dicts and lists.
			if want := r.targetPlace(s.Targets[0]); !want.isAny() {
				r.assignLast(r.exprType(s.Value, 0), want, s.Targets[0].Pos(), nil)
			}
		}
		return
	}
	t := s.Targets[0]
	name := t.Name.Value
	switch {
	case r.local == nil && r.schema == nil:
		if l, ok := s.Value.(*syntax.LambdaExpr); ok && l.ReturnTy != nil && r.lambdaResults[name] == nil {
			r.lambdaResults[name] = r.fromSyntax(r.pkg, l.ReturnTy, 0)
		}
		if s.Ty != nil {
			// The global passes gave the name its type and place.
			var at syntax.Position
			if g := r.globals[name]; g != nil {
				at = g.pos
			}
			r.typedAssign(s, r.varTypes[name], at, func(t *typ) { r.varTypes[name] = t })
			return
		}
		r.flowAssign(s, func(n string) *typ { return r.varTypes[n] }, func(n string, t *typ) { r.varTypes[n] = t })
	case r.local != nil && r.local.lambda:
		sc := r.local
		if sc.assignedAt == nil {
			sc.assignedAt = map[string]syntax.Position{}
		}
		if _, seen := sc.assignedAt[name]; !seen {
			sc.assignedAt[name] = t.Pos()
		}
		if s.Ty != nil {
			r.typedAssign(s, sc.types[name], sc.assignedAt[name], func(t *typ) { sc.setType(name, t) })
			return
		}
		r.flowAssign(s, func(n string) *typ { return sc.types[n] }, sc.setType)
	case r.schema != nil && r.local == r.schemaScope && s.Ty == nil:
		want, decl := r.attrType(r.schema, name)
		if decl == nil {
			// An undeclared name is a local of the body.
			sc := r.schemaScope
			r.flowAssign(s, func(n string) *typ { return sc.types[n] }, sc.setType)
			return
		}
		if want.isAny() {
			return
		}
		// A schema-typed attribute's literal is a config of its schema.
		pos := t.Pos()
		r.ctxCheck(want, s.Value, &pos, 0)
		r.assignLast(r.exprType(s.Value, 0), want, t.Pos(), nil)
	}
}

// targetPlace is the type of the place a target with paths names; any where
// it is not known. A member a schema does not declare is reported there.
func (r *checker) targetPlace(t *syntax.Target) *typ {
	cur := r.nameType(t.Name.Value)
	paths := t.Paths
	if name := t.Name.Value; len(paths) > 0 && paths[0].Member != nil && !r.localHas(name) && !(r.schema != nil && r.schema.hasAttr(name)) {
		// A module's member: it must be one (the official load_attr), and
		// the rest of the path follows its type.
		if sym := r.pkg.globals[name]; sym != nil && sym.kind == symModule {
			id := &syntax.Identifier{Span: t.Name.Span, Names: []*syntax.Name{t.Name, paths[0].Member}}
			r.moduleMembersAt(sym, id, t.Pos())
			cur, paths = r.exprType(id, 0), paths[1:]
		}
	}
	for _, p := range paths {
		if cur == nil || cur.isAny() {
			return anyT
		}
		switch {
		case p.Member != nil && noMembers(cur, p.Member.Value):
			r.report(errkind.Type, t.Pos(), "attribute '%s' not found in '%s'", p.Member.Value, cur)
			return anyT
		case p.Member != nil && cur.isStrKind():
			// A str's member is one of its methods (noMembers above): the
			// place has the method's function type, which no value fits.
			cur = strMethodType(p.Member.Value)
		case p.Index != nil && !subscriptable(cur):
			r.report(errkind.Compile, t.Pos(), "'%s' object is not subscriptable", cur)
			return anyT
		case p.Index != nil:
			r.indexType(cur, p.Index, t.Pos())
			if cur.kind == tList || cur.kind == tDict {
				cur = cur.elem
				continue
			}
			return anyT
		case p.Member != nil && cur.kind == tSchema && !cur.schema.open() && !cur.schema.hasDeclared(p.Member.Value):
			s, n := cur.schema, p.Member.Value
			r.report(errkind.Compile, t.Pos(), "Cannot add member '%s' to schema '%s'%s", n, s.name, suggestionText(suggestions(n, s.attrNames())))
			r.report(errkind.Type, t.Pos(), "attribute '%s' not found in '%s'%s", n, cur, suggestionText(suggestions(n, s.attrNames())))
			return anyT
		case p.Member != nil && cur.kind == tDict && cur.attrs[p.Member.Value] != nil:
			cur = cur.attrs[p.Member.Value]
		case p.Member != nil && (cur.kind == tDict || cur.kind == tSchema):
			cur = r.memberType(cur, p.Member.Value)
		default:
			return anyT
		}
	}
	if cur == nil {
		return anyT
	}
	return cur
}

// noMembers reports whether a value of type t has no member name, as the
// official load_attr finds none on a number, a bool, a list or a function,
// nor on a str but its methods.
func noMembers(t *typ, name string) bool {
	switch t.kind {
	case tNumMul, tBool, tInt, tFloat, tLitBool, tLitInt, tLitFloat, tList, tFunc:
		return true
	case tStr, tLitStr:
		return strMethodResults[name] == nil
	}
	return false
}

// subscriptable reports whether the official subscript_index takes an index
// of a value of type t: a str, list, dict or schema (any aside).
func subscriptable(t *typ) bool {
	switch t.kind {
	case tStr, tLitStr, tList, tDict, tSchema, tAny:
		return true
	}
	return false
}

// flowAssign checks an assignment without annotation of a name whose type
// its first assignment sets (the package's globals, a lambda's locals, a
// schema body's undeclared ones): the first value walked types the name,
// later values must fit it.
func (r *checker) flowAssign(s *syntax.AssignStmt, typeOf func(string) *typ, setType func(string, *typ)) {
	t := s.Targets[0]
	name := t.Name.Value
	got := r.exprType(s.Value, 0)
	// The first assignment walked types the name; later ones must
	// fit that type, as in the official resolver.
	if want := typeOf(name); want != nil {
		pos := t.Pos()
		if want.kind != tSchema {
			r.ctxCheck(want, s.Value, &pos, 0)
		} else if cfg := unionedConfig(s.Value); cfg != nil {
			// The name's schema type is the context of the literal:
			// its keys must be the schema's.
			r.configKeys(want.schema, cfg, 0)
			r.configTypes(want.schema, cfg.Items, &pos, 0)
		} else if cfg, ok := s.Value.(*syntax.ConfigExpr); ok {
			r.configKeys(want.schema, cfg, 0)
			r.configTypes(want.schema, cfg.Items, &pos, 0)
		}
		r.assignLast(got, want, pos, nil)
		return
	}
	if got.hasModule() {
		// The first value is judged against any, which no module fits.
		r.assignLast(got, anyT, t.Pos(), nil)
	}
	if w := widen(got); !w.isAny() {
		setType(name, w)
	}
}

// typedAssign checks an annotated assignment of a global or of a lambda's
// local as the official walk does: the value is judged against the type the
// name has so far, cur (a global's from the global passes, its last
// annotation; a local's from its first assignment), and an annotation other
// than a schema's may not widen it ("can not change the type", pointing at
// the name's place, at). A name without a type yet has no context: its
// value must fit the annotation, which types it.
func (r *checker) typedAssign(s *syntax.AssignStmt, cur *typ, at syntax.Position, setType func(*typ)) {
	t := s.Targets[0]
	name := t.Name.Value
	got := r.exprType(s.Value, 0)
	ann := r.fromSyntax(r.pkg, s.Ty, 0)
	pos := t.Pos()
	if cur.isAny() {
		r.assignLast(got, ann, pos, nil)
		if !ann.isAny() {
			setType(ann)
		}
		return
	}
	if cur.kind == tSchema {
		if cfg, ok := s.Value.(*syntax.ConfigExpr); ok {
			r.configKeys(cur.schema, cfg, 0)
			r.configTypes(cur.schema, cfg.Items, &pos, 0)
		} else {
			// The config literals met in the value (through parentheses,
			// both branches of `if` and both operands) are walked under it.
			r.ctxCheck(cur, s.Value, &pos, 0)
		}
	} else {
		r.ctxCheck(cur, s.Value, &pos, 0)
		if !narrower(cur, ann, 0) {
			r.pushLast()
			r.diag(&Diagnostic{Kind: errkind.Type, Messages: []Message{
				{Pos: pos, Msg: fmt.Sprintf("can not change the type of '%s' to %s", name, ann)},
				{Pos: at, Msg: fmt.Sprintf("expected %s", cur)},
			}})
			r.popOrder()
		}
	}
	r.assignLast(got, cur, pos, nil)
}

// assignLast is mustAssign of a whole assignment, judged after the walk of
// its value.
func (r *checker) assignLast(got, want *typ, pos syntax.Position, decl *syntax.SchemaAttr) {
	r.pushLast()
	r.mustAssign(got, want, pos, decl)
	r.popOrder()
}
