package check

import (
	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
)

func (r *checker) exprs(es []syntax.Expr) {
	for _, e := range es {
		r.expr(e)
	}
}

func (r *checker) expr(e syntax.Expr) {
	if e == nil {
		return
	}
	r.depth++
	defer func() { r.depth-- }()
	if r.depth > maxDepth {
		return
	}
	switch e := e.(type) {
	case *syntax.Identifier:
		r.ident(e)
	case *syntax.UnaryExpr:
		r.expr(e.Operand)
		r.unary(e)
	case *syntax.BinaryExpr:
		r.expr(e.Left)
		r.expr(e.Right)
		r.binary(e)
	case *syntax.IfExpr:
		r.expr(e.Cond)
		r.expr(e.Body)
		r.expr(e.Orelse)
	case *syntax.SelectorExpr:
		r.expr(e.Value)
		r.moduleQuestion(e)
		r.constantAttr(e)
		r.valueAttr(e)
	case *syntax.CallExpr:
		id, _ := e.Func.(*syntax.Identifier)
		known := true
		if id != nil {
			known = r.ident(id)
		} else {
			r.expr(e.Func)
		}
		if sig, ok := r.callSignature(id); ok {
			r.callArguments(id, sig, e.Args, e.Keywords)
		} else if !known {
			// An any callee is variadic to the official resolver.
			r.matchArguments(id.Pos(), `"`+id.Name()+`"`, nil, true, e.Args, e.Keywords, nil)
		} else if !r.knownCall(e) {
			r.exprs(e.Args)
			for _, k := range e.Keywords {
				r.expr(k.Value)
			}
		}
		r.callable(e)
	case *syntax.ParenExpr:
		r.expr(e.Expr)
	case *syntax.QuantExpr:
		r.expr(e.Target)
		r.iterable(e.Target)
		r.loopVariables(e.Variables, false)
		r.withScope(func(sc *scope) {
			sc.loop = true
			// Typed as they iterate, as a comprehension's (the official
			// walk_quant_expr runs do_loop_type_check).
			r.compClauseTargets(&syntax.CompClause{Targets: e.Variables, Iter: e.Target}, sc)
			r.expr(e.IfCond)
			r.expr(e.Test)
		})
	case *syntax.ListExpr:
		// Each item is a place of its own: a typed target's checks of
		// an item's literal come before the next item's walk.
		for _, el := range e.Elts {
			if el == nil {
				continue
			}
			r.pushOrder(el.Pos(), phaseValue)
			r.expr(el)
			r.popOrder()
		}
	case *syntax.ListIfItemExpr:
		r.expr(e.IfCond)
		r.exprs(e.Exprs)
		r.expr(e.Orelse)
	case *syntax.StarredExpr:
		r.expr(e.Value)
	case *syntax.ListComp:
		r.withScope(func(sc *scope) {
			r.generators(e.Generators, sc)
			r.expr(e.Elt)
		})
		if _, ok := e.Elt.(*syntax.StarredExpr); ok {
			r.report(errkind.Compile, e.Elt.Pos(), "list unpacking cannot be used in list comprehension")
		}
	case *syntax.DictComp:
		r.withScope(func(sc *scope) {
			r.generators(e.Generators, sc)
			if e.Entry != nil {
				r.expr(e.Entry.Key)
				// The key must be a string (the official check_attr_ty,
				// before the value is walked), its loop variables typed as
				// they iterate.
				if e.Entry.Key != nil {
					if t := r.exprType(e, 0); t.kind == tDict && !t.key.isAny() && !t.key.isStrKind() && !(t.key.kind == tUnion && allStr(t.key.elems)) {
						r.report(errkind.IllegalAttribute, e.Entry.Key.Pos(), "A attribute must be string type, got '%s'", t.key)
					}
				}
				r.expr(e.Entry.Value)
			}
		})
		if e.Entry != nil && e.Entry.Key == nil && e.Entry.Value != nil {
			r.report(errkind.Compile, e.Entry.Value.Pos(), "dict unpacking cannot be used in dict comprehension")
		}
	case *syntax.ConfigIfEntryExpr:
		// Each condition is met in its place among the branches' entries.
		if e.IfCond != nil {
			r.pushOrder(e.IfCond.Pos(), phaseKey)
			r.expr(e.IfCond)
			r.popOrder()
		}
		r.configEntries(e.Items, false)
		r.expr(e.Orelse)
	case *syntax.SchemaExpr:
		if e.Name != nil {
			// A name the official resolver cannot resolve is `any`, and one
			// of another type than a schema or dict is invalid: either way
			// it walks neither the config nor the arguments.
			before := r.reported
			r.ident(e.Name)
			if r.reported > before {
				return
			}
			if r.shadowed(e.Name) || r.schemaByIdent(r.pkg, e.Name) == nil {
				if t, ok := r.schemaNameType(e.Name); !ok {
					r.report(errkind.Compile, e.Name.Pos(), "Invalid schema type '%s'", t)
					return
				}
			}
		}
		start := len(r.diags)
		// The official walk judges a schema config entry's type before
		// its += or ** value: those checks wait for checkSchemaConfig.
		cfg, _ := e.Config.(*syntax.ConfigExpr)
		prev := r.deferEntries
		r.deferEntries = cfg
		r.expr(e.Config)
		r.deferEntries = prev
		r.checkSchemaConfig(e)
		if cfg != nil {
			for _, it := range cfg.Items {
				if it != nil {
					r.pushOrder(entryPos(it), phaseAfter)
					r.entryValue(it)
					r.popOrder()
				}
			}
		}
		if cfg, ok := e.Config.(*syntax.ConfigExpr); ok && e.Name != nil && !r.shadowed(e.Name) {
			if si := r.schemaByIdent(r.pkg, e.Name); si != nil {
				r.configKeys(si, cfg, 0)
			} else if t := r.identType(e.Name); t.kind == tDict {
				// `d {k = v}` of a dict: its config is walked with d's type
				// as the context (the official walk_schema_expr).
				r.ctxConfig(t, cfg.Items, nil, 0)
			}
		}
		// The official walk checks the arguments after the config, each
		// walked then judged.
		r.pushLast()
		r.schemaArguments(e.Name, e.Args, e.Kwargs)
		r.popOrder()
		r.sortFrom(start)
	case *syntax.ConfigExpr:
		r.withScope(func(sc *scope) {
			// Keys are visible to the config's values (the official
			// resolver binds them as it goes; binding them first only
			// accepts more).
			sc.config = true
			defineConfigKeys(e.Items, sc)
			deferred := e == r.deferEntries
			r.deferEntries = nil
			r.configEntries(e.Items, deferred)
		})
	case *syntax.CheckExpr:
		r.checkExpr(e)
	case *syntax.LambdaExpr:
		r.parameters(e.Args)
		r.withScope(func(sc *scope) {
			sc.lambda = true
			r.arguments(e.Args, sc, true)
			r.argumentTypes(e.Args, sc)
			// The body's names are defined as its statements are walked
			// (see defineLambdaLocal).
			if e.ReturnTy != nil {
				p := r.topStmt
				r.typeAt = &p
				r.typ(e.ReturnTy)
				r.typeAt = nil
			}
			if n := len(e.Body); n > 0 {
				if last, ok := e.Body[n-1].(*syntax.IfStmt); ok {
					// The official resolver looks at the last statement first.
					r.report(errkind.Compile, last.Pos(), "The last statement of the lambda body must be a expression e.g., x, 1, etc.")
				}
			}
			r.stmts(e.Body)
			r.lambdaBodyTypes[e] = r.lambdaBodyType(e)
			// The value of the body's last expression is the result.
			if n := len(e.Body); n > 0 && e.ReturnTy != nil {
				if as, ok := e.Body[n-1].(*syntax.AssignStmt); ok && as.Value != nil {
					// A body ending in an assignment has the assigned value.
					if want := r.fromSyntax(r.pkg, e.ReturnTy, 0); !want.isAny() {
						r.mustAssignAt(r.exprType(as.Value, 0), want, r.topStmt, nil)
					}
				}
				// The result's config entries first, then the whole value.
				start := len(r.diags)
				if es, ok := e.Body[n-1].(*syntax.ExprStmt); ok && len(es.Exprs) == 1 {
					r.schemaValue(r.fromSyntax(r.pkg, e.ReturnTy, 0), es.Exprs[0])
				}
				if es, ok := e.Body[n-1].(*syntax.ExprStmt); ok && len(es.Exprs) > 0 {
					// The result must fit the return type (the official
					// upgrade_type_for_expr), its config literals checked
					// under it.
					v := es.Exprs[len(es.Exprs)-1]
					want := r.fromSyntax(r.pkg, e.ReturnTy, 0)
					if !want.isAny() {
						if want.kind != tSchema {
							vp := v.Pos()
							r.ctxCheck(want, v, &vp, 0)
						}
						tp := e.ReturnTy.Pos()
						r.pushLast()
						r.mustAssignAt(r.exprType(v, 0), want, v.Pos(), &tp)
						r.popOrder()
					}
				}
				r.sortFrom(start)
			}
		})
	case *syntax.Subscript:
		before := len(r.diags)
		r.expr(e.Value)
		// The official subscript walks nothing below a value of type any
		// (`a[b]`, a undefined: b is not reported). Our types may say any
		// where the official ones know better, so only a value its own
		// walk refused is taken for one.
		if e.Ctx != syntax.Store && len(r.diags) > before && r.exprType(e.Value, 0).isAny() {
			return
		}
		r.expr(e.Index)
		r.expr(e.Lower)
		r.expr(e.Upper)
		r.expr(e.Step)
		if e.Ctx != syntax.Store {
			r.subscript(e)
		}
	case *syntax.Keyword:
		r.expr(e.Value)
	case *syntax.Compare:
		r.expr(e.Left)
		r.exprs(e.Comparators)
		r.compare(e)
	case *syntax.JoinedString:
		r.exprs(e.Values)
	case *syntax.FormattedValue:
		r.expr(e.Value)
	}
}

