package value

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
)

func TestBinary(t *testing.T) {
	cases := []struct {
		op   BinOp
		a, b Value
		want string
	}{
		{Add, Int(1), Int(2), "3"},
		{Div, Int(4), Int(2), "2.0"},
		{FloorDiv, Int(-2), Int(4), "-1"},
		{Mod, Int(-2), Int(5), "3"},
		{Pow, Int(3), Int(2), "9"},
		{LShift, Int(3), Int(2), "12"},
		{BitXor, Int(7), Int(11), "12"},
		{Add, Int(1), Float(0.5), "1.5"},
		{Add, Str("a"), Str("b"), "ab"},
		{Mul, Str("ab"), Int(2), "abab"},
		{Mul, Int(2), NewList([]Value{Int(1)}), "[1, 1]"},
		{Add, NewList([]Value{Int(1)}), NewList([]Value{Int(2)}), "[1, 2]"},
		{BitOr, DictOf("a", Int(1)), DictOf("b", Int(2)), "{'a': 1, 'b': 2}"},
		{BitOr, None, DictOf("b", Int(2)), "{'b': 2}"},
	}
	for _, c := range cases {
		got, err := Binary(nil, c.op, c.a, c.b)
		if err != nil {
			t.Errorf("%v %v %v: %v", c.a, c.op, c.b, err)
			continue
		}
		if got.String() != c.want {
			t.Errorf("%v %v %v = %v, want %s", c.a, c.op, c.b, got, c.want)
		}
	}
}

func TestBinaryErrors(t *testing.T) {
	cases := []struct {
		t    *Thread
		op   BinOp
		a, b Value
		want string
	}{
		{nil, Add, Int(math.MaxInt64), Int(1), "9223372036854775808: A 64 bit integer overflow"},
		{&Thread{StrictRangeCheck: true}, Add, Int(math.MaxInt32), Int(1), "2147483648: A 32 bit integer overflow"},
		{nil, Mul, Int(1 << 62), Int(4), "18446744073709551616: A 64 bit integer overflow"},
		{nil, Add, Int(1), Str("a"), "unsupported operand type(s) for +: 'int' and 'str'"},
		{nil, Add, NewList(nil), Int(1), `can only concatenate list (not "int") to list`},
		{nil, Mod, Int(1), Int(0), "attempt to calculate the remainder with a divisor of zero"},
		{nil, FloorDiv, Int(1), Int(0), "attempt to divide by zero"},
		{nil, Sub, Int(math.MinInt64 + 1), Int(2), "-9223372036854775809: A 32 bit integer overflow"},
		{nil, Mul, Str("a"), Int(-1), "capacity overflow"},
		{&Thread{StrictRangeCheck: true}, Mul, Float(1e38), Float(10), "1e+39: A 32-bit floating point number overflow"},
	}
	for _, c := range cases {
		_, err := Binary(c.t, c.op, c.a, c.b)
		if err == nil || err.Error() != c.want {
			t.Errorf("%v %v %v: got %v want %s", c.a, c.op, c.b, err, c.want)
		}
	}
}

func TestCompare(t *testing.T) {
	yes := func(op CmpOp, a, b Value) {
		t.Helper()
		ok, err := Compare(op, a, b)
		if err != nil || !ok {
			t.Errorf("%v %v %v: %v %v", a, op, b, ok, err)
		}
	}
	yes(Eq, Int(1), Float(1))
	yes(Eq, DictOf("a", Int(1), "b", Int(2)), DictOf("b", Int(2), "a", Int(1)))
	yes(Lt, NewList([]Value{Int(1), Int(2)}), NewList([]Value{Int(1), Int(3)}))
	yes(Lt, Str("a"), Str("b"))
	yes(GtE, True, Int(1))
	yes(In, Str("b"), Str("abc"))
	yes(In, Str("k"), DictOf("k", None))
	yes(NotIn, Int(3), NewList([]Value{Int(1)}))
	if _, err := Compare(Lt, Str("a"), Int(1)); err == nil || !strings.Contains(err.Error(), "'<' not supported between instances of 'str' and 'int'") {
		t.Errorf("order error: %v", err)
	}
}

