package builtins

import (
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

// print writes its arguments separated by spaces and followed by end ("\n").
func print_(t *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(a.String())
	}
	if end, ok := kwarg(kwargs, "end"); ok {
		b.WriteString(end.String())
	} else {
		b.WriteByte('\n')
	}
	if t != nil && t.Print != nil {
		t.Print(b.String())
	}
	return value.None, nil
}

// option reads a top-level argument (-D / -Y); type converts it.
func option(t *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
	keyV, ok := arg(args, kwargs, 0, "key")
	key := ""
	if ok {
		key = asStr(keyV)
		if t != nil && t.OptionsUsed != nil {
			t.OptionsUsed[key] = true
		}
	}
	typ := ""
	if tv, ok := arg(args, kwargs, 1, "type"); ok {
		if s, ok := tv.(value.Str); ok {
			typ = string(s)
		}
	}
	if ok {
		if t != nil {
			if v, found := t.Options[key]; found {
				return convertOption(v, typ)
			}
		}
		if def, found := arg(args, kwargs, 3, "default"); found {
			return convertOption(def, typ)
		}
	}
	if req, found := arg(args, kwargs, 2, "required"); found && truthy(req) {
		name := key
		if !ok {
			name = "?"
		}
		return nil, evalErr("option('%s') must be initialized, try '-D %s=?' argument", name, name)
	}
	return value.None, nil
}

func convertOption(v value.Value, typ string) (value.Value, error) {
	cannot := func() (value.Value, error) {
		return nil, evalErr("cannot use '%s' as type '%s'", v.String(), typ)
	}
	switch typ {
	case "":
		return v, nil
	case "bool":
		switch x := v.(type) {
		case value.Bool:
			return x, nil
		case value.Int:
			return value.Bool(x != 0), nil
		case value.Float:
			return value.Bool(x != 0), nil
		case value.Str:
			return value.Bool(x == "True" || x == "true"), nil
		}
		return value.Undefined, nil
	case "int":
		switch x := v.(type) {
		case value.Bool, value.Int, value.Float:
			n, _ := asInt(x)
			return value.Int(n), nil
		case value.Str:
			n, err := parseRustInt(string(x), 10)
			if err != nil {
				return cannot()
			}
			return value.Int(n), nil
		}
		return cannot()
	case "float":
		switch x := v.(type) {
		case value.Bool:
			if x {
				return value.Float(1), nil
			}
			return value.Float(0), nil
		case value.Int:
			return value.Float(x), nil
		case value.Float:
			return x, nil
		case value.Str:
			f, err := parseRustFloat(string(x))
			if err != nil {
				return value.Float(0), nil
			}
			return value.Float(f), nil
		}
		return cannot()
	case "str":
		switch x := v.(type) {
		case value.Bool:
			if x {
				return value.Str("true"), nil
			}
			return value.Str("false"), nil
		case value.Float:
			// Rust's Display for f64 has no ".0" on whole numbers
			return value.Str(strings.TrimSuffix(x.String(), ".0")), nil
		case value.Int, value.Str:
			return value.Str(x.String()), nil
		}
		return cannot()
	case "list":
		if _, ok := v.(*value.List); ok {
			return v, nil
		}
		return cannot()
	case "dict":
		if _, ok := v.(*value.Dict); ok {
			return v, nil
		}
		return cannot()
	}
	return nil, evalErr("unknown type '%s'", typ)
}
