package check

import "github.com/kcl-lang/flux-kcl-controller/kcl/syntax"

// The official resolver walks the value of an assignment to a typed target
// with that type as its "config expression context": every config literal
// met on the way (through parentheses, both branches of `if`, both operands
// of any operator, list items, comprehensions and their iterables) has its
// keyed entries checked against the context's type for that key, and the
// context follows the key into the entry's value. A context of any other
// type than a dict, list, schema or union of those checks nothing below.
// ctxCheck is that walk, over the expressions it can follow; at is the
// position of the assignment's target ("variable is defined here").

// memberType is the context below key name of want (the official
// find_schema_attr_obj_from_schema_expr_stack); nil when there is none.
func (r *checker) memberType(want *typ, name string) *typ {
	if want == nil || name == "" {
		return nil
	}
	switch want.kind {
	case tList, tDict:
		return want.elem
	case tSchema:
		if want.schema.hasAttr(name) {
			t, _ := r.attrType(want.schema, name)
			return t
		}
		if want.schema.stmt != nil && want.schema.stmt.IndexSignature != nil {
			return r.indexValueType(want.schema)
		}
		return nil
	case tUnion:
		var ts []*typ
		for _, m := range want.elems {
			switch m.kind {
			case tDict:
				ts = append(ts, m.elem)
			case tSchema:
				if m.schema.hasAttr(name) {
					t, _ := r.attrType(m.schema, name)
					ts = append(ts, t)
				} else if m.schema.stmt != nil && m.schema.stmt.IndexSignature != nil {
					ts = append(ts, r.indexValueType(m.schema))
				}
			}
		}
		return union(ts)
	}
	return nil
}

// ctxCheck walks e under the context type want.
func (r *checker) ctxCheck(want *typ, e syntax.Expr, at *syntax.Position, depth int) {
	if depth > 100 || want.isAny() || e == nil {
		return
	}
	switch want.kind {
	case tList, tDict, tSchema, tUnion:
	default:
		return
	}
	switch e := e.(type) {
	// The context stays while these are walked (not for call arguments).
	case *syntax.ParenExpr:
		r.ctxEach(want, at, depth, e.Expr)
	case *syntax.IfExpr:
		r.ctxEach(want, at, depth, e.Cond, e.Body, e.Orelse)
	case *syntax.Subscript:
		r.ctxEach(want, at, depth, e.Value, e.Index)
	case *syntax.SelectorExpr:
		r.ctxEach(want, at, depth, e.Value)
	case *syntax.UnaryExpr:
		r.ctxEach(want, at, depth, e.Operand)
	case *syntax.QuantExpr:
		r.ctxEach(want, at, depth, e.Target)
	case *syntax.Compare:
		r.ctxEach(want, at, depth, append([]syntax.Expr{e.Left}, e.Comparators...)...)
	case *syntax.BinaryExpr:
		r.ctxEach(want, at, depth, e.Left, e.Right)
	case *syntax.ConfigExpr:
		r.ctxConfig(want, e.Items, at, depth+1)
	case *syntax.ListExpr:
		m := r.memberType(want, "[]")
		for _, el := range e.Elts {
			if el == nil {
				continue
			}
			r.pushOrder(el.Pos(), phaseValue)
			r.ctxListItem(m, el, at, depth+1)
			r.popOrder()
		}
	case *syntax.ListComp:
		m := r.memberType(want, "[]")
		r.withScope(func(sc *scope) {
			r.ctxGenerators(m, e.Generators, sc, at, depth+1)
			r.ctxCheck(m, e.Elt, at, depth+1)
		})
	case *syntax.DictComp:
		if e.Entry == nil {
			return
		}
		r.withScope(func(sc *scope) {
			r.ctxGenerators(want, e.Generators, sc, at, depth+1)
			m := want
			if names := ctxKeyNames(e.Entry.Key); names != nil {
				for _, n := range names {
					m = r.memberType(m, n)
				}
			}
			r.ctxCheck(m, e.Entry.Value, at, depth+1)
		})
	}
}

// ctxEach walks each of es under want.
func (r *checker) ctxEach(want *typ, at *syntax.Position, depth int, es ...syntax.Expr) {
	for _, e := range es {
		r.ctxCheck(want, e, at, depth+1)
	}
}

// ctxGenerators declares a comprehension's loop variables while walking
// their iterables under want, as the official walk_comp_clause does.
func (r *checker) ctxGenerators(want *typ, gens []*syntax.CompClause, sc *scope, at *syntax.Position, depth int) {
	for _, g := range gens {
		if g != nil {
			r.ctxCheck(want, g.Iter, at, depth)
		}
	}
	r.compTargets(gens, sc)
}

