package kcl

import (
	"sort"

	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

// settingsOptionValue orders an option value of a settings file as 0.12.1
// does: the value's own keys as written, the dicts nested in it by key (its
// YAML loader keeps the order of the outer map only).
func settingsOptionValue(v value.Value) value.Value {
	return sortNestedKeys(v, 0)
}

func sortNestedKeys(v value.Value, depth int) value.Value {
	if depth > 1000 {
		return v
	}
	switch x := v.(type) {
	case *value.List:
		out := make([]value.Value, len(x.Elems))
		for i, e := range x.Elems {
			out[i] = sortNestedKeys(e, depth+1)
		}
		return value.NewList(out)
	case *value.Dict:
		keys := x.Keys()
		if depth > 0 {
			sort.Strings(keys)
		}
		out := value.NewDict(len(keys))
		for _, k := range keys {
			e, _ := x.Get(k)
			out.Set(k, sortNestedKeys(e, depth+1))
		}
		return out
	}
	return v
}
