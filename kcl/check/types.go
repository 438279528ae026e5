package check

import (
	"strconv"
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
)

// The pass infers types only as far as it can be sure of them: literals,
// annotations and the globals and attributes they flow into. Everything
// else is `any`, which is assignable both ways, so an imprecision here can
// only make the pass accept more.

type typeKind int

const (
	tAny typeKind = iota
	tNone
	tBool
	tInt
	tFloat
	tStr
	tLitBool
	tLitInt
	tLitFloat
	tLitStr
	tList
	tDict
	tUnion
	tSchema
	// tNumMul is a unit literal such as 1Ki: the official resolver types it
	// number_multiplier(1Ki) (lit "1Ki"), neither int nor float, so it is
	// assignable to no annotation but its own (lit "" is the type
	// units.NumberMultiplier, which every unit literal is assignable to).
	tNumMul
	// tFunc is a lambda: elems its parameter types, elem its result type.
	tFunc
	// tModule is an imported module named as a value (lit its package
	// path): the official resolver's module type, assignable to nothing,
	// not even any, and an operand of no operator.
	tModule
)

type typ struct {
	kind typeKind
	elem *typ // list element, dict value
	key  *typ // dict key
	// attrs are a dict literal's literal keys with their (widened) value
	// types, which `d.key` and `d["key"]` read before the value type.
	attrs map[string]*typ
	// attrPos is where each of attrs was last given (the official Attr's
	// range): the place `**d` reports as "config attribute is defined here".
	attrPos  map[string]syntax.Position
	elems    []*typ
	lit      string // literal value as the official engine prints it
	schema   *schemaInfo
	instance bool
	// annotated marks a schema type read from an annotation: the official
	// engine has no attribute suggestions for those.
	annotated bool
	// fnLambda or fnAnnot is where a function type was read (its
	// parameters' names, defaults and places, for calls), in fnPkg.
	fnLambda *syntax.LambdaExpr
	fnAnnot  *syntax.FunctionType
	fnPkg    *pkgInfo
}

var (
	anyT   = &typ{kind: tAny}
	noneT  = &typ{kind: tNone}
	boolT  = &typ{kind: tBool}
	intT   = &typ{kind: tInt}
	floatT = &typ{kind: tFloat}
	strT   = &typ{kind: tStr}
)

func (t *typ) isAny() bool { return t == nil || t.kind == tAny }

// String is the official ty_str.
func (t *typ) String() string {
	if t == nil {
		return "any"
	}
	switch t.kind {
	case tNone:
		return "NoneType"
	case tBool:
		return "bool"
	case tInt:
		return "int"
	case tFloat:
		return "float"
	case tStr:
		return "str"
	case tLitBool:
		return "bool(" + t.lit + ")"
	case tLitInt:
		return "int(" + t.lit + ")"
	case tLitFloat:
		return "float(" + t.lit + ")"
	case tLitStr:
		return "str(" + t.lit + ")"
	case tList:
		return "[" + t.elem.String() + "]"
	case tDict:
		return "{" + t.key.String() + ":" + t.elem.String() + "}"
	case tUnion:
		parts := make([]string, len(t.elems))
		for i, e := range t.elems {
			parts[i] = e.String()
		}
		return strings.Join(parts, " | ")
	case tSchema:
		return t.schema.name
	case tNumMul:
		if t.lit == "" {
			return "number_multiplier"
		}
		return "number_multiplier(" + t.lit + ")"
	case tFunc:
		parts := make([]string, len(t.elems))
		for i, e := range t.elems {
			parts[i] = e.String()
		}
		return "(" + strings.Join(parts, ", ") + ") -> " + t.elem.String()
	case tModule:
		return "module '" + t.lit + "'"
	}
	return "any"
}

// hasModule reports a module type, alone or in a union.
func (t *typ) hasModule() bool {
	if t.kind == tUnion {
		for _, e := range t.elems {
			if e.kind == tModule {
				return true
			}
		}
	}
	return t.kind == tModule
}

