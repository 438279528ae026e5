package builtins

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

func abs(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
	x, ok := arg(args, kwargs, 0, "inval")
	if !ok {
		return nil, evalErr("abs() takes exactly one argument (0 given)")
	}
	switch v := x.(type) {
	case value.Int:
		if v < 0 {
			return -v, nil
		}
		return v, nil
	case value.Float:
		return value.Float(math.Abs(float64(v))), nil
	}
	return value.Undefined, nil
}

// radix formats hex/oct/bin the runtime's way (lower case, sign before prefix).
func radix(x value.Value, prefix string, base int) value.Value {
	n, ok := x.(value.Int)
	if !ok {
		return value.Undefined
	}
	if n < 0 {
		return value.Str("-" + prefix + new(big.Int).Neg(big.NewInt(int64(n))).Text(base))
	}
	return value.Str(prefix + strconv.FormatInt(int64(n), base))
}

func hex(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
	x, ok := arg(args, kwargs, 0, "number")
	if !ok {
		return nil, evalErr("hex() takes exactly one argument (0 given)")
	}
	return radix(x, "0x", 16), nil
}

func oct(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
	x, ok := arg(args, kwargs, 0, "number")
	if !ok {
		return nil, evalErr("oct() takes exactly one argument (0 given)")
	}
	if n, ok := x.(value.Int); ok && n == math.MinInt64 {
		return value.Str("-01000000000000000000000"), nil
	}
	return radix(x, "0o", 8), nil
}

func bin(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
	x, ok := arg(args, kwargs, 0, "number")
	if !ok {
		return nil, evalErr("bin() takes exactly one argument (0 given)")
	}
	return radix(x, "0b", 2), nil
}

func ord(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
	x, ok := arg(args, kwargs, 0, "c")
	if !ok {
		return nil, evalErr("ord() takes exactly one argument (0 given)")
	}
	s, ok := x.(value.Str)
	if !ok {
		return value.Undefined, nil
	}
	rs := []rune(string(s))
	if len(rs) != 1 {
		return nil, evalErr(" ord() expected string of length 1, but string of length %d found", len(s))
	}
	return value.Int(rs[0]), nil
}

func multiplyOf(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
	a, ok1 := arg(args, kwargs, 0, "a")
	b, ok2 := arg(args, kwargs, 1, "b")
	if !ok1 || !ok2 {
		return nil, evalErr("multiplyof() takes exactly two argument (%d given)", len(args))
	}
	x, ok1 := a.(value.Int)
	y, ok2 := b.(value.Int)
	if !ok1 || !ok2 {
		return value.Undefined, nil
	}
	if y == 0 {
		return nil, evalErr("attempt to calculate the remainder with a divisor of zero")
	}
	return value.Bool(x%y == 0), nil
}

func sum(t *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
	x, ok := arg(args, kwargs, 0, "iterable")
	if !ok {
		return value.Undefined, nil
	}
	var acc value.Value = value.Int(0)
	if start, ok := arg(args, kwargs, 1, "start"); ok {
		if _, isStr := start.(value.Str); isStr {
			return nil, evalErr("sum() can't sum strings")
		}
		acc = start
	}
	l, ok := x.(*value.List)
	if !ok {
		return value.Undefined, nil
	}
	for _, e := range l.Elems {
		var err error
		acc, err = value.Binary(t, value.Add, acc, e)
		if err != nil {
			return nil, err
		}
	}
	return acc, nil
}

func pow(t *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
	x, ok1 := arg(args, kwargs, 0, "x")
	y, ok2 := arg(args, kwargs, 1, "y")
	if !ok1 || !ok2 {
		return value.Undefined, nil
	}
	if zv, ok := arg(args, kwargs, 2, "z"); ok {
		if z, ok := zv.(value.Int); ok {
			if z == 0 {
				return nil, evalErr("pow() 3rd argument cannot be 0")
			}
			xi, ok1 := x.(value.Int)
			yi, ok2 := y.(value.Int)
			if !ok1 || !ok2 {
				return nil, evalErr("pow() 3rd argument not allowed unless all arguments are integers")
			}
			if yi < 0 {
				return nil, evalErr("pow() 2nd argument cannot be negative when 3rd argument specified")
			}
			if yi == 0 {
				return value.Int(1), nil
			}
			// the runtime's square-and-multiply with Rust's truncated remainder
			ans, base, m := big.NewInt(1), big.NewInt(int64(xi)), big.NewInt(int64(z))
			for e := int64(yi); e > 0; e /= 2 {
				if e%2 == 1 {
					ans.Rem(ans.Mul(ans, base), m)
				}
				base.Rem(base.Mul(base, base), m)
			}
			return value.Int(ans.Int64()), nil
		}
	}
	switch a := x.(type) {
	case value.Int:
		switch b := y.(type) {
		case value.Int:
			if b >= 0 {
				return value.Int(value.SaturatingInt(value.LibmPow(float64(a), float64(b)))), nil
			}
			return value.Float(value.LibmPow(float64(a), float64(b))), nil
		case value.Float:
			return value.Float(value.LibmPow(float64(a), float64(b))), nil
		}
	case value.Float:
		switch b := y.(type) {
		case value.Int:
			return value.Float(value.LibmPow(float64(a), float64(b))), nil
		case value.Float:
			return value.Float(value.LibmPow(float64(a), float64(b))), nil
		}
	}
	return value.Undefined, nil
}

