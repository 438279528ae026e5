package resolve

import (
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
func (r *resolver) binary(e *syntax.BinaryExpr) {
	if e.Op == syntax.As {
		r.conversion(e)
		return
	}
	r.binaryCheck(e.Op, r.exprType(e.Left, 0), r.exprType(e.Right, 0), e.Pos())
}

// conversion reports `v as T` where neither type is assignable to the other.
func (r *resolver) conversion(e *syntax.BinaryExpr) {
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
		r.report(KindType, e.Pos(), "Conversion of type '%s' to type '%s' may be a mistake because neither type sufficiently overlaps with the other", from, to)
	}
}

// augOps maps augmented assignments to their operators.
var augOps = map[syntax.AugOp]syntax.BinOp{
	syntax.AugAdd: syntax.Add, syntax.AugSub: syntax.Sub, syntax.AugMul: syntax.Mul,
	syntax.AugDiv: syntax.Div, syntax.AugMod: syntax.Mod, syntax.AugPow: syntax.Pow,
	syntax.AugFloorDiv: syntax.FloorDiv, syntax.AugBitOr: syntax.BitOr,
}

// augBinary checks `x op= v` on a global whose type is known.
func (r *resolver) augBinary(s *syntax.AugAssignStmt) {
	op, ok := augOps[s.Op]
	if !ok || s.Target == nil || s.Target.Name == nil || len(s.Target.Paths) > 0 {
		return
	}
	l := r.varTypes[s.Target.Name.Value]
	if l == nil {
		return
	}
	r.binaryCheck(op, l, r.exprType(s.Value, 0), s.Target.Pos())
}

func (r *resolver) binaryCheck(op syntax.BinOp, l, rt *typ, pos syntax.Position) {
	switch op {
	case syntax.Add, syntax.Sub, syntax.Mul, syntax.Div, syntax.FloorDiv, syntax.Mod, syntax.Pow:
		if !l.concrete() || !rt.concrete() {
			return
		}
	case syntax.BitOr:
		// Unions judge schemas too; None and bool operands are left to run time.
		for _, t := range []*typ{l, rt} {
			switch t.kind {
			case tAny, tUnion, tNone, tBool, tLitBool:
				return
			}
		}
	default:
		return
	}
	ok := false
	switch op {
	case syntax.Add:
		ok = l.isNumber() && rt.isNumber() || l.isStrKind() && rt.isStrKind() || l.kind == tList && rt.kind == tList
	case syntax.Sub, syntax.Pow:
		ok = l.isNumber() && rt.isNumber()
	case syntax.Mul:
		seq := func(t *typ) bool { return t.isStrKind() || t.kind == tList }
		ok = l.isNumber() && rt.isNumber() || l.isIntKind() && seq(rt) || seq(l) && rt.isIntKind()
	case syntax.Div, syntax.FloorDiv, syntax.Mod:
		ok = l.isNumber() && rt.isNumber()
		if ok && (rt.kind == tLitInt && rt.lit == "0" || rt.kind == tLitFloat && rt.lit == "0") {
			r.report(KindType, pos, "integer division or modulo by zero")
		}
	case syntax.BitOr:
		ok = l.isIntKind() && rt.isIntKind() || l.kind == tList && rt.kind == tList ||
			l.kind == tDict && rt.kind == tDict || l.kind == tSchema && (rt.kind == tSchema || rt.kind == tDict)
	}
	if !ok {
		r.report(KindType, pos, "unsupported operand type(s) for %s: '%s' and '%s'", op.Symbol(), l, rt)
	}
}

func (t *typ) isNumberBool() bool { return t.isNumber() || t.kind == tBool || t.kind == tLitBool }

func (t *typ) isPrimitive() bool { return t.isNumberBool() || t.isStrKind() }

// compare reports comparisons the official table has no entry for: an
// order between anything but numbers and bools, equality between values
// of different kinds, membership in a non-iterable.
func (r *resolver) compare(e *syntax.Compare) {
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

func (r *resolver) compareCheck(op syntax.CmpOp, l, rt *typ, pos syntax.Position) {
	for _, t := range []*typ{l, rt} {
		if t.kind == tAny || t.kind == tUnion {
			return
		}
	}
	member := op == syntax.In || op == syntax.NotIn
	switch {
	case l.isNumberBool() && rt.isNumberBool() && !member:
		return
	case (op == syntax.Eq || op == syntax.NotEq) && l.isPrimitive() && rt.isPrimitive():
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
	r.report(KindType, pos, "unsupported operand type(s) for %s: '%s' and '%s'", op.Symbol(), l, rt)
}
