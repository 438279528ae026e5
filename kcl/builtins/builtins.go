// Package builtins holds KCL's builtin functions (print, len, sorted, ...) and the
// methods of strings.
package builtins

import (
	"fmt"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

// Universe maps each builtin name to its value.
var Universe = map[string]value.Value{}

func register(name string, fn value.BuiltinFunc) {
	Universe[name] = value.NewBuiltin(name, fn)
}

func init() {
	register("print", print_)
	register("option", option)
	register("len", length)
	register("any_true", anyTrue)
	register("all_true", allTrue)
	register("isunique", isUnique)
	register("isnullish", isNullish)
	register("sorted", sorted)
	register("int", toInt)
	register("float", toFloat)
	register("bool", toBool)
	register("str", toStr)
	register("list", toList)
	register("dict", toDict)
	register("typeof", typeOf)
	register("max", maxOf)
	register("min", minOf)
	register("multiplyof", multiplyOf)
	register("abs", abs)
	register("hex", hex)
	register("oct", oct)
	register("bin", bin)
	register("ord", ord)
	register("sum", sum)
	register("pow", pow)
	register("round", round)
	register("zip", zip)
	register("range", rangeOf)
}

func evalErr(format string, args ...any) *value.Error {
	return value.Errorf(errkind.Evaluation, format, args...)
}

func typeErr(format string, args ...any) *value.Error {
	return value.Errorf(errkind.Evaluation, format, args...)
}

// arg returns the i-th positional argument or the keyword argument name.
func arg(args []value.Value, kwargs []value.KV, i int, name string) (value.Value, bool) {
	if i >= 0 && i < len(args) {
		return args[i], true
	}
	if name != "" {
		for _, kv := range kwargs {
			if kv.Key == name {
				return kv.Value, true
			}
		}
	}
	return nil, false
}

// optArg is arg treating None and Undefined as absent.
func optArg(args []value.Value, kwargs []value.KV, i int, name string) (value.Value, bool) {
	v, ok := arg(args, kwargs, i, name)
	if !ok || value.IsNoneOrUndefined(v) {
		return nil, false
	}
	return v, true
}

func kwarg(kwargs []value.KV, name string) (value.Value, bool) {
	return arg(nil, kwargs, -1, name)
}

// Iterate returns the elements a for loop or list() sees: characters of a
// string, elements of a list, keys of a dict or schema.
func Iterate(v value.Value) ([]value.Value, error) {
	switch x := v.(type) {
	case value.Str:
		out := make([]value.Value, 0, len(x))
		for _, r := range string(x) {
			out = append(out, value.Str(string(r)))
		}
		return out, nil
	case *value.List:
		return x.Elems, nil
	case *value.Dict, *value.Schema:
		d, _ := value.AsDict(x)
		out := make([]value.Value, 0, d.Len())
		for _, e := range d.Entries() {
			out = append(out, value.Str(e.Key))
		}
		return out, nil
	}
	return nil, evalErr("'%s' object is not iterable", v.Type())
}

func truthy(v value.Value) bool { return v != nil && v.Truth() }

func asInt(v value.Value) (int64, bool) {
	switch x := v.(type) {
	case value.Int:
		return int64(x), true
	case value.Bool:
		if x {
			return 1, true
		}
		return 0, true
	case value.Float:
		return int64(x), true
	}
	return 0, false
}

func asStr(v value.Value) string {
	if s, ok := v.(value.Str); ok {
		return string(s)
	}
	return fmt.Sprint(v)
}
