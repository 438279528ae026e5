package resolve

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
)

type typ struct {
	kind     typeKind
	elem     *typ // list element, dict value
	key      *typ // dict key
	elems    []*typ
	lit      string // literal value as the official engine prints it
	schema   *schemaInfo
	instance bool
	// annotated marks a schema type read from an annotation: the official
	// engine has no attribute suggestions for those.
	annotated bool
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
	}
	return "any"
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
	kept := out[:0:0]
	for i, t := range out {
		dropped := false
		for j, u := range out {
			if i != j && subsumes(u, t, 0) {
				dropped = true
				break
			}
		}
		if !dropped {
			kept = append(kept, t)
		}
	}
	out = kept
	switch len(out) {
	case 0:
		return anyT
	case 1:
		return out[0]
	}
	return &typ{kind: tUnion, elems: out}
}

// subsumes reports that u is strictly wider than t: a base type of a
// literal, or lists and dicts of such.
func subsumes(u, t *typ, depth int) bool {
	if depth > 50 || u == nil || t == nil {
		return false
	}
	switch u.kind {
	case tStr:
		return t.kind == tLitStr
	case tInt:
		return t.kind == tLitInt
	case tFloat:
		return t.kind == tLitFloat
	case tBool:
		return t.kind == tLitBool
	case tList:
		return t.kind == tList && subsumes(u.elem, t.elem, depth+1)
	case tDict:
		if t.kind != tDict || u.key == nil || u.elem == nil || t.key == nil || t.elem == nil {
			return false
		}
		return (subsumes(u.key, t.key, depth+1) && (u.elem.equal(t.elem) || subsumes(u.elem, t.elem, depth+1)) ||
			u.key.equal(t.key) && subsumes(u.elem, t.elem, depth+1))
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
		return &typ{kind: tDict, key: widen(t.key), elem: widen(t.elem)}
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
		// An int is a float; float literal types are checked at run time.
		return t.kind == tInt || t.kind == tLitInt || t.kind == tFloat || t.kind == tLitFloat
	case tStr:
		return t.kind == tStr || t.kind == tLitStr
	case tLitStr:
		// A str may hold the literal: the official resolver leaves that
		// to run time (for str only; an int is not an int literal).
		return t.kind == tStr || t.kind == u.kind && t.lit == u.lit
	case tLitBool, tLitInt:
		return t.kind == u.kind && t.lit == u.lit
	case tList:
		return t.kind == tList && assignable(t.elem, u.elem)
	case tDict:
		return t.kind == tDict && assignable(t.key, u.key) && assignable(t.elem, u.elem)
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
func (r *resolver) fromSyntax(pi *pkgInfo, t syntax.Type, depth int) *typ {
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
			es = append(es, et)
		}
		return union(es)
	case *syntax.LiteralType:
		switch t.Kind {
		case syntax.LitBool:
			return &typ{kind: tLitBool, lit: pyBool(t.Bool)}
		case syntax.LitInt:
			if t.Suffix != "" {
				return anyT
			}
			return &typ{kind: tLitInt, lit: strconv.FormatInt(t.Int, 10)}
		case syntax.LitFloat:
			return &typ{kind: tLitFloat, lit: rustFloat(t.Float)}
		case syntax.LitStr:
			return &typ{kind: tLitStr, lit: t.Str}
		}
	case *syntax.NamedType:
		if t.Identifier == nil || len(t.Identifier.Names) != 1 {
			if si := r.schemaByIdent(pi, t.Identifier); si != nil && !si.isRule {
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
			if sym.schema.isRule {
				return anyT
			}
			return &typ{kind: tSchema, schema: sym.schema, instance: true, annotated: true}
		case symTypeAlias:
			if sym.alias != nil {
				return r.fromSyntax(pi, sym.alias.Ty, depth+1)
			}
		}
	}
	return anyT
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// rustFloat prints a float as Rust's Display does (80.0 is "80").
func rustFloat(f float64) string {
	return strconv.FormatFloat(f, 'f', -1, 64)
}
