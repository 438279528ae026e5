package value

import (
	"errors"
	"math"
	"strconv"
)

// The official engine moves values through JSON text (serde_json) before it prints
// YAML and when it decodes JSON or YAML. serde_json, as the engine builds it,
// reads floats with a fast method that is not correctly rounded: the digits are
// gathered into a u64 and scaled by one power of ten. Reading numbers the same way
// keeps every float the engine prints identical, to the last digit.

// pow10 is serde_json's POW10 table: correctly rounded 1e0 .. 1e308.
var pow10 = func() [309]float64 {
	var t [309]float64
	for i := range t {
		t[i], _ = strconv.ParseFloat("1e"+strconv.Itoa(i), 64)
	}
	return t
}()

var errJSONNumber = errors.New("invalid number")

// ParseJSONNumber reads a JSON number as serde_json does: integers that fit in
// 64 bits stay Int (a u64 above the i64 range becomes Float), everything else is
// a Float read with serde_json's method.
func ParseJSONNumber(text string) (Value, error) {
	s := text
	positive := true
	if s != "" && s[0] == '-' {
		positive = false
		s = s[1:]
	}
	if s == "" || s[0] < '0' || s[0] > '9' {
		return nil, errJSONNumber
	}
	var significand uint64
	i := 0
	if s[0] == '0' {
		i = 1
		if i < len(s) && s[i] >= '0' && s[i] <= '9' {
			return nil, errJSONNumber
		}
	} else {
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			d := uint64(s[i] - '0')
			if overflowU64(significand, d) {
				// parse_long_integer: further integer digits only raise the exponent
				exp := 0
				for i < len(s) && s[i] >= '0' && s[i] <= '9' {
					i++
					exp++
				}
				return jsonFloatTail(s[i:], positive, significand, exp)
			}
			significand = significand*10 + d
			i++
		}
	}
	if i == len(s) {
		if positive {
			if significand > math.MaxInt64 {
				return Float(float64(significand)), nil
			}
			return Int(int64(significand)), nil
		}
		if significand == 0 {
			return Float(math.Copysign(0, -1)), nil
		}
		if significand > 1<<63 {
			return Float(-float64(significand)), nil
		}
		return Int(-int64(significand)), nil
	}
	return jsonFloatTail(s[i:], positive, significand, 0)
}

func overflowU64(a, d uint64) bool {
	return a >= math.MaxUint64/10 && (a > math.MaxUint64/10 || d > math.MaxUint64%10)
}

// jsonFloatTail reads an optional fraction and exponent after the integer digits.
func jsonFloatTail(s string, positive bool, significand uint64, exponent int) (Value, error) {
	i := 0
	if i < len(s) && s[i] == '.' {
		i++
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			d := uint64(s[i] - '0')
			if overflowU64(significand, d) {
				for i < len(s) && s[i] >= '0' && s[i] <= '9' {
					i++ // parse_decimal_overflow drops the rest
				}
				break
			}
			significand = significand*10 + d
			exponent--
			i++
		}
		if i == start {
			return nil, errJSONNumber
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		positiveExp := true
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			positiveExp = s[i] == '+'
			i++
		}
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			return nil, errJSONNumber
		}
		exp := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			d := int(s[i] - '0')
			if exp >= math.MaxInt32/10 && (exp > math.MaxInt32/10 || d > math.MaxInt32%10) {
				if !positiveExp || significand == 0 {
					if positive {
						return Float(0), nil
					}
					return Float(math.Copysign(0, -1)), nil
				}
				return nil, errors.New("number out of range")
			}
			exp = exp*10 + d
			i++
		}
		if positiveExp {
			exponent += exp
		} else {
			exponent -= exp
		}
	}
	if i != len(s) {
		return nil, errJSONNumber
	}
	f, err := floatFromParts(positive, significand, exponent)
	if err != nil {
		return nil, err
	}
	return Float(f), nil
}

// floatFromParts is serde_json's f64_from_parts (without float_roundtrip).
func floatFromParts(positive bool, significand uint64, exponent int) (float64, error) {
	f := float64(significand)
	for {
		abs := exponent
		if abs < 0 {
			abs = -abs
		}
		if abs < len(pow10) {
			if exponent >= 0 {
				f *= pow10[abs]
				if math.IsInf(f, 0) {
					return 0, errors.New("number out of range")
				}
			} else {
				f /= pow10[abs]
			}
			break
		}
		if f == 0 {
			break
		}
		if exponent >= 0 {
			return 0, errors.New("number out of range")
		}
		f /= 1e308
		exponent += 308
	}
	if !positive {
		f = -f
	}
	return f, nil
}

// EngineFloat is f after the round trip through JSON text the engine makes
// before printing YAML (see ParseJSONNumber).
func EngineFloat(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) || f == 0 {
		return f
	}
	v, err := ParseJSONNumber(RyuFloat(f))
	if err != nil {
		return f
	}
	switch x := v.(type) {
	case Float:
		return float64(x)
	case Int:
		return float64(x)
	}
	return f
}
