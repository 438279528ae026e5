package value

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
)

// BinOp is a binary arithmetic operator, named as in the KCL AST.
type BinOp uint8

const (
	Add BinOp = iota
	Sub
	Mul
	Div
	Mod
	Pow
	FloorDiv
	LShift
	RShift
	BitXor
	BitAnd
	BitOr
)

var binOpText = [...]string{"+", "-", "*", "/", "%", "**", "//", "<<", ">>", "^", "&", "|"}

func (op BinOp) String() string { return binOpText[op] }

// CmpOp is a comparison operator, named as in the KCL AST.
type CmpOp uint8

const (
	Eq CmpOp = iota
	NotEq
	Lt
	LtE
	Gt
	GtE
	Is
	IsNot
	In
	NotIn
)

var cmpOpText = [...]string{"==", "!=", "<", "<=", ">", ">=", "is", "is not", "in", "not in"}

func (op CmpOp) String() string { return cmpOpText[op] }

// UnaryOp is a unary operator.
type UnaryOp uint8

const (
	UAdd   UnaryOp = iota // +x
	USub                  // -x
	Invert                // ~x
	Not                   // not x
)

func unsupportedBinOp(op string, a, b Value) *Error {
	return Errorf(errkind.Evaluation, "unsupported operand type(s) for %s: '%s' and '%s'", op, a.Type(), b.Type())
}

// intOverflow reports the exact result the way the runtime does.
// powUnit is a ** e for a in {-1, 0, 1}, which never overflows.
func powUnit(a int64, e uint32) int64 {
	switch {
	case a == 0 && e > 0:
		return 0
	case a == -1 && e%2 == 1:
		return -1
	}
	return 1
}

// powI128 is (a as i128).pow(e) with Rust's wrapping to 128 bits.
func powI128(a int64, e uint32) *big.Int {
	mod := new(big.Int).Lsh(big.NewInt(1), 128)
	x := new(big.Int).Exp(new(big.Int).Abs(big.NewInt(a)), new(big.Int).SetUint64(uint64(e)), mod)
	if a < 0 && e%2 == 1 {
		x.Sub(mod, x).Mod(x, mod)
	}
	if x.Cmp(new(big.Int).Rsh(mod, 1)) >= 0 {
		x.Sub(x, mod)
	}
	return x
}

// shiftI128 is the value the runtime reports for a shift count out of range:
// (a as i128) << (b as u32), which wraps the count to 7 bits and the result
// to 128 bits.
func shiftI128(a, b int64, left bool) *big.Int {
	n := uint(uint32(b) & 127)
	x := big.NewInt(a)
	if !left {
		return x.Rsh(x, n)
	}
	x.Lsh(x, n)
	mod := new(big.Int).Lsh(big.NewInt(1), 128)
	x.Mod(x, mod)
	if x.Cmp(new(big.Int).Rsh(mod, 1)) >= 0 {
		x.Sub(x, mod)
	}
	return x
}

func intOverflow(exact *big.Int, bits int) *Error {
	return Errorf(errkind.Evaluation, "%s: A %d bit integer overflow", exact.String(), bits)
}

func floatOverflow(v float64) *Error {
	return Errorf(errkind.Evaluation, "%s: A 32-bit floating point number overflow", rustLowerExp(v))
}

// rustLowerExp formats like Rust's {:e} with the runtime's forced "+" sign:
// 3.4028235e+38, 1e-5.
func rustLowerExp(v float64) string {
	s := strconv.FormatFloat(v, 'e', -1, 64)
	mant, exp, _ := strings.Cut(s, "e")
	sign := exp[0]
	exp = strings.TrimLeft(exp[1:], "0")
	if exp == "" {
		exp = "0"
	}
	return mant + "e" + string(sign) + exp
}

func i32Overflow(v int64) bool { return v > math.MaxInt32 || v < math.MinInt32 }
func f32Overflow(v float64) bool {
	return v > math.MaxFloat32 || v < -math.MaxFloat32
}

// intResult checks an exact result against the run's range: 32-bit when -r is
// set, 64-bit otherwise (and in debug mode).
func intResult(t *Thread, a, b int64, exact *big.Int) (Value, error) {
	strict32 := t != nil && t.StrictRangeCheck
	check64 := t == nil || t.Debug || !t.StrictRangeCheck
	if strict32 && (i32Overflow(a) || i32Overflow(b) || !exact.IsInt64() || i32Overflow(exact.Int64())) {
		return nil, intOverflow(exact, 32)
	}
	if check64 && !exact.IsInt64() {
		return nil, intOverflow(exact, 64)
	}
	return Int(exact.Int64()), nil // wraps when unchecked, as the runtime does
}