func (r *checker) withScope(f func(sc *scope)) {
	prev := r.local
	sc := &scope{parent: prev}
	r.local = sc
	f(sc)
	r.local = prev
}

func (r *checker) generators(gens []*syntax.CompClause, sc *scope) {
	sc.loop = true
	for _, g := range gens {
		if g == nil {
			continue
		}
		r.expr(g.Iter)
		r.iterable(g.Iter)
		r.loopVariables(g.Targets, true)
		// Typed as they iterate, for the clause's own ifs and the body.
		r.compClauseTargets(g, sc)
		r.exprs(g.Ifs)
	}
}

// loopVariables reports loop targets that are not plain names, and a third
// one; a comprehension locates that at the end of the second target.
func (r *checker) loopVariables(targets []*syntax.Identifier, comp bool) {
	for i, t := range targets {
		if t == nil || len(t.Names) == 0 {
			continue
		}
		if len(t.Names) > 1 {
			r.report(errkind.Compile, t.Pos(), "loop variables can only be ordinary identifiers")
		}
		if i >= 2 {
			pos := t.Pos()
			if comp && targets[i-1] != nil {
				pos = targets[i-1].End()
			}
			r.report(errkind.Compile, pos, "the number of loop variables is %d, which can only be 1 or 2", len(targets))
			return
		}
	}
}