func (t *typ) equal(u *typ) bool {
	if t.kind != u.kind || t.lit != u.lit || t.schema != u.schema {
		return false
	}
	switch t.kind {
	case tList:
		return t.elem.equal(u.elem)
	case tDict:
		return t.key.equal(u.key) && t.elem.equal(u.elem)
	case tFunc:
		if !t.elem.equal(u.elem) {
			return false
		}
		fallthrough
	case tUnion:
		if len(t.elems) != len(u.elems) {
			return false
		}
		for i := range t.elems {
			if !t.elems[i].equal(u.elems[i]) {
				return false
			}
		}
	}
	return true
}

// union is the official sup of literal element types: distinct types in
// order of appearance, any when one of them is any.
func union(ts []*typ) *typ {
	var flat []*typ
	for _, t := range ts {
		if t != nil && t.kind == tUnion {
			flat = append(flat, t.elems...)
		} else {
			flat = append(flat, t)
		}
	}
	var out []*typ
	for _, t := range flat {
		if t.isAny() {
			return anyT
		}
		dup := false
		for _, o := range out {
			if o.equal(t) {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, t)
		}
	}
	// As the official sup, members another member subsumes are dropped:
	// int(1) | int is int, [int(1)] | [int] is [int].
	// The official pairwise pass: of a pair where the earlier member is
	// narrower, the earlier goes; else a narrower later one goes.
	removed := make([]bool, len(out))
	var drop []*typ
	for i := range out {
		if removed[i] {
			continue
		}
		for j := i + 1; j < len(out); j++ {
			if removed[j] {
				continue
			}
			if narrower(out[i], out[j], 0) {
				removed[i] = true
				drop = append(drop, out[i])
				break
			} else if narrower(out[j], out[i], 0) {
				removed[j] = true
				drop = append(drop, out[j])
			}
		}
	}
	// The official set removes by swapping its last member into the gap,
	// which orders the members of a message: int(1) | str | float is
	// float | str.
	for _, d := range drop {
		for i, t := range out {
			if t == d {
				out[i] = out[len(out)-1]
				out = out[:len(out)-1]
				break
			}
		}
	}
	switch len(out) {
	case 0:
		return anyT
	case 1:
		return out[0]
	}
	return &typ{kind: tUnion, elems: out}
}

// subsumes reports that u is strictly wider than t: t is the official
// subsume(t, u) and the two are not equal.
func subsumes(u, t *typ, depth int) bool {
	return !u.equal(t) && narrower(t, u, depth)
}

// narrower is the official subsume(l, r, false), the partial order its sup
// drops members by: None and anything below any, an int below a float, a
// literal below its base type, lists and dicts member-wise.
func narrower(l, r *typ, depth int) bool {
	return narrowerIn(l, r, depth, true)
}

// narrowerIn is narrower where, without inherit, a schema is below itself
// only: the official first global pass judges before the schemas' bases
// are known.
func narrowerIn(l, r *typ, depth int, inherit bool) bool {
	if depth > 50 || l == nil || r == nil {
		return false
	}
	switch {
	case r.kind == tAny || l.kind == tNone:
		return true
	case l.kind == tUnion:
		for _, e := range l.elems {
			if !narrowerIn(e, r, depth+1, inherit) {
				return false
			}
		}
		return true
	case r.kind == tUnion:
		for _, e := range r.elems {
			if narrowerIn(l, e, depth+1, inherit) {
				return true
			}
		}
		return false
	case l.kind == tSchema:
		if r.kind != tSchema {
			return false
		}
		for cur, n := l.schema, 0; cur != nil && n < 1000; cur, n = cur.parent, n+1 {
			if cur == r.schema {
				return true
			}
			if !inherit {
				break
			}
		}
		return false
	case l.isIntKind() && r.isFloatKind():
		return true
	case l.kind == tNumMul && r.kind == tNumMul:
		return l.lit == r.lit || r.lit == ""
	case l.isBase() && r.isBase():
		return l.kind == r.kind
	case l.isLiteral():
		switch {
		case r.isLiteral():
			return l.kind == r.kind && l.lit == r.lit
		case r.isBase():
			if r.kind == tFloat && l.kind != tLitStr {
				return true
			}
			return strings.Contains(l.String(), r.String())
		}
		return false
	case l.kind == tList && r.kind == tList:
		return narrowerIn(l.elem, r.elem, depth+1, inherit)
	case l.kind == tDict && r.kind == tDict:
		return narrowerIn(l.key, r.key, depth+1, inherit) && narrowerIn(l.elem, r.elem, depth+1, inherit)
	case l.kind == tStr && r.kind == tLitStr:
		return true
	}
	return l.kind == r.kind && l.kind != tList && l.kind != tDict
}