func floatResult(t *Thread, a, b, r float64, always bool) (Value, error) {
	strict32 := t != nil && t.StrictRangeCheck
	if (strict32 || always) && (f32Overflow(a) || f32Overflow(b) || f32Overflow(r)) {
		return nil, floatOverflow(r)
	}
	return Float(r), nil
}

// numbers returns the operands as floats when at least one is a float and both are
// numbers.
func numbers(a, b Value) (x, y float64, ok bool) {
	switch a := a.(type) {
	case Int:
		switch b := b.(type) {
		case Float:
			return float64(a), float64(b), true
		}
	case Float:
		switch b := b.(type) {
		case Int:
			return float64(a), float64(b), true
		case Float:
			return float64(a), float64(b), true
		}
	}
	return 0, 0, false
}

// Binary applies op to a and b with KCL semantics. t supplies the range-check
// flags and may be nil. `|` on containers is Union with default options over a
// deep copy of a.
func Binary(t *Thread, op BinOp, a, b Value) (Value, error) {
	ai, aInt := a.(Int)
	bi, bInt := b.(Int)
	if aInt && bInt {
		return intBinary(t, op, int64(ai), int64(bi))
	}
	if x, y, ok := numbers(a, b); ok {
		_, mixed := a.(Int)
		if _, bIsInt := b.(Int); bIsInt {
			mixed = true
		}
		switch op {
		case Add:
			// the runtime checks f32 range for int+float mixes even without -r
			return floatResult(t, x, y, x+y, mixed)
		case Sub:
			return floatResult(t, x, y, x-y, false)
		case Mul:
			return floatResult(t, x, y, x*y, false)
		case Div:
			return Float(x / y), nil
		case FloorDiv:
			return Float(math.Floor(x / y)), nil
		case Mod:
			return Float(math.Mod(x, y)), nil
		case Pow:
			if t != nil && t.StrictRangeCheck && (f32Overflow(x) || f32Overflow(y) || i32Overflow(int64(y)) || f32Overflow(LibmPow(x, y))) {
				return nil, floatOverflow(LibmPow(x, y))
			}
			return Float(LibmPow(x, y)), nil
		}
		return nil, unsupportedBinOp(op.String(), a, b)
	}
	switch op {
	case Add:
		switch a := a.(type) {
		case Str:
			if b, ok := b.(Str); ok {
				return a + b, nil
			}
		case *List:
			if b, ok := b.(*List); ok {
				elems := make([]Value, 0, len(a.Elems)+len(b.Elems))
				elems = append(append(elems, a.Elems...), b.Elems...)
				return NewList(elems), nil
			}
			return nil, Errorf(errkind.Evaluation, "can only concatenate list (not \"%s\") to list", b.Type())
		}
	case Mul:
		if n, ok := b.(Int); ok {
			if r, ok, err := repeat(t, a, n); ok {
				return r, err
			}
		}
		if n, ok := a.(Int); ok {
			if r, ok, err := repeat(t, b, n); ok {
				return r, err
			}
		}
	case BitOr:
		if IsNoneOrUndefined(a) || IsNoneOrUndefined(b) || isContainer(a) && isContainer(b) {
			return Union(t, DeepCopy(a), b, UnionOptions{})
		}
	}
	return nil, unsupportedBinOp(op.String(), a, b)
}

func isContainer(v Value) bool {
	switch v.(type) {
	case *List, *Dict, *Schema:
		return true
	}
	return false
}

func repeat(t *Thread, v Value, n Int) (Value, bool, error) {
	if _, isStr := v.(Str); isStr && n < 0 {
		return nil, true, Errorf(errkind.Evaluation, "capacity overflow") // Rust's repeat(n as usize)
	}
	if n < 0 {
		n = 0
	}
	switch v := v.(type) {
	case Str:
		// a string can never be useful beyond the output cap (or 1 GiB)
		limit := int64(1 << 30)
		if t != nil && t.MaxOutputBytes > 0 {
			limit = t.MaxOutputBytes
		}
		if len(v) > 0 && int64(n) > limit/int64(len(v)) {
			return nil, true, Errorf(errkind.Limit, "the repeated string would be larger than %d bytes", limit)
		}
		return Str(strings.Repeat(string(v), int(n))), true, nil
	case *List:
		total := int64(len(v.Elems)) * int64(n)
		if t != nil {
			if err := t.Alloc(int(min(total, math.MaxInt32))); err != nil {
				return nil, true, err
			}
		}
		elems := make([]Value, 0, total)
		for range n {
			for _, e := range v.Elems {
				elems = append(elems, DeepCopy(e))
			}
		}
		return NewList(elems), true, nil
	}
	return nil, false, nil
}

