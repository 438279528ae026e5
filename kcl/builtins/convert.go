package builtins

import (
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

var errSyntax = errors.New("invalid number")

// parseRustInt parses like Rust's i64::from_str_radix: an optional sign then
// digits, no underscores or prefixes.
func parseRustInt(s string, base int) (int64, error) {
	body := strings.TrimPrefix(strings.TrimPrefix(s, "+"), "-")
	if body == "" || strings.ContainsAny(body, "_+-") {
		return 0, errSyntax
	}
	if strings.HasPrefix(s, "+-") {
		return 0, errSyntax
	}
	return strconv.ParseInt(strings.TrimPrefix(s, "+"), base, 64)
}

// parseRustFloat parses like Rust's f64::from_str.
func parseRustFloat(s string) (float64, error) {
	l := strings.ToLower(strings.TrimLeft(s, "+-"))
	switch l {
	case "inf", "infinity", "nan":
	default:
		if l == "" || strings.ContainsAny(l, "_xp") || strings.Count(s, "+")+strings.Count(s, "-") > 2 {
			return 0, errSyntax
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return f, nil
		}
		return 0, err
	}
	return f, nil
}

var quantityExponents = map[byte]int{'n': -3, 'u': -2, 'm': -1, 'k': 1, 'K': 1, 'M': 2, 'G': 3, 'T': 4, 'P': 5}

// toQuantity is the runtime's to_quantity: "2Ki" -> 2048, "1k" -> 1000.
func toQuantity(s string) (int64, error) {
	number, suffix := s, ""
	n := len(s)
	if n >= 2 && s[n-1] == 'i' {
		if _, ok := quantityExponents[s[n-2]]; ok {
			number, suffix = s[:n-2], s[n-2:]
		}
	} else if n >= 1 {
		if _, ok := quantityExponents[s[n-1]]; ok {
			number, suffix = s[:n-1], s[n-1:]
		}
	}
	if number == "" {
		return 0, evalErr("number can't be empty")
	}
	v, err := parseRustInt(number, 10)
	if err != nil {
		return 0, unwrapParseError(number, err)
	}
	if suffix == "" {
		return v, nil
	}
	base := int64(1000)
	if strings.HasSuffix(suffix, "i") {
		base = 1024
	}
	exp := quantityExponents[suffix[0]]
	if exp < 0 {
		return 0, nil // i64::pow with a negative exponent cast to u32 wraps to 0
	}
	r := big.NewInt(v)
	r.Mul(r, new(big.Int).Exp(big.NewInt(base), big.NewInt(int64(exp)), nil))
	return r.Int64(), nil
}

// unwrapParseError is the text of Rust's `.parse::<i64>().unwrap()` failure.
func unwrapParseError(text string, err error) *value.Error {
	kind := "InvalidDigit"
	var ne *strconv.NumError
	if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
		kind = "PosOverflow"
		if strings.HasPrefix(text, "-") {
			kind = "NegOverflow"
		}
	}
	return evalErr("called `Result::unwrap()` on an `Err` value: ParseIntError { kind: %s }", kind)
}

func toInt(t *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
	x, ok := arg(args, kwargs, 0, "number")
	if !ok {
		return nil, evalErr("int() takes exactly one argument (0 given)")
	}
	switch v := x.(type) {
	case value.Int:
		return v, nil
	case value.Float:
		return value.Int(value.SaturatingInt(float64(v))), nil
	case value.Unit:
		if t != nil && t.Debug {
			exact := new(big.Int).Mul(big.NewInt(v.Raw), big.NewInt(unitMultiplier(v.Suffix)))
			if t.StrictRangeCheck && (!exact.IsInt64() || exact.Int64() != int64(int32(exact.Int64()))) {
				return nil, value.Errorf(errkind.Evaluation, "%s: A 32 bit integer overflow", exact)
			}
			if !exact.IsInt64() {
				return nil, value.Errorf(errkind.Evaluation, "%s: A 64 bit integer overflow", exact)
			}
		}
		return value.Int(value.SaturatingInt(v.Real)), nil
	case value.Bool:
		n, _ := asInt(v)
		return value.Int(n), nil
	case value.Str:
		base := int64(10)
		if b, ok := optArg(args, kwargs, 1, "base"); ok {
			base, _ = asInt(b)
		}
		s := string(v)
		// 0.12.1 reads the string as a quantity ("1Ki", "17") first and
		// parses its decimal digits in the base after: int("17", 8) is 15,
		// int("1Ki", 16) is 0x1024, int("ff", 16) fails like int("ff").
		n, err := toQuantity(s)
		if err == nil && base != 10 {
			if base < 2 || base > 36 {
				return nil, evalErr("from_ascii_radix: radix must lie in the range `[2, 36]` - found %d", base)
			}
			n, err = parseRustInt(strconv.FormatInt(n, 10), int(base))
		}
		if err != nil {
			var ke *value.Error
			if errors.As(err, &ke) {
				return nil, ke
			}
			return nil, evalErr("invalid literal for int() with base %d: '%s'", base, s)
		}
		return value.Int(n), nil
	}
	return nil, evalErr("int() argument must be a string or a number, not '%s'", x.Type())
}