// roundHalfAway is Rust's f64::round.
func roundHalfAway(f float64) float64 { return math.Round(f) }

func round(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
	x, ok := arg(args, kwargs, 0, "number")
	if !ok {
		return value.Undefined, nil
	}
	nd, hasDigits := arg(args, kwargs, 1, "ndigits")
	ndigits, isInt := nd.(value.Int)
	if !hasDigits || !isInt {
		switch v := x.(type) {
		case value.Int:
			return v, nil
		case value.Float:
			return value.Int(value.SaturatingInt(roundHalfAway(float64(v)))), nil
		}
		return value.Undefined, nil
	}
	switch v := x.(type) {
	case value.Int:
		return value.Float(v), nil
	case value.Float:
		number := float64(v)
		if ndigits == 0 {
			return value.Float(roundHalfAway(number)), nil
		}
		var y, pow1, pow2 float64
		if ndigits >= 0 {
			if ndigits > 22 {
				pow1, pow2 = value.LibmPow(10, float64(ndigits-22)), 1e22
			} else {
				pow1, pow2 = value.LibmPow(10, float64(ndigits)), 1
			}
			y = number * pow1 * pow2
			if math.IsInf(y, 0) || math.IsNaN(y) {
				return value.Float(number), nil
			}
		} else {
			pow1 = value.LibmPow(10, float64(-ndigits))
			y = number / pow1
		}
		z := roundHalfAway(y)
		if math.Abs(y-z) == 0.5 {
			z = 2 * roundHalfAway(y/2)
		}
		if ndigits >= 0 {
			z = z / pow2 / pow1
		} else {
			z *= pow1
		}
		if math.IsInf(z, 0) || math.IsNaN(z) {
			return value.Undefined, nil
		}
		return value.Float(z), nil
	}
	return value.Undefined, nil
}

func rangeOf(t *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
	a, ok := arg(args, kwargs, 0, "start")
	if !ok {
		return value.Undefined, nil
	}
	start, stop, step := value.Value(value.Int(0)), a, value.Value(value.Int(1))
	if b, ok := arg(args, kwargs, 1, "stop"); ok {
		start, stop = a, b
		if c, ok := arg(args, kwargs, 2, "step"); ok {
			step = c
		}
	}
	i0, ok1 := start.(value.Int)
	i1, ok2 := stop.(value.Int)
	st, ok3 := step.(value.Int)
	if !ok1 || !ok2 || !ok3 {
		return value.Undefined, nil
	}
	if st == 0 {
		return nil, evalErr("range() step argument must not be zero")
	}
	var n int64
	if st > 0 && i1 > i0 {
		n = (int64(i1) - int64(i0) + int64(st) - 1) / int64(st)
	} else if st < 0 && i1 < i0 {
		n = (int64(i0) - int64(i1) - int64(st) - 1) / -int64(st)
	}
	if t != nil {
		if err := t.Alloc(int(min(n, math.MaxInt32))); err != nil {
			return nil, err
		}
	}
	if n > 1<<28 {
		return nil, value.Errorf(errkind.Limit, "range() result is too large (%d elements)", n)
	}
	elems := make([]value.Value, 0, n)
	for i, c := int64(0), int64(i0); i < n; i, c = i+1, c+int64(st) {
		elems = append(elems, value.Int(c))
	}
	return value.NewList(elems), nil
}

// extreme implements max() and min().
func extreme(name string, args []value.Value, better value.CmpOp) (value.Value, error) {
	var items []value.Value
	switch {
	case len(args) > 1:
		items = args
	case len(args) == 1:
		switch x := args[0].(type) {
		case value.Str:
			if x == "" {
				return nil, evalErr("arg is an empty str")
			}
		case *value.List:
			if len(x.Elems) == 0 {
				return nil, evalErr("arg is an empty list")
			}
		case *value.Dict, *value.Schema:
			d, _ := value.AsDict(x)
			if d.Len() == 0 {
				return nil, evalErr("arg is an empty dict")
			}
		default:
			return nil, evalErr("%s object is not iterable", x.Type())
		}
		items, _ = Iterate(args[0])
	default:
		return nil, evalErr("%s() takes exactly one argument (0 given)", name)
	}
	result := items[0]
	for _, v := range items {
		ok, err := value.Compare(better, v, result)
		if err != nil {
			return nil, err
		}
		if ok {
			result = v
		}
	}
	return result, nil
}

func maxOf(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
	return extreme("max", args, value.Gt)
}

func minOf(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
	return extreme("min", args, value.Lt)
}

var _ = strings.TrimSpace