func allStr(ts []*typ) bool {
	for _, t := range ts {
		if !t.isStrKind() {
			return false
		}
	}
	return true
}

// valueAttr reports an attribute of an expression whose type has no
// members (an int, a bool, a float, a list, a unit value), such as
// `(a + b).startswith(...)`, as the official load_attr does (`?.`
// included). Constants are constantAttr's.
func (r *checker) valueAttr(e *syntax.SelectorExpr) {
	if e.Attr == nil || len(e.Attr.Names) == 0 {
		return
	}
	if _, ok := e.Value.(*syntax.NameConstantLit); ok {
		return
	}
	switch t := r.exprType(e.Value, 0); t.kind {
	case tNumMul, tBool, tInt, tFloat, tLitBool, tLitInt, tLitFloat, tList:
		r.report(errkind.Type, e.Attr.Pos(), "attribute '%s' not found in '%s'", e.Attr.Names[0].Value, t)
	case tStr, tLitStr:
		if strMethodResults[e.Attr.Names[0].Value] == nil {
			r.report(errkind.Type, e.Attr.Pos(), "attribute '%s' not found in '%s'", e.Attr.Names[0].Value, t)
		}
	case tSchema:
		// A member of a schema-typed value (a call of a lambda whose body
		// ends in an instance), as a name's: at the attribute.
		r.attrPath(t, &syntax.Identifier{Span: e.Attr.Span, Names: append([]*syntax.Name{nil}, e.Attr.Names...)}, true)
	case tNone:
		// A value typed None (a lambda whose body ends in None), `?.` too.
		r.report(errkind.Type, e.Attr.Pos(), "attribute '%s' not found in 'NoneType'", e.Attr.Names[0].Value)
	}
}

