package modules

import (
	"math"

	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

// numArg returns the argument as int (isInt) or float; ok is false for other types.
func numArg(args []value.Value, kwargs []value.KV, i int, name string) (f float64, n int64, isInt, ok bool) {
	v, found := arg(args, kwargs, i, name)
	if !found {
		return 0, 0, false, false
	}
	switch x := v.(type) {
	case value.Int:
		return float64(x), int64(x), true, true
	case value.Float:
		return float64(x), 0, false, true
	}
	return 0, 0, false, false
}

func init() {
	m := newModule("math")
	unary := func(name string, onInt func(int64) value.Value, onFloat func(float64) value.Value) {
		def(m, name, func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
			f, n, isInt, ok := numArg(args, kwargs, 0, "x")
			if !ok {
				if v, found := arg(args, kwargs, 0, "x"); found && name == "isinf" {
					if _, isBool := v.(value.Bool); isBool {
						return value.False, nil
					}
				}
				return nil, evalErr("%s() takes exactly one argument (0 given)", name)
			}
			if isInt {
				return onInt(n), nil
			}
			return onFloat(f), nil
		})
	}
	fl := func(g func(float64) float64) (func(int64) value.Value, func(float64) value.Value) {
		return func(n int64) value.Value { return value.Float(g(float64(n))) },
			func(f float64) value.Value { return value.Float(g(f)) }
	}
	unary("ceil", func(n int64) value.Value { return value.Int(n) }, func(f float64) value.Value { return value.Int(value.SaturatingInt(math.Ceil(f))) })
	unary("floor", func(n int64) value.Value { return value.Int(n) }, func(f float64) value.Value { return value.Int(value.SaturatingInt(math.Floor(f))) })
	unary("isfinite", func(int64) value.Value { return value.True }, func(f float64) value.Value { return value.Bool(!math.IsInf(f, 0) && !math.IsNaN(f)) })
	unary("isinf", func(int64) value.Value { return value.False }, func(f float64) value.Value { return value.Bool(math.IsInf(f, 0)) })
	unary("isnan", func(int64) value.Value { return value.False }, func(f float64) value.Value { return value.Bool(math.IsNaN(f)) })
	unary("modf", func(n int64) value.Value { return value.NewList([]value.Value{value.Float(0), value.Float(n)}) },
		func(f float64) value.Value {
			switch {
			case math.IsInf(f, 0):
				return value.NewList([]value.Value{value.Float(math.Copysign(0, f)), value.Float(f)})
			case math.IsNaN(f):
				return value.NewList([]value.Value{value.Float(f), value.Float(f)})
			}
			ip, frac := math.Modf(f)
			return value.NewList([]value.Value{value.Float(frac), value.Float(ip)})
		})
	i, f := fl(value.LibmExp)
	unary("exp", i, f)
	i, f = fl(value.LibmExpm1)
	unary("expm1", i, f)
	// the runtime computes ln(1 + (x + 1)) here; keep its results
	i, f = fl(func(x float64) float64 { return math.Log1p(x + 1) })
	unary("log1p", i, f)
	unary("log2", func(n int64) value.Value { return value.Int(value.SaturatingInt(value.LibmLog2(float64(n)))) }, func(x float64) value.Value { return value.Float(value.LibmLog2(x)) })
	i, f = fl(value.LibmLog10)
	unary("log10", i, f)
	i, f = fl(math.Sqrt)
	unary("sqrt", i, f)
	def(m, "factorial", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		fv, n, isInt, ok := numArg(args, kwargs, 0, "x")
		fact := func(n int64) (int64, error) {
			if n >= 21 {
				return 0, evalErr("factorial() result overflow")
			}
			r := int64(1)
			for k := int64(2); k <= n; k++ {
				r *= k
			}
			return r, nil
		}
		switch {
		case ok && isInt && n >= 0:
			r, err := fact(n)
			if err != nil {
				return nil, err
			}
			return value.Int(r), nil
		case ok && !isInt && fv >= 0 && float64(int64(fv)) == fv:
			r, err := fact(int64(fv))
			if err != nil {
				return nil, err
			}
			return value.Float(r), nil
		case len(args) > 0:
			return nil, evalErr("factorial() only accepts integral values")
		}
		return nil, evalErr("factorial() takes exactly one argument (0 given)")
	})
	def(m, "gcd", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		_, a, ai, ok1 := numArg(args, kwargs, 0, "a")
		_, b, bi, ok2 := numArg(args, kwargs, 1, "b")
		if !ok1 || !ok2 || !ai || !bi {
			return nil, evalErr("gcd() takes exactly two arguments (%d given)", len(args))
		}
		if a < 0 {
			a = -a
		}
		if b < 0 {
			b = -b
		}
		for b != 0 {
			a, b = b, a%b
		}
		return value.Int(a), nil
	})
	def(m, "log", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		x, n, isInt, ok := numArg(args, kwargs, 0, "x")
		if !ok {
			return nil, evalErr("log() takes exactly one argument (0 given)")
		}
		base := math.E
		// only a float base is honoured, as in the runtime
		if bv, found := arg(args, kwargs, 1, "e"); found {
			if bf, isF := bv.(value.Float); isF {
				base = float64(bf)
			}
		}
		if isInt {
			return value.Int(value.SaturatingInt(value.LibmLog(float64(n)) / value.LibmLog(base))), nil
		}
		return value.Float(value.LibmLog(x) / value.LibmLog(base)), nil
	})
	def(m, "pow", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		x, xn, xInt, ok1 := numArg(args, kwargs, 0, "x")
		y, yn, yInt, ok2 := numArg(args, kwargs, 1, "n")
		if !ok1 || !ok2 {
			return nil, evalErr("pow() takes exactly one argument (0 given)")
		}
		switch {
		case xInt && yInt && yn < 0:
			return value.Float(value.LibmPow(float64(xn), float64(yn))), nil
		case xInt && yInt:
			return value.Binary(nil, value.Pow, value.Int(xn), value.Int(yn))
		case !xInt && yInt:
			return value.Float(powi(x, int32(yn))), nil
		}
		return value.Float(value.LibmPow(x, y)), nil
	})
}

// powi is Rust's f64::powi (compiler-rt's __powidf2): square-and-multiply with a
// rounding at every step, which the engine's math.pow(float, int) uses.
func powi(a float64, b int32) float64 {
	recip := b < 0
	r := 1.0
	for {
		if b&1 != 0 {
			r *= a
		}
		b /= 2
		if b == 0 {
			break
		}
		a *= a
	}
	if recip {
		return 1 / r
	}
	return r
}
