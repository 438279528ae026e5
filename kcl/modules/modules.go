// Package modules holds KCL's system modules (yaml, json, base64, base32, regex,
// math, units, net, file, datetime, crypto, runtime, template, collection,
// manifests). Each module is a *value.Module of builtins; modules that touch the
// outside world only see what the Thread allows (the program root for file; no
// environment, no network, no writes).
package modules

import (
	"fmt"
	"sort"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

var registry = map[string]*value.Module{}

func newModule(name string) *value.Module {
	m := &value.Module{Name: name, Members: map[string]value.Value{}}
	registry[name] = m
	return m
}

func def(m *value.Module, name string, fn value.BuiltinFunc) {
	m.Members[name] = value.NewBuiltin(name, fn)
}

// Load returns the system module name (e.g. "yaml"), or false if there is none.
// Modules are shared and immutable.
func Load(name string) (*value.Module, bool) {
	m, ok := registry[name]
	return m, ok
}

// IsSystem reports whether name is a system module.
func IsSystem(name string) bool {
	_, ok := registry[name]
	return ok
}

// Names lists the system modules.
func Names() []string {
	out := make([]string, 0, len(registry))
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func evalErr(format string, args ...any) *value.Error {
	return value.Errorf(errkind.Evaluation, format, args...)
}

// arg returns the i-th positional argument or the keyword argument name.
func arg(args []value.Value, kwargs []value.KV, i int, name string) (value.Value, bool) {
	if i >= 0 && i < len(args) {
		return args[i], true
	}
	for _, kv := range kwargs {
		if kv.Key == name {
			return kv.Value, true
		}
	}
	return nil, false
}

// strArg is get_call_arg_str: the argument as a string (non-strings print).
func strArg(args []value.Value, kwargs []value.KV, i int, name string) (string, bool) {
	v, ok := arg(args, kwargs, i, name)
	if !ok || value.IsNoneOrUndefined(v) {
		return "", false
	}
	if s, ok := v.(value.Str); ok {
		return string(s), true
	}
	return v.String(), true
}

func boolArg(args []value.Value, kwargs []value.KV, i int, name string) (bool, bool) {
	v, ok := arg(args, kwargs, i, name)
	if !ok || value.IsNoneOrUndefined(v) {
		return false, false
	}
	return v.Truth(), true
}

func intArg(args []value.Value, kwargs []value.KV, i int, name string) (int64, bool) {
	v, ok := arg(args, kwargs, i, name)
	if !ok {
		return 0, false
	}
	switch x := v.(type) {
	case value.Int:
		return int64(x), true
	case value.Bool:
		if x {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

func missing(fn string, names ...string) *value.Error {
	switch len(names) {
	case 1:
		return evalErr("%s() missing 1 required positional argument: '%s'", fn, names[0])
	default:
		return evalErr("%s() missing %d required positional arguments: %s", fn, len(names), quoteList(names))
	}
}

func quoteList(names []string) string {
	s := ""
	for i, n := range names {
		if i > 0 {
			if i == len(names)-1 {
				s += " and "
			} else {
				s += ", "
			}
		}
		s += fmt.Sprintf("'%s'", n)
	}
	return s
}
