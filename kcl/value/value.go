// Package value holds the run-time values of the KCL engine: scalars, the
// insertion-ordered Dict with KCL's per-key operation metadata, lists, schema
// instances, callables, and the Thread that carries one run's context.
//
// Containers (List, Dict, Schema) are pointers and mutable while a program builds
// them, as in the official runtime where values are shared references; Freeze marks
// them read-only once the evaluator publishes them.
package value

import (
	"math"
	"strconv"
	"strings"
)

// Value is any KCL run-time value.
type Value interface {
	// Type is the name typeof() prints: "int", "str", "dict", a schema's name...
	Type() string
	// Truth is the value's truthiness in if/and/or/not.
	Truth() bool
	// String is the text str() gives.
	String() string
}

// Type names as the official runtime spells them.
const (
	TypeNone      = "NoneType"
	TypeUndefined = "UndefinedType"
	TypeBool      = "bool"
	TypeInt       = "int"
	TypeFloat     = "float"
	TypeStr       = "str"
	TypeList      = "list"
	TypeDict      = "dict"
	TypeFunction  = "function"
	TypeType      = "type"
	TypeModule    = "module"
	TypeUnit      = "number_multiplier"
)

// NoneType is the type of None.
type NoneType struct{}

// None is KCL's None (printed as null).
var None Value = NoneType{}

func (NoneType) Type() string   { return TypeNone }
func (NoneType) Truth() bool    { return false }
func (NoneType) String() string { return "None" }

// UndefinedType is the type of Undefined: an attribute that was never set. It is
// dropped from output.
type UndefinedType struct{}

// Undefined is KCL's Undefined.
var Undefined Value = UndefinedType{}

func (UndefinedType) Type() string   { return TypeUndefined }
func (UndefinedType) Truth() bool    { return false }
func (UndefinedType) String() string { return "Undefined" }

// Bool is True or False.
type Bool bool

// The two booleans.
const (
	True  Bool = true
	False Bool = false
)

func (b Bool) Type() string { return TypeBool }
func (b Bool) Truth() bool  { return bool(b) }
func (b Bool) String() string {
	if b {
		return "True"
	}
	return "False"
}

// Int is a 64-bit integer; arithmetic reports overflow instead of wrapping.
type Int int64

func (i Int) Type() string   { return TypeInt }
func (i Int) Truth() bool    { return i != 0 }
func (i Int) String() string { return strconv.FormatInt(int64(i), 10) }

// Float is a 64-bit float.
type Float float64

func (f Float) Type() string { return TypeFloat }
func (f Float) Truth() bool  { return f != 0 }

// String prints like the official runtime: shortest round-trip digits, never an
// exponent, and always a decimal point (1.0, 1e20 -> 100000000000000000000.0).
func (f Float) String() string { return FormatFloat(float64(f)) }

// FormatFloat is the text str() gives for a float. The runtime appends ".0"
// to any text without a '.', Rust's "inf" and "NaN" too.
func FormatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN.0"
	case math.IsInf(f, 1):
		return "inf.0"
	case math.IsInf(f, -1):
		return "-inf.0"
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// Str is an immutable UTF-8 string.
type Str string

func (s Str) Type() string   { return TypeStr }
func (s Str) Truth() bool    { return s != "" }
func (s Str) String() string { return string(s) }

// Unit is a number with a multiplier suffix such as 1Gi or 500m: Real is the
// scaled value, Raw and Suffix the literal as written.
type Unit struct {
	Real   float64
	Raw    int64
	Suffix string
}

func (u Unit) Type() string   { return TypeUnit + "(" + u.String() + ")" }
func (u Unit) Truth() bool    { return u.Real != 0 }
func (u Unit) String() string { return strconv.FormatInt(u.Raw, 10) + u.Suffix }

// KV is a keyword argument.
type KV struct {
	Key   string
	Value Value
}

// IsNoneOrUndefined reports whether v is None or Undefined (KCL's "nullish").
func IsNoneOrUndefined(v Value) bool {
	switch v.(type) {
	case nil, NoneType, UndefinedType:
		return true
	}
	return false
}

// IsUndefined reports whether v is Undefined.
func IsUndefined(v Value) bool {
	_, ok := v.(UndefinedType)
	return ok || v == nil
}
