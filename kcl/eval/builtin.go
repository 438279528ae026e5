package eval

import (
	"fmt"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

// evaluatorBuiltins are builtins that need the evaluator's state.
func (in *Interp) evaluatorBuiltins(name string) (value.Value, bool) {
	switch name {
	case "option":
		return value.NewBuiltin("option", in.builtinOption), true
	}
	return nil, false
}

// builtinOption is option(key, type="", required=False, default=None, help="").
func (in *Interp) builtinOption(t *value.Thread, b *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
	var key, typ string
	required := false
	var def value.Value = value.None
	if len(args) > 0 {
		key = args[0].String()
	}
	if len(args) > 1 {
		typ = args[1].String()
	}
	if len(args) > 2 {
		required = args[2].Truth()
	}
	if len(args) > 3 {
		def = args[3]
	}
	for _, kw := range kwargs {
		switch kw.Key {
		case "key":
			key = kw.Value.String()
		case "type":
			typ = kw.Value.String()
		case "required":
			required = kw.Value.Truth()
		case "default":
			def = kw.Value
		}
	}
	v, ok := in.thread.Options[key]
	if !ok || value.IsNoneOrUndefined(v) {
		if required && value.IsNoneOrUndefined(def) {
			return nil, value.Errorf(errkind.Evaluation, "option('%s') must be initialized, try '-D %s=?' argument", key, key)
		}
		v = def
	}
	if typ == "" || value.IsNoneOrUndefined(v) {
		return v, nil
	}
	return convertOption(v, typ)
}

func convertOption(v value.Value, typ string) (value.Value, error) {
	fail := func() (value.Value, error) {
		s := v.String()
		if str, ok := v.(value.Str); ok {
			s = string(str)
		}
		return nil, value.Errorf(errkind.Evaluation, "cannot use '%s' as type '%s'", s, typ)
	}
	switch typ {
	case "bool":
		switch x := v.(type) {
		case value.Bool:
			return x, nil
		case value.Str:
			switch x {
			case "True", "true":
				return value.True, nil
			case "False", "false", "":
				return value.False, nil
			}
		case value.Int:
			return value.Bool(x != 0), nil
		case value.Float:
			return value.Bool(x != 0), nil
		}
		return fail()
	case "int":
		switch x := v.(type) {
		case value.Int:
			return x, nil
		case value.Float:
			return value.Int(int64(x)), nil
		case value.Bool:
			if x {
				return value.Int(1), nil
			}
			return value.Int(0), nil
		case value.Str:
			var i int64
			if _, err := fmt.Sscanf(string(x), "%d", &i); err == nil {
				return value.Int(i), nil
			}
		}
		return fail()
	case "float":
		switch x := v.(type) {
		case value.Float:
			return x, nil
		case value.Int:
			return value.Float(float64(x)), nil
		case value.Str:
			var f float64
			if _, err := fmt.Sscanf(string(x), "%g", &f); err == nil {
				return value.Float(f), nil
			}
		}
		return fail()
	case "str":
		if s, ok := v.(value.Str); ok {
			return s, nil
		}
		return value.Str(v.String()), nil
	case "list":
		if l, ok := v.(*value.List); ok {
			return l, nil
		}
		return fail()
	case "dict":
		if d, ok := v.(*value.Dict); ok {
			return d, nil
		}
		return fail()
	}
	return v, nil
}