// moduleQuestion reports `m?.x` of an imported module m, which the official
// resolver refuses: a module is never None.
func (r *checker) moduleQuestion(e *syntax.SelectorExpr) {
	id, ok := e.Value.(*syntax.Identifier)
	if !e.HasQuestion || !ok || len(id.Names) != 1 || e.Attr == nil || len(e.Attr.Names) == 0 {
		return
	}
	first := id.Names[0].Value
	if r.localHas(first) || r.schema != nil && r.schema.hasDeclared(first) {
		return
	}
	sym := r.pkg.globals[first]
	if sym == nil || sym.kind != symModule {
		return
	}
	attr := e.Attr.Names[0].Value
	r.report(errkind.Compile, id.End(), "For the module type, the use of '?.%s' is unnecessary and it can be modified as '.%s'", attr, attr)
	// The member is then checked as in m.x, located at the member.
	r.moduleMembers(sym, &syntax.Identifier{Span: e.Attr.Span, Names: []*syntax.Name{id.Names[0], e.Attr.Names[0]}})
}

// constantAttr reports an attribute read from a literal constant (None.x,
// True.x), which the official resolver types and refuses, `?.` included.
func (r *checker) constantAttr(e *syntax.SelectorExpr) {
	c, ok := e.Value.(*syntax.NameConstantLit)
	if !ok || e.Attr == nil || len(e.Attr.Names) == 0 {
		return
	}
	var in string
	switch c.Value {
	case syntax.None, syntax.Undefined:
		in = "NoneType"
	case syntax.True:
		in = "bool(True)"
	case syntax.False:
		in = "bool(False)"
	default:
		return
	}
	r.report(errkind.Type, e.Attr.Pos(), "attribute '%s' not found in '%s'", e.Attr.Names[0].Value, in)
}

// iterable reports a comprehension over a value whose type cannot be
// iterated (None, a bool or a number), as the official resolver does.
func (r *checker) iterable(e syntax.Expr) {
	if e == nil {
		return
	}
	t := r.exprType(e, 0)
	members := []*typ{t}
	if t.kind == tUnion {
		// Each member of a union is judged, as the official loop check.
		members = t.elems
	}
	for _, m := range members {
		switch m.kind {
		case tNone, tBool, tInt, tFloat, tLitBool, tLitInt, tLitFloat, tNumMul, tFunc:
			r.report(errkind.Compile, e.Pos(), "'%s' object is not iterable", m)
		}
	}
}

// callable reports a call of a value the official resolver knows cannot be
// called: a str, number, bool, list, dict, None or schema instance.
func (r *checker) callable(e *syntax.CallExpr) {
	switch t := r.exprType(e.Func, 0); t.kind {
	case tStr, tLitStr, tInt, tLitInt, tFloat, tLitFloat, tBool, tLitBool, tList, tDict, tNone:
		r.report(errkind.Compile, e.Func.Pos(), "'%s' object is not callable", t)
	case tSchema:
		if t.instance {
			r.report(errkind.Compile, e.Func.Pos(), "schema '%s' instance is not callable", t.schema.name)
		}
	}
}

// subscript reports what the official resolver refuses of x[i]: indexing
// anything but a list, dict, str or schema (a union of them too), `?[`
// of None, a dict or schema key that is not a str, a slice of a dict, a
// list or str index that is a str or float.
func (r *checker) subscript(e *syntax.Subscript) {
	t := r.exprType(e.Value, 0)
	switch t.kind {
	case tNone:
		r.report(errkind.Compile, e.Pos(), "'%s' object is not subscriptable", t)
		return
	case tUnion, tBool, tInt, tFloat, tLitBool, tLitInt, tLitFloat, tNumMul:
		if !e.HasQuestion && (t.kind != tUnion || !hasSchema(t)) {
			r.report(errkind.Compile, e.Pos(), "'%s' object is not subscriptable", t)
		}
		return
	}
	if e.Index == nil {
		if t.kind == tDict || t.kind == tSchema {
			r.report(errkind.Compile, e.Pos(), "unhashable type: 'slice'")
		}
		return
	}
	r.indexType(t, e.Index, e.Pos())
}