func toFloat(t *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
	x, ok := arg(args, kwargs, 0, "number")
	if !ok {
		return nil, evalErr("float() takes exactly one argument (0 given)")
	}
	check := func(f float64) (value.Value, error) {
		if t != nil && t.StrictRangeCheck && math.IsInf(float64(float32(f)), 0) && !math.IsInf(f, 0) {
			return nil, value.Errorf(errkind.Evaluation, "inf: A 32-bit floating point number overflow")
		}
		if (t == nil || t.Debug || !t.StrictRangeCheck) && math.IsInf(f, 0) {
			return nil, value.Errorf(errkind.Evaluation, "inf: A 64-bit floating point number overflow")
		}
		return value.Float(f), nil
	}
	switch v := x.(type) {
	case value.Int:
		return value.Float(v), nil
	case value.Float:
		return check(float64(v))
	case value.Unit:
		return value.Float(v.Real), nil
	case value.Bool:
		n, _ := asInt(v)
		return value.Float(n), nil
	case value.Str:
		f, err := parseRustFloat(string(v))
		if err != nil {
			return nil, evalErr("invalid literal for float() with base 10: '%s'", string(v))
		}
		return check(f)
	}
	return nil, evalErr("invalid literal for float() with base 10: '%s'", x.String())
}

func toBool(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
	x, ok := arg(args, kwargs, 0, "x")
	if !ok {
		return value.False, nil
	}
	return value.Bool(x.Truth()), nil
}

func toStr(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
	x, ok := arg(args, kwargs, 0, "x")
	if !ok {
		return value.Str(""), nil
	}
	return value.Str(x.String()), nil
}

func toList(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
	// 0.12.1's list reads its argument by position only: list(x = v) is [].
	x, ok := arg(args, nil, 0, "")
	if !ok {
		return value.NewList(nil), nil
	}
	elems, err := Iterate(x)
	if err != nil {
		return nil, err
	}
	return value.NewList(append([]value.Value(nil), elems...)), nil
}

// dictFrom builds a dict from a dict/schema (its entries) or an iterable of pairs.
func dictFrom(t *value.Thread, x value.Value) (*value.Dict, error) {
	if d, ok := value.AsDict(x); ok {
		out := value.NewDict(d.Len())
		for _, e := range d.Entries() {
			out.Set(e.Key, e.Value)
		}
		return out, nil
	}
	elems, err := Iterate(x)
	if err != nil {
		return nil, err
	}
	out := value.NewDict(len(elems))
	for i, e := range elems {
		pair, err := Iterate(e)
		if err != nil {
			return nil, err
		}
		if len(pair) != 2 {
			return nil, evalErr("dictionary update sequence element #%d has length %d; 2 is required", i, len(pair))
		}
		// 0.12.1 reads each pair's key and value from the outer sequence, not
		// from the pair (builtin::dict iterates the pair with the sequence as
		// host): every pair sets str(x[0]) to x[1], so dict([["a", 1], ["b",
		// 2]]) is {"[a, 1]": ["b", 2]} and a one-pair list fails.
		if len(elems) < 2 {
			return nil, evalErr("called `Option::unwrap()` on a `None` value")
		}
		out.Set(elems[0].String(), elems[1])
	}
	return out, nil
}

func toDict(t *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
	out := value.NewDict(len(kwargs))
	// 0.12.1's dict reads its argument as the keyword x first, then by
	// position, and then adds every keyword: dict(x = {a = 1}) is
	// {a = 1, x = {a = 1}}.
	x, ok := arg(nil, kwargs, 0, "x")
	if !ok {
		x, ok = arg(args, nil, 0, "")
	}
	if ok {
		d, err := dictFrom(t, x)
		if err != nil {
			return nil, err
		}
		if _, err := value.Union(t, out, d, value.UnionOptions{}); err != nil {
			return nil, err
		}
	}
	for _, kv := range kwargs {
		if _, err := value.Union(t, out, value.DictOf(kv.Key, kv.Value), value.UnionOptions{}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// unitMultiplier is the integer factor of a suffix (1 for n, u, m).
func unitMultiplier(suffix string) int64 {
	base := int64(1000)
	if strings.HasSuffix(suffix, "i") {
		base = 1024
	}
	if suffix == "" || quantityExponents[suffix[0]] <= 0 {
		return 1
	}
	exp := quantityExponents[suffix[0]]
	m := int64(1)
	for range exp {
		m *= base
	}
	return m
}

// TypeOf is typeof(x, full_name).
func TypeOf(x value.Value, fullName bool) string {
	switch v := x.(type) {
	case *value.Schema:
		if fullName {
			pkg := strings.TrimPrefix(v.PkgPath, "@")
			if pkg != value.MainPkg && pkg != "" {
				return pkg + "." + v.Name
			}
			return v.Name
		}
	case value.NoneType:
		return "None"
	}
	return x.Type()
}

func typeOf(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
	x, ok := arg(args, kwargs, 0, "x")
	if !ok {
		return nil, evalErr("typeof() missing 1 required positional argument: 'x'")
	}
	full, _ := arg(args, kwargs, 1, "full_name")
	return value.Str(TypeOf(x, truthy(full))), nil
}
