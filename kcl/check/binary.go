package check

import (
	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
)

// Operand kinds of the official binary-operator table.
func (t *typ) isNumber() bool {
	switch t.kind {
	case tInt, tFloat, tLitInt, tLitFloat:
		return true
	}
	return false
}

func (t *typ) isIntKind() bool { return t.kind == tInt || t.kind == tLitInt }
func (t *typ) isStrKind() bool { return t.kind == tStr || t.kind == tLitStr }

// concrete reports a type the operator table can judge: a scalar, None or
// a list or dict (unions and schemas are left to run time).
func (t *typ) concrete() bool {
	switch t.kind {
	case tAny, tUnion, tSchema:
		return false
	}
	return true
}

// binary reports an arithmetic or union operator the official table has
// no entry for, such as `1 + None`, and a literal division by zero.
func (r *checker) binary(e *syntax.BinaryExpr) {
	if e.Op == syntax.As {
		r.conversion(e)
		return
	}
	r.binaryCheck(e.Op, r.exprType(e.Left, 0), r.exprType(e.Right, 0), e.Pos())
}

// conversion reports `v as T` where neither type is assignable to the other.
func (r *checker) conversion(e *syntax.BinaryExpr) {
	id, ok := e.Right.(*syntax.Identifier)
	if !ok || len(id.Names) == 0 || r.shadowed(id) {
		return
	}
	var to *typ
	if len(id.Names) == 1 {
		switch id.Names[0].Value {
		case "str":
			to = strT
		case "int":
			to = intT
		case "float":
			to = floatT
		case "bool":
			to = boolT
		}
	}
	if to == nil {
		to = r.instanceOf(id)
	}
	from := r.exprType(e.Left, 0)
	if to.isAny() || from.isAny() || from.kind == tNone {
		return
	}
	if !assignable(from, to) && !assignable(to, from) {
		r.report(errkind.Type, e.Pos(), "Conversion of type '%s' to type '%s' may be a mistake because neither type sufficiently overlaps with the other", from, to)
	}
}

// augOps maps augmented assignments to their operators.
var augOps = map[syntax.AugOp]syntax.BinOp{
	syntax.AugAdd: syntax.Add, syntax.AugSub: syntax.Sub, syntax.AugMul: syntax.Mul,
	syntax.AugDiv: syntax.Div, syntax.AugMod: syntax.Mod, syntax.AugPow: syntax.Pow,
	syntax.AugFloorDiv: syntax.FloorDiv, syntax.AugBitOr: syntax.BitOr,
}

// augBinary checks `x op= v` on a global whose type is known.
func (r *checker) augBinary(s *syntax.AugAssignStmt) {
	op, ok := augOps[s.Op]
	if !ok || s.Target == nil || s.Target.Name == nil || len(s.Target.Paths) > 0 {
		return
	}
	name := s.Target.Name.Value
	var l *typ
	switch {
	case r.local == nil && r.schema == nil:
		l = r.varTypes[name]
	case r.local != nil && r.local.lambda:
		l = r.local.types[name]
	case r.schema != nil && r.local == r.schemaScope:
		if want, decl := r.attrType(r.schema, name); decl == nil {
			l = r.schemaScope.types[name]
		} else if !want.isAny() {
			l = want
		}
	}
	if l == nil {
		return
	}
	// x op= v is x = x op v: the result must still fit the type of x.
	n := len(r.diags)
	rt := r.exprType(s.Value, 0)
	r.binaryCheck(op, l, rt, s.Target.Pos())
	if len(r.diags) == n {
		r.mustAssign(arithmeticResult(op, l, rt), l, s.Target.Pos(), nil)
	}
}

