package eval

import (
	"math"
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl/builtins"
	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	"github.com/kcl-lang/flux-kcl-controller/kcl/output"
	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

// eval evaluates an expression.
func (in *Interp) eval(e *env, x syntax.Expr) (value.Value, error) {
	in.lastNode = x
	switch x := x.(type) {
	case *syntax.Identifier:
		return in.evalIdentifier(e, x)
	case *syntax.NumberLit:
		return numberValue(x), nil
	case *syntax.StringLit:
		return value.Str(x.Value), nil
	case *syntax.NameConstantLit:
		switch x.Value {
		case syntax.True:
			return value.True, nil
		case syntax.False:
			return value.False, nil
		case syntax.None:
			return value.None, nil
		}
		return value.Undefined, nil
	case *syntax.JoinedString:
		return in.evalJoinedString(e, x)
	case *syntax.FormattedValue:
		return in.evalFormatted(e, x)
	case *syntax.ParenExpr:
		return in.eval(e, x.Expr)
	case *syntax.UnaryExpr:
		v, err := in.eval(e, x.Operand)
		if err != nil {
			return nil, err
		}
		r, err := value.Unary(value.UnaryOp(x.Op), v)
		return r, locate(err, lineOnly(x.Pos()))
	case *syntax.BinaryExpr:
		return in.evalBinary(e, x)
	case *syntax.Compare:
		return in.evalCompare(e, x)
	case *syntax.IfExpr:
		c, err := in.eval(e, x.Cond)
		if err != nil {
			return nil, err
		}
		if c.Truth() {
			return in.eval(e, x.Body)
		}
		return in.eval(e, x.Orelse)
	case *syntax.SelectorExpr:
		v, err := in.eval(e, x.Value)
		if err != nil {
			return nil, err
		}
		// `x?.a` is None when x is false (None, Undefined, but also {} or
		// ""), as the runtime tests truthiness; later names of `x?.a.b` are
		// loaded plainly.
		for i, n := range x.Attr.Names {
			if i == 0 && x.HasQuestion && !v.Truth() {
				v = value.None
				continue
			}
			v, err = in.getAttr(v, n.Value, x.Pos())
			if err != nil {
				return nil, err
			}
		}
		return v, nil
	case *syntax.Subscript:
		return in.evalSubscript(e, x)
	case *syntax.CallExpr:
		return in.evalCall(e, x)
	case *syntax.ListExpr:
		return in.evalList(e, x.Elts)
	case *syntax.ListComp:
		defer in.leaveScope(in.enterScope())
		return in.evalListComp(e, x)
	case *syntax.DictComp:
		defer in.leaveScope(in.enterScope())
		return in.evalDictComp(e, x)
	case *syntax.ConfigExpr:
		defer in.leaveScope(in.enterScope())
		return in.evalConfig(e, x)
	case *syntax.SchemaExpr:
		return in.evalSchemaExpr(e, x)
	case *syntax.LambdaExpr:
		return in.makeLambda(e, x)
	case *syntax.QuantExpr:
		return in.evalQuant(e, x)
	case *syntax.StarredExpr:
		return in.eval(e, x.Value)
	case *syntax.MissingExpr:
		return nil, errorAt(x.Pos(), errkind.InvalidSyntax, "expected expression")
	}
	return nil, errorAt(x.Pos(), errkind.Compile, "unsupported expression %T", x)
}

func numberValue(n *syntax.NumberLit) value.Value {
	if n.BinarySuffix != "" {
		raw := n.Int
		if n.IsFloat {
			raw = int64(n.Float)
		}
		return value.Unit{Real: float64(raw) * unitMultiplier(n.BinarySuffix), Raw: raw, Suffix: n.BinarySuffix}
	}
	if n.IsFloat {
		return value.Float(n.Float)
	}
	return value.Int(n.Int)
}

func unitMultiplier(s string) float64 {
	switch s {
	case "n":
		return 1e-9
	case "u":
		return 1e-6
	case "m":
		return 1e-3
	case "k", "K":
		return 1e3
	case "M":
		return 1e6
	case "G":
		return 1e9
	case "T":
		return 1e12
	case "P":
		return 1e15
	case "Ki":
		return 1 << 10
	case "Mi":
		return 1 << 20
	case "Gi":
		return 1 << 30
	case "Ti":
		return 1 << 40
	case "Pi":
		return 1 << 50
	}
	return 1
}

func (in *Interp) evalIdentifier(e *env, x *syntax.Identifier) (value.Value, error) {
	v, err := in.lookup(e, x.Names[0].Value, x.Pos())
	if err != nil {
		return nil, err
	}
	if _, isModule := v.(*value.Module); isModule && len(x.Names) == 1 {
		// A module is no value: 0.12.1 loads it as Undefined (printed so,
		// left out of lists, dicts and the output).
		return value.Undefined, nil
	}
	for _, n := range x.Names[1:] {
		v, err = in.getAttr(v, n.Value, n.Pos())
		if err != nil {
			return nil, err
		}
	}
	return v, nil
}

// getAttr is `v.name`, as the runtime's load_attr: a dict without the key
// gives Undefined (omitted from the output), a schema without the attribute
// and a value that has no attributes (None, Undefined, numbers, lists) fail.
// `?.` is handled by the caller.
func (in *Interp) getAttr(v value.Value, name string, pos syntax.Position) (value.Value, error) {
	switch x := v.(type) {
	case *value.Dict:
		if r, ok := x.Get(name); ok {
			return r, nil
		}
		return value.Undefined, nil
	case *value.Schema:
		if r, ok := x.Config.Get(name); ok {
			return r, nil
		}
		return nil, errorAt(lineOnly(pos), errkind.Evaluation, "schema '%s' attribute '%s' not found", x.Type(), name)
	case *value.Module:
		if r, ok := x.Attr(name); ok {
			return r, nil
		}
		return nil, errorAt(pos, errkind.Evaluation, "module '%s' has no attribute '%s'", x.Name, name)
	case value.Str:
		if m, ok := methodOf(v, name); ok {
			return m, nil
		}
		return nil, errorAt(lineOnly(pos), errkind.Evaluation, "str object attr '%s' not found", name)
	case *value.Function, *value.Builtin:
		if f, ok := x.(*value.Function); ok {
			if def, ok := f.Closure.(*schemaDef); ok {
				if m, ok := in.schemaTypeAttr(def, name); ok {
					return m, nil
				}
			}
		}
		return nil, errorAt(lineOnly(pos), errkind.Evaluation, "schema object attr '%s' not found", name)
	}
	return nil, errorAt(lineOnly(pos), errkind.Evaluation, "invalid value '%s' to load attribute '%s'", v.Type(), name)
}

// methodOf finds a builtin method such as "abc".upper.
func methodOf(recv value.Value, name string) (value.Value, bool) {
	if s, ok := recv.(value.Str); ok && builtins.HasStrMethod(name) {
		m, err := builtins.StrMethod(s, name)
		return m, err == nil
	}
	return nil, false
}

func dictMethod(d *value.Dict, name string) (value.Value, bool) { return nil, false }

func (in *Interp) evalBinary(e *env, x *syntax.BinaryExpr) (value.Value, error) {
	l, err := in.eval(e, x.Left)
	if err != nil {
		return nil, err
	}
	switch x.Op {
	case syntax.And:
		if !l.Truth() {
			return l, nil
		}
		return in.eval(e, x.Right)
	case syntax.Or:
		if l.Truth() {
			return l, nil
		}
		return in.eval(e, x.Right)
	case syntax.As:
		ty, ok := x.Right.(*syntax.Identifier)
		if !ok {
			return l, nil
		}
		return in.convertType(e, l, &syntax.NamedType{Span: ty.Span, Identifier: ty}, lineOnly(x.Pos()))
	}
	r, err := in.eval(e, x.Right)
	if err != nil {
		return nil, err
	}
	// A run-time failure is located at the body of a lambda the right
	// operand called, say.
	return in.binary(x.Op, l, r, in.panicPos(x.Pos()))
}

func (in *Interp) binary(op syntax.BinOp, l, r value.Value, pos syntax.Position) (value.Value, error) {
	if op == syntax.BitOr {
		if isContainerValue(l) && isContainerValue(r) {
			return in.unionOr(l, r, pos)
		}
		if value.IsNoneOrUndefined(l) {
			return r, nil
		}
		if value.IsNoneOrUndefined(r) {
			return l, nil
		}
	}
	v, err := value.Binary(in.thread, value.BinOp(op), l, r)
	if err != nil {
		return nil, locate(err, lineOnly(pos))
	}
	if err := in.thread.Alloc(1); err != nil {
		return nil, locate(err, pos)
	}
	return v, nil
}

func isContainerValue(v value.Value) bool {
	switch v.(type) {
	case *value.Dict, *value.List, *value.Schema:
		return true
	}
	return false
}

var cmpOps = map[syntax.CmpOp]value.CmpOp{
	syntax.Eq: value.Eq, syntax.NotEq: value.NotEq, syntax.Lt: value.Lt, syntax.LtE: value.LtE,
	syntax.Gt: value.Gt, syntax.GtE: value.GtE, syntax.Is: value.Is, syntax.IsNot: value.IsNot,
	syntax.In: value.In, syntax.NotIn: value.NotIn,
}

func (in *Interp) evalCompare(e *env, x *syntax.Compare) (value.Value, error) {
	l, err := in.eval(e, x.Left)
	if err != nil {
		return nil, err
	}
	for i, op := range x.Ops {
		r, err := in.eval(e, x.Comparators[i])
		if err != nil {
			return nil, err
		}
		vop, ok := cmpOps[op]
		if !ok {
			return nil, errorAt(x.Pos(), errkind.Compile, "unsupported comparison %s", op)
		}
		// The official checker rejects ordering lists.
		if vop == value.Lt || vop == value.LtE || vop == value.Gt || vop == value.GtE {
			_, ll := l.(*value.List)
			_, rl := r.(*value.List)
			if ll && rl {
				return nil, errorAt(x.Pos(), errkind.Type, "unsupported operand type(s) for %s: '%s' and '%s'", op.Symbol(), literalTypeString(l), literalTypeString(r))
			}
		}
		res, err := value.Compare(vop, l, r)
		if err != nil {
			return nil, locate(err, lineOnly(x.Pos()))
		}
		if !res {
			return value.False, nil
		}
		l = r
	}
	return value.True, nil
}

func (in *Interp) evalSubscript(e *env, x *syntax.Subscript) (value.Value, error) {
	v, err := in.eval(e, x.Value)
	if err != nil {
		return nil, err
	}
	// `x?[i]` is None when x is false, as `x?.a`.
	if x.HasQuestion && !v.Truth() {
		return value.None, nil
	}
	if x.Index != nil {
		idx, err := in.eval(e, x.Index)
		if err != nil {
			return nil, err
		}
		return in.index(v, idx, x.Pos())
	}
	var bounds [3]value.Value
	for i, b := range []syntax.Expr{x.Lower, x.Upper, x.Step} {
		bounds[i] = value.None
		if b != nil {
			bv, err := in.eval(e, b)
			if err != nil {
				return nil, err
			}
			bounds[i] = bv
		}
	}
	return slice(v, bounds, x.Pos())
}

func (in *Interp) index(v, idx value.Value, pos syntax.Position) (value.Value, error) {
	switch c := v.(type) {
	case *value.List:
		n, ok := idx.(value.Int)
		if !ok {
			return nil, errorAt(lineOnly(pos), errkind.Evaluation, "'list' object is not subscriptable with '%s'", idx.Type())
		}
		i := int(n)
		if i < 0 {
			i += len(c.Elems)
		}
		if i < 0 || i >= len(c.Elems) {
			return nil, errorAt(lineOnly(pos), errkind.Evaluation, "list index out of range: %d", int(n))
		}
		return c.Elems[i], nil
	case value.Str:
		n, ok := idx.(value.Int)
		if !ok {
			return nil, errorAt(lineOnly(pos), errkind.Evaluation, "'str' object is not subscriptable with '%s'", idx.Type())
		}
		rs := []rune(string(c))
		i := int(n)
		if i < 0 {
			i += len(rs)
		}
		if i < 0 || i >= len(rs) {
			return nil, errorAt(lineOnly(pos), errkind.Evaluation, "string index out of range: %d", int(n))
		}
		return value.Str(string(rs[i])), nil
	case *value.Dict:
		// A missing key, or a key that is not a string, is Undefined.
		if key, ok := idx.(value.Str); ok {
			if r, ok := c.Get(string(key)); ok {
				return r, nil
			}
		}
		return value.Undefined, nil
	case *value.Schema:
		if key, ok := idx.(value.Str); ok {
			if r, ok := c.Config.Get(string(key)); ok {
				return r, nil
			}
			return value.Undefined, nil
		}
	}
	return nil, errorAt(lineOnly(pos), errkind.Evaluation, "'%s' object is not subscriptable with '%s'", v.Type(), idx.Type())
}

func slice(v value.Value, b [3]value.Value, pos syntax.Position) (value.Value, error) {
	var n int
	var rs []rune
	switch c := v.(type) {
	case *value.List:
		n = len(c.Elems)
	case value.Str:
		rs = []rune(string(c))
		n = len(rs)
	default:
		return nil, errorAt(lineOnly(pos), errkind.Evaluation, "invalid slice object %s", v.Type())
	}
	step := 1
	if s, ok := b[2].(value.Int); ok {
		step = int(s)
	}
	if step == 0 {
		return nil, errorAt(lineOnly(pos), errkind.Evaluation, "slice step cannot be zero")
	}
	clamp := func(x value.Value, def int) int {
		i, ok := x.(value.Int)
		if !ok {
			return def
		}
		k := int(i)
		if k < 0 {
			k += n
			if k < 0 {
				if step < 0 {
					k = -1
				} else {
					k = 0
				}
			}
		}
		if k >= n {
			if step < 0 {
				k = n - 1
			} else {
				k = n
			}
		}
		return k
	}
	var lo, hi int
	if step > 0 {
		lo, hi = clamp(b[0], 0), clamp(b[1], n)
	} else {
		lo, hi = clamp(b[0], n-1), clamp(b[1], -1)
	}
	var idx []int
	if step > 0 {
		for i := lo; i < hi; i += step {
			idx = append(idx, i)
		}
	} else {
		for i := lo; i > hi; i += step {
			idx = append(idx, i)
		}
	}
	switch c := v.(type) {
	case *value.List:
		out := make([]value.Value, 0, len(idx))
		for _, i := range idx {
			out = append(out, c.Elems[i])
		}
		return value.NewList(out), nil
	}
	var sb strings.Builder
	for _, i := range idx {
		sb.WriteRune(rs[i])
	}
	return value.Str(sb.String()), nil
}

func (in *Interp) evalList(e *env, elts []syntax.Expr) (value.Value, error) {
	out := make([]value.Value, 0, len(elts))
	var err error
	out, err = in.appendListItems(e, out, elts)
	if err != nil {
		return nil, err
	}
	if err := in.thread.Alloc(len(out) + 1); err != nil {
		return nil, locate(err, syntax.Position{})
	}
	return value.NewList(out), nil
}

func (in *Interp) appendListItems(e *env, out []value.Value, elts []syntax.Expr) ([]value.Value, error) {
	for _, x := range elts {
		switch x := x.(type) {
		case *syntax.StarredExpr:
			v, err := in.eval(e, x.Value)
			if err != nil {
				return nil, err
			}
			items, err := unpackList(v, x.Pos())
			if err != nil {
				return nil, err
			}
			out = append(out, items...)
		case *syntax.ListIfItemExpr:
			var err error
			out, err = in.appendListIf(e, out, x)
			if err != nil {
				return nil, err
			}
		default:
			v, err := in.eval(e, x)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
	}
	return out, nil
}

func (in *Interp) appendListIf(e *env, out []value.Value, x *syntax.ListIfItemExpr) ([]value.Value, error) {
	c, err := in.eval(e, x.IfCond)
	if err != nil {
		return nil, err
	}
	if c.Truth() {
		return in.appendListItems(e, out, x.Exprs)
	}
	switch o := x.Orelse.(type) {
	case nil:
		return out, nil
	case *syntax.ListIfItemExpr:
		return in.appendListIf(e, out, o)
	case *syntax.ListExpr:
		return in.appendListItems(e, out, o.Elts)
	default:
		return in.appendListItems(e, out, []syntax.Expr{o})
	}
}

// unpackList lists the items `*x` adds to a list or call: list elements, dict
// and schema keys; None and Undefined add nothing. Anything else (a string
// too) is an error, as the runtime's list_append_unpack.
func unpackList(v value.Value, pos syntax.Position) ([]value.Value, error) {
	switch c := v.(type) {
	case *value.List:
		return c.Elems, nil
	case *value.Dict, *value.Schema:
		d, _ := value.AsDict(c)
		keys := d.Keys()
		out := make([]value.Value, len(keys))
		for i, k := range keys {
			out[i] = value.Str(k)
		}
		return out, nil
	case value.NoneType, value.UndefinedType:
		return nil, nil
	}
	return nil, errUnpack(v, pos)
}

// errUnpack is the runtime's error for `*x` or `**x` on a value that cannot be
// unpacked; it prints the value itself, as str() would.
func errUnpack(v value.Value, pos syntax.Position) error {
	return errorAt(lineOnly(pos), errkind.Evaluation, "only list, dict and schema object can be used with unpack operators * and **, got %s", v.String())
}

func (in *Interp) evalJoinedString(e *env, x *syntax.JoinedString) (value.Value, error) {
	var sb strings.Builder
	for _, part := range x.Values {
		v, err := in.eval(e, part)
		if err != nil {
			return nil, err
		}
		sb.WriteString(v.String())
	}
	return value.Str(sb.String()), nil
}

func (in *Interp) evalFormatted(e *env, x *syntax.FormattedValue) (value.Value, error) {
	v, err := in.eval(e, x.Value)
	if err != nil {
		return nil, err
	}
	switch spec := strings.ToLower(strings.TrimSpace(x.FormatSpec)); spec {
	case "":
	case "#json":
		return value.Str(value.EncodeJSON(v, value.JSONOptions{})), nil
	case "#yaml":
		return value.Str(formatYAML(v)), nil
	default:
		return nil, errorAt(x.Pos(), errkind.Compile, "%s is a invalid format spec", strings.TrimSpace(x.FormatSpec))
	}
	return value.Str(interpolationText(v)), nil
}

// interpolationText is how ${v} prints a value.
func interpolationText(v value.Value) string {
	switch x := v.(type) {
	case value.Float:
		if math.Trunc(float64(x)) == float64(x) && !math.IsInf(float64(x), 0) {
			return value.FormatFloat(float64(x))
		}
	}
	return v.String()
}

// formatYAML is `${v: #yaml}`: what yaml.encode(v) gives.
func formatYAML(v value.Value) string { return string(output.EncodeYAML(v, false, false, false)) }