// indexType reports an index of a value of type t that the official
// resolver refuses, in a subscript or an assignment target: a dict or
// schema key that is not a str (at keyAt), a list or str index that is a
// str, float or bool (at the index).
func (r *checker) indexType(t *typ, index syntax.Expr, keyAt syntax.Position) {
	it := r.exprType(index, 0)
	if it.isAny() || it.kind == tNone || it.kind == tUnion {
		return
	}
	switch {
	case t.kind == tDict || t.kind == tSchema:
		if !it.isStrKind() {
			r.report(errkind.Compile, keyAt, "invalid dict/schema key type: '%s'", it)
		}
	case t.kind == tList || t.isStrKind():
		if it.isStrKind() || it.kind == tFloat || it.kind == tLitFloat || it.kind == tBool || it.kind == tLitBool {
			r.report(errkind.Type, index.Pos(), "expected int, got %s", it)
		}
	}
}

// lambdaBodyType is the type of the value a lambda's body ends with (its
// last expression, or the value of its last assignment), in the body's
// scope.
func (r *checker) lambdaBodyType(e *syntax.LambdaExpr) *typ {
	n := len(e.Body)
	if n == 0 {
		return anyT
	}
	switch last := e.Body[n-1].(type) {
	case *syntax.ExprStmt:
		if len(last.Exprs) > 0 {
			return r.exprType(last.Exprs[len(last.Exprs)-1], 0)
		}
	case *syntax.AssignStmt:
		if last.Value != nil {
			return r.exprType(last.Value, 0)
		}
	}
	return anyT
}

// schemaNameType is the type of the name of `name {...}` that is no
// schema, and whether a value can be made from it as the official
// walk_schema_expr has it: a dict, any or None (a value unioned at run time);
// not a module, a function, a union, a list or a scalar. A type alias is its
// type.
func (r *checker) schemaNameType(id *syntax.Identifier) (string, bool) {
	t := r.identType(id)
	if len(id.Names) == 1 && !r.shadowed(id) {
		if sym := r.pkg.globals[id.Names[0].Value]; sym != nil {
			switch {
			case sym.kind == symTypeAlias && sym.alias != nil:
				t = r.fromSyntax(r.pkg, sym.alias.Ty, 0)
			case sym.kind == symModule && sym.module != nil:
				return "module '" + sym.module.Path + "'", false
			case sym.kind == symModule && sym.system != "":
				return "module '" + sym.system + "'", false
			}
		}
	}
	switch t.kind {
	case tAny, tNone, tDict, tSchema:
		return t.String(), true
	}
	return t.String(), false
}

// compTargets declares a comprehension's loop variables, typed by what
// they iterate as the official resolver types them: a list's (widened)
// element (after its index), a str, a dict's key (and value); any otherwise.
func (r *checker) compTargets(gens []*syntax.CompClause, sc *scope) {
	sc.loop = true
	for _, g := range gens {
		r.compClauseTargets(g, sc)
	}
}

// compClauseTargets declares and types the loop variables of one clause.
func (r *checker) compClauseTargets(g *syntax.CompClause, sc *scope) {
	if g == nil {
		return
	}
	// As the official do_loop_type_check: each member of a union
	// iterable adds its key (and value) types to the variables'.
	it := r.exprType(g.Iter, 0)
	members := []*typ{it}
	if it.kind == tUnion {
		members = it.elems
	}
	var first, second *typ
	add := func(prev, t *typ) *typ {
		if prev == nil {
			return t
		}
		return union([]*typ{t, prev})
	}
	two := len(g.Targets) == 2
	for _, m := range members {
		switch {
		case m.isAny():
			first, second = anyT, anyT
		case m.kind == tList && two:
			first, second = add(first, intT), add(second, m.elem)
		case m.kind == tList:
			first = add(first, m.elem)
		case m.kind == tDict:
			first, second = add(first, m.key), add(second, m.elem)
		case m.kind == tSchema:
			first, second = add(first, strT), add(second, r.indexValueType(m.schema))
		case m.isStrKind() && two:
			first, second = add(first, intT), add(second, strT)
		case m.isStrKind():
			first = add(first, strT)
		}
	}
	var ts []*typ
	for _, t := range []*typ{first, second} {
		if t == nil {
			t = anyT
		}
		ts = append(ts, widen(t))
	}
	for i, t := range g.Targets {
		if t == nil || len(t.Names) == 0 {
			continue
		}
		sc.define(t.Names[0].Value)
		if i < len(ts) && !ts[i].isAny() {
			if sc.types == nil {
				sc.types = map[string]*typ{}
			}
			sc.types[t.Names[0].Value] = ts[i]
		}
	}
}