func (r *checker) binaryCheck(op syntax.BinOp, l, rt *typ, pos syntax.Position) {
	// As the official table, a union of literals counts as its base
	// types (1 | 2 is int); any other union has no entry. A schema only
	// unions with a schema or a dict on its right ({} | S is refused);
	// unions holding a schema are left to run time.
	if op == syntax.And || op == syntax.Or || op == syntax.As {
		return
	}
	lv, rv := variableUnion(l), variableUnion(rt)
	for _, t := range []*typ{lv, rv} {
		if t.isAny() || t.kind == tUnion && hasSchema(t) {
			return
		}
	}
	if op == syntax.BitOr && (lv.kind == tNone || rv.kind == tNone) {
		return
	}
	l0, r0 := l, rt
	l, rt = lv, rv
	ok := false
	switch op {
	case syntax.Add:
		ok = l.isNumber() && rt.isNumber() || l.isStrKind() && rt.isStrKind() || l.kind == tList && rt.kind == tList
	case syntax.Sub, syntax.Pow:
		ok = l.isNumber() && rt.isNumber()
	case syntax.Mul:
		ok = l.isNumber() && rt.isNumber() || l.isIntKind() && rt.isMulValue() || l.isMulValue() && rt.isIntKind()
	case syntax.Div, syntax.FloorDiv, syntax.Mod:
		ok = l.isNumber() && rt.isNumber()
		if ok && (rt.kind == tLitInt && rt.lit == "0" || rt.kind == tLitFloat && rt.lit == "0") {
			r.report(errkind.Type, pos, "integer division or modulo by zero")
		}
	case syntax.LShift, syntax.RShift, syntax.BitXor, syntax.BitAnd:
		ok = l.isIntKind() && rt.isIntKind()
	case syntax.BitOr:
		ok = l.isIntKind() && rt.isIntKind() || l.kind == tList && rt.kind == tList ||
			l.kind == tDict && rt.kind == tDict || l.kind == tSchema && (rt.kind == tSchema || rt.kind == tDict)
	}
	if !ok {
		r.report(errkind.Type, pos, "unsupported operand type(s) for %s: '%s' and '%s'", op.Symbol(), l0, r0)
	}
}

func (t *typ) isNumberBool() bool { return t.isNumber() || t.kind == tBool || t.kind == tLitBool }

func (t *typ) isPrimitive() bool { return t.isNumberBool() || t.isStrKind() }

// compare reports comparisons the official table has no entry for: an
// order between anything but numbers and bools, equality between values
// of different kinds, membership in a non-iterable.
func (r *checker) compare(e *syntax.Compare) {
	left := r.exprType(e.Left, 0)
	for i, op := range e.Ops {
		if i >= len(e.Comparators) {
			return
		}
		right := r.exprType(e.Comparators[i], 0)
		r.compareCheck(op, left, right, e.Pos())
		left = right
	}
}

func (r *checker) compareCheck(op syntax.CmpOp, l, rt *typ, pos syntax.Position) {
	l, rt = variableUnion(l), variableUnion(rt)
	for _, t := range []*typ{l, rt} {
		if t.isAny() || t.kind == tUnion && hasSchema(t) {
			return
		}
	}
	member := op == syntax.In || op == syntax.NotIn
	switch {
	case allOf(l, (*typ).isNumberBool) && allOf(rt, (*typ).isNumberBool) && !member:
		return
	case (op == syntax.Eq || op == syntax.NotEq) && allOf(l, (*typ).isPrimitive) && allOf(rt, (*typ).isPrimitive):
		return
	case op == syntax.Eq && (l.kind == tList && rt.kind == tList ||
		(l.kind == tDict || l.kind == tSchema) && (rt.kind == tDict || rt.kind == tSchema)):
		// 0.12.1 has no != for lists and dicts.
		return
	case member && (rt.kind == tList || rt.kind == tDict || rt.kind == tSchema || rt.isStrKind()):
		return
	case (l.kind == tNone || rt.kind == tNone) && (op == syntax.Eq || op == syntax.NotEq || op == syntax.Is || op == syntax.IsNot || op == syntax.CmpNot):
		return
	}
	r.report(errkind.Type, pos, "unsupported operand type(s) for %s: '%s' and '%s'", op.Symbol(), l, rt)
}

// unaryResult is the official unary table: + and - take numbers, ~ ints and
// bools, not anything; the result is the operand's type (a union of
// literals widened). ok is false for an operand the table refuses.
func unaryResult(op syntax.UnaryOp, t *typ) (*typ, bool) {
	if t.isAny() {
		return anyT, true
	}
	v := variableUnion(t)
	switch op {
	case syntax.UAdd, syntax.USub:
		return v, v.isNumber()
	case syntax.Invert:
		return v, v.isIntKind() || v.kind == tBool || v.kind == tLitBool
	}
	return v, true
}

// unary reports `-x` and `~x` on an operand the official table refuses.
func (r *checker) unary(e *syntax.UnaryExpr) {
	t := r.exprType(e.Operand, 0)
	if !t.concrete() && t.kind != tUnion {
		return
	}
	if _, ok := unaryResult(e.Op, t); !ok {
		// The official position is the operand's.
		r.report(errkind.Type, e.Operand.Pos(), "bad operand type for unary %s: '%s'", e.Op.Symbol(), t)
	}
}

// allOf is the official is_kind_type_or_kind_union_type: t, or every
// member of the union t, satisfies p.
func allOf(t *typ, p func(*typ) bool) bool {
	if t.kind == tUnion {
		for _, e := range t.elems {
			if !p(e) {
				return false
			}
		}
		return true
	}
	return p(t)
}