// isBase is the official is_primitive: bool, int, float or str.
func (t *typ) isBase() bool {
	switch t.kind {
	case tBool, tInt, tFloat, tStr:
		return true
	}
	return false
}

func (t *typ) isLiteral() bool {
	switch t.kind {
	case tLitBool, tLitInt, tLitFloat, tLitStr:
		return true
	}
	return false
}

// widen is the official infer_to_variable_type: the type a variable gets
// from its first value, literals widened to their base types.
func widen(t *typ) *typ {
	switch t.kind {
	case tNone:
		// A variable first set to None or Undefined is any.
		return anyT
	case tLitBool:
		return boolT
	case tLitInt:
		return intT
	case tLitFloat:
		return floatT
	case tLitStr:
		return strT
	case tList:
		return &typ{kind: tList, elem: widen(t.elem)}
	case tDict:
		return &typ{kind: tDict, key: widen(t.key), elem: widen(t.elem), attrs: t.attrs, attrPos: t.attrPos}
	case tUnion:
		ws := make([]*typ, len(t.elems))
		for i, e := range t.elems {
			ws[i] = widen(e)
		}
		return union(ws)
	}
	return t
}

// assignable reports whether a value of type t may be stored where u is
// expected. Unknown cases are assignable.
func assignable(t, u *typ) bool {
	if t.hasModule() {
		return false
	}
	if t.isAny() || u.isAny() || t.kind == tNone {
		return true
	}
	if t.kind == tUnion {
		for _, e := range t.elems {
			if !assignable(e, u) {
				return false
			}
		}
		return true
	}
	if u.kind == tUnion {
		for _, e := range u.elems {
			if assignable(t, e) {
				return true
			}
		}
		return false
	}
	switch u.kind {
	case tBool:
		return t.kind == tBool || t.kind == tLitBool
	case tInt:
		return t.kind == tInt || t.kind == tLitInt
	case tFloat, tLitFloat:
		// An int is a float, and to the official resolver so is a bool
		// literal (refused at run time; a bool is not); float literal types
		// are checked at run time.
		return t.kind == tInt || t.kind == tLitInt || t.kind == tFloat || t.kind == tLitFloat || t.kind == tLitBool
	case tStr:
		return t.kind == tStr || t.kind == tLitStr
	case tLitStr:
		// A str may hold the literal: the official resolver leaves that
		// to run time (for str only; an int is not an int literal).
		return t.kind == tStr || t.kind == u.kind && t.lit == u.lit
	case tLitBool, tLitInt:
		return t.kind == u.kind && t.lit == u.lit
	case tNumMul:
		return t.kind == tNumMul && (t.lit == u.lit || u.lit == "")
	case tList:
		return t.kind == tList && assignable(t.elem, u.elem)
	case tDict:
		return t.kind == tDict && assignable(t.key, u.key) && assignable(t.elem, u.elem)
	case tFunc:
		// The official subsume: as many parameters, each of want's fitting
		// got's, and got's result fitting want's.
		if t.kind != tFunc || len(t.elems) != len(u.elems) {
			return false
		}
		for i := range t.elems {
			if !assignable(u.elems[i], t.elems[i]) {
				return false
			}
		}
		// A result of None fits only None (the official subsume has no
		// None rule on the right).
		if u.elem.kind == tNone && t.elem.kind != tNone && !t.elem.isAny() {
			return false
		}
		return assignable(t.elem, u.elem)
	case tSchema:
		switch t.kind {
		case tDict:
			return true // a dict becomes an instance
		case tSchema:
			// An instance of the schema or of a subclass.
			for cur, n := t.schema, 0; cur != nil && n < 1000; cur, n = cur.parent, n+1 {
				if cur == u.schema {
					return true
				}
			}
			return false
		}
		return false
	}
	return true
}

