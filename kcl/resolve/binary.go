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

// binary reports an arithmetic operator the official table has no entry
// for, such as `1 + None`, and a literal division by zero.
func (r *resolver) binary(e *syntax.BinaryExpr) {
	switch e.Op {
	case syntax.Add, syntax.Sub, syntax.Mul, syntax.Div, syntax.FloorDiv, syntax.Mod, syntax.Pow:
	default:
		return
	}
	l, rt := r.exprType(e.Left, 0), r.exprType(e.Right, 0)
	if !l.concrete() || !rt.concrete() {
		return
	}
	ok := false
	switch e.Op {
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
			r.report(KindType, e.Pos(), "integer division or modulo by zero")
		}
	}
	if !ok {
		r.report(KindType, e.Pos(), "unsupported operand type(s) for %s: '%s' and '%s'", e.Op.Symbol(), l, rt)
	}
}
