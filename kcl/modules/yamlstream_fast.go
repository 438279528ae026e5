package modules

import "github.com/kcl-lang/flux-kcl-controller/kcl/value"

// yaml_stream prints its documents, reads the stream back and plans it again,
// as kcl run does. For the usual stream — configs whose leaves are strings,
// ints, bools and None — reading back yields the same values (strings are
// quoted so that they read back as themselves), so the documents can be
// planned as they are, saving the print and the parse (half the run time of a
// program that streams a thousand Deployments).

// plainConfigs reports whether every document is a config (dict or schema
// instance) holding only containers, strings, ints, bools and None.
func plainConfigs(docs []value.Value) bool {
	if len(docs) == 0 {
		return false
	}
	for _, d := range docs {
		switch d.(type) {
		case *value.Dict, *value.Schema:
		default:
			return false
		}
		if !plainValue(d, 0) {
			return false
		}
	}
	return true
}

func plainValue(v value.Value, depth int) bool {
	if depth > value.MaxNesting {
		return false
	}
	switch x := v.(type) {
	case value.Str, value.Int, value.Bool, value.NoneType:
		return true
	case *value.List:
		for _, e := range x.Elems {
			if !plainValue(e, depth+1) {
				return false
			}
		}
		return true
	case *value.Dict:
		for _, e := range x.Entries() {
			if !plainValue(e.Value, depth+1) {
				return false
			}
		}
		return true
	case *value.Schema:
		d, ok := value.AsDict(x)
		return ok && plainValue(d, depth+1)
	}
	return false
}