func TestUnionOps(t *testing.T) {
	base := DictOf("a", NewList([]Value{Int(0), Int(1), Int(2)}), "s", Str("x"))
	insert := NewDict(1)
	insert.SetEntry(Entry{Key: "a", Value: NewList([]Value{Int(7)}), Op: OpInsert, Index: -1})
	override := NewDict(1)
	override.SetEntry(Entry{Key: "s", Value: Str("y"), Op: OpOverride, Index: NoIndex})
	r, err := Union(nil, base, insert, UnionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err = Union(nil, r, override, UnionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.String(); got != "{'a': [0, 1, 7, 2], 's': 'y'}" {
		t.Errorf("got %s", got)
	}
	_, err = Union(nil, DictOf("s", Str("x")), DictOf("s", Str("z")), UnionOptions{IdempotentCheck: true})
	if err == nil || !strings.Contains(err.Error(), "conflicting values on the attribute 's' between") {
		t.Errorf("conflict: %v", err)
	}
	// list union is element-wise
	r, _ = Union(nil, NewList([]Value{DictOf("a", Int(1))}), NewList([]Value{DictOf("b", Int(2)), Int(3)}), UnionOptions{})
	if got := r.String(); got != "[{'a': 1, 'b': 2}, 3]" {
		t.Errorf("list union %s", got)
	}
}

func TestFloatText(t *testing.T) {
	cases := map[float64]string{1: "1.0", 1e20: "100000000000000000000.0", 0.1: "0.1", -2.5: "-2.5", 1e-7: "0.0000001"}
	for f, want := range cases {
		if got := Float(f).String(); got != want {
			t.Errorf("str(%v) = %s want %s", f, got, want)
		}
	}
	ryu := map[float64]string{1: "1.0", 1e16: "1e16", 1e15: "1000000000000000.0", 1.5e-7: "1.5e-7", 0.0001: "0.0001", 123.456: "123.456"}
	if got := RyuFloat(math.Copysign(0, -1)); got != "-0.0" {
		t.Errorf("ryu(-0) = %s", got)
	}
	for f, want := range ryu {
		if got := RyuFloat(f); got != want {
			t.Errorf("ryu(%v) = %s want %s", f, got, want)
		}
	}
}

func TestFormatSpec(t *testing.T) {
	cases := []struct {
		v    Value
		spec string
		want string
	}{
		{Int(42), ">6", "    42"},
		{Int(-42), "08", "-0000042"},
		{Int(255), "#x", "0xff"},
		{Int(1234567), ",", "1,234,567"},
		{Float(3.14159), ".2f", "3.14"},
		{Float(0.5), ".0%", "50%"},
		{Float(1e20), "", "1e+20"},
		{Float(3), "", "3.0"},
		{Str("s"), ">5", "s"},
	}
	for _, c := range cases {
		got, err := FormatValue(c.v, c.spec)
		if err != nil || got != c.want {
			t.Errorf("format(%v, %q) = %q, %v; want %q", c.v, c.spec, got, err, c.want)
		}
	}
}

func TestRepeatLimit(t *testing.T) {
	_, err := Binary(&Thread{MaxOutputBytes: 1000}, Mul, Str("ab"), Int(501))
	var e *Error
	if !errors.As(err, &e) || e.Kind != errkind.Limit {
		t.Fatalf("want a limit error, got %v", err)
	}
	if r, err := Binary(&Thread{MaxOutputBytes: 1000}, Mul, Str("ab"), Int(500)); err != nil || len(r.(Str)) != 1000 {
		t.Fatalf("within the limit: %v", err)
	}
}

func TestSelfReferenceIsBounded(t *testing.T) {
	l := NewList(nil)
	l.Append(l) // a cycle no program should build; operations must still end
	_ = DeepCopy(l)
	if Equal(l, l) != true {
		t.Error("identical lists")
	}
	other := NewList([]Value{NewList(nil)})
	_ = Equal(l, other)
	_ = CompactJSON(l)
	if _, err := Union(nil, l, DeepCopy(l), UnionOptions{}); err == nil {
		t.Log("union of a cycle stopped without error")
	}
}
