package value

import (
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
)

// Equal is KCL's ==: numbers compare across int and float, containers compare
// deeply (dicts and schemas ignore key order), otherwise types must match.
func Equal(a, b Value) bool { return equal(a, b, 0) }

func equal(a, b Value, depth int) bool {
	if depth > MaxNesting {
		return false
	}
	switch a := a.(type) {
	case Int:
		switch b := b.(type) {
		case Int:
			return a == b
		case Float:
			return float64(a) == float64(b)
		}
		return false
	case Float:
		switch b := b.(type) {
		case Int:
			return float64(a) == float64(b)
		case Float:
			return a == b
		}
		return false
	case NoneType:
		_, ok := b.(NoneType)
		return ok
	case UndefinedType:
		_, ok := b.(UndefinedType)
		return ok
	case Bool:
		b, ok := b.(Bool)
		return ok && a == b
	case Str:
		b, ok := b.(Str)
		return ok && a == b
	case *List:
		b, ok := b.(*List)
		if !ok || len(a.Elems) != len(b.Elems) {
			return false
		}
		if a == b {
			return true
		}
		for i := range a.Elems {
			if !equal(a.Elems[i], b.Elems[i], depth+1) {
				return false
			}
		}
		return true
	case *Dict:
		b, ok := b.(*Dict)
		return ok && dictEqual(a, b, depth)
	case *Schema:
		b, ok := b.(*Schema)
		return ok && dictEqual(a.Config, b.Config, depth)
	case *Builtin, *Function:
		return a == b
	case Unit:
		return false // the runtime never equates number multipliers
	case *Module:
		return a == b
	}
	return false
}

func dictEqual(a, b *Dict, depth int) bool {
	if a.Len() != b.Len() {
		return false
	}
	if a == b {
		return true
	}
	for _, e := range a.entries {
		v, ok := b.Get(e.Key)
		if !ok || !equal(e.Value, v, depth+1) {
			return false
		}
	}
	return true
}

func notSupported(op string, a, b Value) *Error {
	return Errorf(errkind.Evaluation, "'%s' not supported between instances of '%s' and '%s'", op, a.Type(), b.Type())
}

// order compares a and b for <, <=, >, >=: -1, 0 or +1. ok is false when the
// types cannot be ordered.
func order(a, b Value) (c int, ok bool) {
	num := func(v Value) (float64, bool, bool) { // value, isNumber, isInt
		switch v := v.(type) {
		case Int:
			return float64(v), true, true
		case Float:
			return float64(v), true, false
		case Bool:
			if v {
				return 1, true, true
			}
			return 0, true, true
		}
		return 0, false, false
	}
	if ai, ok := a.(Int); ok {
		if bi, ok := b.(Int); ok {
			return cmp3(int64(ai), int64(bi)), true
		}
	}
	if x, ok1, _ := num(a); ok1 {
		if y, ok2, _ := num(b); ok2 {
			switch {
			case x < y:
				return -1, true
			case x > y:
				return 1, true
			}
			return 0, true
		}
		return 0, false
	}
	switch a := a.(type) {
	case Str:
		if b, ok := b.(Str); ok {
			return strings.Compare(string(a), string(b)), true
		}
	case *List:
		if b, ok := b.(*List); ok {
			n := min(len(a.Elems), len(b.Elems))
			for i := 0; i < n; i++ {
				if !Equal(a.Elems[i], b.Elems[i]) {
					return order(a.Elems[i], b.Elems[i])
				}
			}
			return cmp3(int64(len(a.Elems)), int64(len(b.Elems))), true
		}
	}
	return 0, false
}

func cmp3(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Compare applies a comparison operator.
func Compare(op CmpOp, a, b Value) (bool, error) {
	switch op {
	case Eq, Is:
		return Equal(a, b), nil
	case NotEq, IsNot:
		return !Equal(a, b), nil
	case In:
		return Contains(b, a)
	case NotIn:
		ok, err := Contains(b, a)
		return !ok, err
	}
	c, ok := order(a, b)
	if !ok {
		return false, notSupported(op.String(), a, b)
	}
	switch op {
	case Lt:
		return c < 0, nil
	case LtE:
		return c <= 0, nil
	case Gt:
		return c > 0, nil
	case GtE:
		return c >= 0, nil
	}
	return false, Errorf(errkind.Evaluation, "unknown comparison %v", op)
}

// Less is the order sorted() and max()/min() use.
func Less(a, b Value) (bool, error) { return Compare(Lt, a, b) }

// Contains is `x in container`.
func Contains(container, x Value) (bool, error) {
	switch c := container.(type) {
	case Str:
		s, ok := x.(Str)
		return ok && strings.Contains(string(c), string(s)), nil
	case *List:
		for _, e := range c.Elems {
			if Equal(x, e) {
				return true, nil
			}
		}
		return false, nil
	case *Dict:
		s, ok := x.(Str)
		return ok && c.Has(string(s)), nil
	case *Schema:
		s, ok := x.(Str)
		return ok && c.Config.Has(string(s)), nil
	}
	return false, Errorf(errkind.Evaluation, "TypeError: argument of type '%s' is not iterable", container.Type())
}