// fromSyntax is the type an annotation denotes; names it cannot resolve
// are any.
func (r *checker) fromSyntax(pi *pkgInfo, t syntax.Type, depth int) *typ {
	if t == nil || depth > 50 {
		return anyT
	}
	switch t := t.(type) {
	case *syntax.BasicType:
		switch t.Kind {
		case syntax.TypeBool:
			return boolT
		case syntax.TypeInt:
			return intT
		case syntax.TypeFloat:
			return floatT
		case syntax.TypeStr:
			return strT
		}
	case *syntax.ListType:
		if t.InnerType == nil {
			return &typ{kind: tList, elem: anyT}
		}
		return &typ{kind: tList, elem: r.fromSyntax(pi, t.InnerType, depth+1)}
	case *syntax.DictType:
		k, v := anyT, anyT
		if t.KeyType != nil {
			k = r.fromSyntax(pi, t.KeyType, depth+1)
		}
		if t.ValueType != nil {
			v = r.fromSyntax(pi, t.ValueType, depth+1)
		}
		return &typ{kind: tDict, key: k, elem: v}
	case *syntax.UnionType:
		var es []*typ
		for _, e := range t.TypeElements {
			et := r.fromSyntax(pi, e, depth+1)
			if et.isAny() {
				return anyT
			}
			if et.kind == tUnion {
				es = append(es, et.elems...)
			} else {
				es = append(es, et)
			}
		}
		// An annotated union is kept as written (the official Type::union,
		// no sup): A | B with B(A) still admits B's attributes.
		if len(es) == 1 {
			return es[0]
		}
		return &typ{kind: tUnion, elems: es}
	case *syntax.LiteralType:
		switch t.Kind {
		case syntax.LitBool:
			return &typ{kind: tLitBool, lit: pyBool(t.Bool)}
		case syntax.LitInt:
			if t.Suffix != "" {
				return &typ{kind: tNumMul, lit: strconv.FormatInt(t.Int, 10) + t.Suffix}
			}
			return &typ{kind: tLitInt, lit: strconv.FormatInt(t.Int, 10)}
		case syntax.LitFloat:
			return &typ{kind: tLitFloat, lit: rustFloat(t.Float)}
		case syntax.LitStr:
			return &typ{kind: tLitStr, lit: t.Str}
		}
	case *syntax.FunctionType:
		ft := &typ{kind: tFunc, elem: r.fromSyntax(pi, t.RetTy, depth+1), fnAnnot: t, fnPkg: pi}
		for _, p := range t.ParamsTy {
			ft.elems = append(ft.elems, r.fromSyntax(pi, p, depth+1))
		}
		return ft
	case *syntax.NamedType:
		if t.Identifier != nil && len(t.Identifier.Names) == 2 && t.Identifier.Names[1].Value == "NumberMultiplier" {
			if sym := pi.globals[t.Identifier.Names[0].Value]; sym != nil && sym.kind == symModule && sym.system == "units" {
				return &typ{kind: tNumMul}
			}
		}
		if t.Identifier == nil || len(t.Identifier.Names) != 1 {
			if si := r.schemaByIdent(pi, t.Identifier); si != nil {
				return &typ{kind: tSchema, schema: si, instance: true, annotated: true}
			}
			return anyT
		}
		sym := pi.globals[t.Identifier.Names[0].Value]
		if sym == nil {
			return anyT
		}
		switch sym.kind {
		case symSchema:
			return &typ{kind: tSchema, schema: sym.schema, instance: true, annotated: true}
		case symTypeAlias:
			if sym.alias != nil {
				return r.fromSyntax(pi, sym.alias.Ty, depth+1)
			}
		}
	}
	return anyT
}