func (r *checker) ctxListItem(want *typ, el syntax.Expr, at *syntax.Position, depth int) {
	switch el := el.(type) {
	case *syntax.StarredExpr:
		r.ctxCheck(want, el.Value, at, depth)
	case *syntax.ListIfItemExpr:
		for _, x := range el.Exprs {
			r.ctxListItem(want, x, at, depth+1)
		}
		r.ctxCheck(want, el.Orelse, at, depth+1)
	default:
		r.ctxCheck(want, el, at, depth)
	}
}

// ctxKeyNames are the names a config key switches the context by; nil for
// a key that leaves it unchanged.
func ctxKeyNames(k syntax.Expr) []string {
	switch k := k.(type) {
	case *syntax.Identifier:
		return k.Parts()
	case *syntax.StringLit:
		return []string{k.Value}
	case *syntax.JoinedString:
		return []string{""}
	}
	return nil
}

// ctxConfig checks a config literal's entries under want.
func (r *checker) ctxConfig(want *typ, items []*syntax.ConfigEntry, at *syntax.Position, depth int) {
	if depth > 100 {
		return
	}
	if want.kind == tSchema {
		// A schema context is the schema's own config check: its keys
		// and its values.
		r.configItems(want.schema, items, depth)
		r.configTypes(want.schema, items, at, depth)
		return
	}
	for _, it := range items {
		if it == nil {
			continue
		}
		r.pushOrder(entryPos(it), phaseValue)
		r.ctxEntry(want, it, at, depth)
		r.popOrder()
	}
}

// ctxEntry checks one entry under want: its value, then (in the place of
// its type) the value's type.
func (r *checker) ctxEntry(want *typ, it *syntax.ConfigEntry, at *syntax.Position, depth int) {
	last := len(r.orderPath) - 1
	if it.Key == nil {
		// An `if` entry or `**value`: its entries are walked in the
		// context, then the attributes of its type are judged again
		// against the context, at the value (the official
		// check_config_value_recursively).
		var attrs []litAttr
		if ie, ok := it.Value.(*syntax.ConfigIfEntryExpr); ok {
			for items := range ifBranches(ie) {
				r.ctxConfig(want, items, at, depth+1)
			}
			if ie.Orelse == nil {
				attrs = r.literalAttrs(ie.Items, 0)
			}
		} else {
			r.ctxCheck(want, it.Value, at, depth+1)
			attrs = r.unpackedAttrs(it.Value)
		}
		if len(attrs) > 0 {
			r.orderPath[last].phase = phaseType
			r.attrsInto(want, at, attrs, it.Value.Pos(), 0)
		}
		return
	}
	if sub, ok := it.Key.(*syntax.Subscript); ok {
		// `l[0] = v` is judged against the type of l itself (0.12.1).
		id, isName := sub.Value.(*syntax.Identifier)
		if !isName || !numberIndex(sub.Index) || len(id.Names) != 1 {
			return
		}
		r.orderPath[last].phase = phaseType
		if m := r.memberType(want, id.Names[0].Value); !m.isAny() {
			r.mustAssignAt(r.exprType(it.Value, 0), m, it.Key.Pos(), at)
		}
		return
	}
	names := ctxKeyNames(it.Key)
	if names == nil {
		r.ctxCheck(want, it.Value, at, depth+1)
		return
	}
	// members[i] is the context below names[:i+1], places[i] its place: a
	// schema attribute's declaration, else the place of the context above.
	members := make([]*typ, len(names))
	places := make([]*syntax.Position, len(names))
	m, place := want, at
	r.orderPath[last].phase = phaseKey
	for i, n := range names {
		if m != nil && m.kind == tUnion && n != "" {
			// A key no member of a union of schemas declares (a schema
			// context is configItems').
			r.unionMemberAt(m, n, it.Key.Pos(), nil)
		}
		if m != nil && m.kind == tSchema && m.schema.hasAttr(n) {
			if _, decl := r.attrType(m.schema, n); decl != nil {
				place = declAt(decl)
			}
		}
		m = r.memberType(m, n)
		members[i], places[i] = m, place
	}
	r.orderPath[last].phase = phaseValue
	r.ctxCheck(m, it.Value, place, depth+1)
	r.orderPath[last].phase = phaseType
	if _, ok := it.Key.(*syntax.JoinedString); ok {
		return
	}
	// The parser nests a dotted key `a.b = v` as `a: {b = v}`: v is
	// judged against the type below b, at b, then each literal the
	// nesting makes against the context it meets, innermost first ({b: v}
	// against the type below a, at a).
	id, dotted := it.Key.(*syntax.Identifier)
	got := r.exprType(it.Value, 0)
	for i := len(names) - 1; i >= 0; i-- {
		pos := it.Key.Pos()
		if i < len(names)-1 {
			if !dotted || got.isAny() {
				return
			}
			got = nestedKey(names[i+1], id.Names[i+1].Pos(), got, got)
		}
		if dotted && len(id.Names) > 1 {
			pos = id.Names[i].Pos()
		}
		if members[i].isAny() {
			continue
		}
		r.mustAssignAt(got, members[i], pos, places[i])
	}
}