func intBinary(t *Thread, op BinOp, a, b int64) (Value, error) {
	exact := func(f func(z, x, y *big.Int) *big.Int) (Value, error) {
		r := f(new(big.Int), big.NewInt(a), big.NewInt(b))
		return intResult(t, a, b, r)
	}
	switch op {
	case Add:
		if r := a + b; (r > a) == (b > 0) {
			return rangeCheck32(t, a, b, r)
		}
		return exact((*big.Int).Add)
	case Sub:
		if r := a - b; (r < a) == (b > 0) {
			return rangeCheck32(t, a, b, r)
		}
		v, err := exact((*big.Int).Sub)
		if e, ok := err.(*Error); ok {
			// the runtime reports a 64-bit subtraction overflow as "32 bit"
			e.Msg = strings.Replace(e.Msg, "A 64 bit", "A 32 bit", 1)
		}
		return v, err
	case Mul:
		return exact((*big.Int).Mul)
	case Div:
		return Float(float64(a) / float64(b)), nil
	case FloorDiv, Mod:
		// Rust's own panic texts, as the engine reports them at run time
		if b == 0 && op == Mod {
			return nil, Errorf(errkind.Evaluation, "attempt to calculate the remainder with a divisor of zero")
		}
		if b == 0 {
			return nil, Errorf(errkind.Evaluation, "attempt to divide by zero")
		}
		q, r := a/b, a%b
		if (a < 0) != (b < 0) && r != 0 {
			q--
			r += b
		}
		if op == Mod {
			return Int(r), nil
		}
		return Int(q), nil
	case Pow:
		// The runtime computes a.pow(b as u32) after checked_pow: a negative
		// exponent is a huge unsigned one, so 2 ** -1 overflows (0.12.1 has no
		// float result), while 0 ** -1 is 0 and 1 ** -1 is 1; the value it
		// reports is (a as i128).pow(b as u32), wrapped to 128 bits.
		e := uint32(b)
		switch {
		case i32Overflow(b):
			return nil, intOverflow(powI128(a, e), 64)
		case a == 0 || a == 1 || a == -1:
			return Int(powUnit(a, e)), nil
		case b < 0 || b >= 64:
			return nil, intOverflow(powI128(a, e), 64)
		}
		r := new(big.Int).Exp(big.NewInt(a), big.NewInt(b), nil)
		if !r.IsInt64() && (t == nil || t.Debug || !t.StrictRangeCheck) {
			return nil, intOverflow(powI128(a, e), 64)
		}
		return intResult(t, a, b, r)
	case LShift:
		// The runtime checks only the shift count (Rust's checked_shl): a count
		// in [0, 63] wraps the bits shifted out, as i64 << does.
		if b < 0 || b >= 64 {
			return nil, intOverflow(shiftI128(a, b, true), 64)
		}
		return Int(a << uint(b)), nil
	case RShift:
		if b < 0 || b >= 64 {
			return nil, intOverflow(shiftI128(a, b, false), 64)
		}
		return Int(a >> uint(b)), nil
	case BitAnd:
		return Int(a & b), nil
	case BitOr:
		return Int(a | b), nil
	case BitXor:
		return Int(a ^ b), nil
	}
	return nil, unsupportedBinOp(op.String(), Int(a), Int(b))
}

func rangeCheck32(t *Thread, a, b, r int64) (Value, error) {
	if t != nil && t.StrictRangeCheck && (i32Overflow(a) || i32Overflow(b) || i32Overflow(r)) {
		return nil, intOverflow(big.NewInt(r), 32)
	}
	return Int(r), nil
}

// Unary applies a unary operator.
func Unary(op UnaryOp, x Value) (Value, error) {
	switch op {
	case Not:
		return Bool(!x.Truth()), nil
	case UAdd:
		switch x.(type) {
		case Int, Float:
			return x, nil
		}
		return nil, Errorf(errkind.Evaluation, "bad operand type for unary +: '%s'", x.Type())
	case USub:
		switch x := x.(type) {
		case Int:
			return Int(0 - x), nil
		case Float:
			return Float(0 - x), nil
		}
		return nil, Errorf(errkind.Evaluation, "bad operand type for unary -: '%s'", x.Type())
	case Invert:
		// The runtime inverts as_int(x), which is 0 for anything but a
		// number: ~True and ~None are -1, ~2.7 is -3. The static checker is
		// what refuses ~ on a non-integer it can see.
		switch x := x.(type) {
		case Int:
			return Int(^x), nil
		case Float:
			return Int(^int64(x)), nil
		case Unit:
			return Int(^int64(x.Real)), nil
		}
		return Int(-1), nil
	}
	return nil, Errorf(errkind.Evaluation, "unknown unary operator")
}

// SaturatingInt converts as Rust's `f as i64` does, which the runtime's int
// conversions use: clamped to the int64 range, NaN to 0 (Go's conversion of an
// out-of-range float is undefined: on amd64 it gives the minimum).
func SaturatingInt(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}
