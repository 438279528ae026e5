package builtins

import (
	"sort"

	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

func length(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
	x, ok := arg(args, kwargs, 0, "inval")
	if !ok {
		return nil, evalErr("len() takes exactly one argument (0 given)")
	}
	switch v := x.(type) {
	case value.Str:
		return value.Int(len(v)), nil // bytes, as the runtime counts
	case *value.List:
		return value.Int(len(v.Elems)), nil
	case *value.Dict:
		return value.Int(v.Len()), nil
	case *value.Schema:
		return value.Int(v.Config.Len()), nil
	}
	return nil, evalErr("object of type '%s' has no len()", x.Type())
}

func containerValues(x value.Value) ([]value.Value, bool) {
	switch v := x.(type) {
	case *value.List:
		return v.Elems, true
	case *value.Dict, *value.Schema:
		d, _ := value.AsDict(v)
		out := make([]value.Value, 0, d.Len())
		for _, e := range d.Entries() {
			out = append(out, e.Value)
		}
		return out, true
	}
	return nil, false
}

func anyTrue(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
	x, ok := arg(args, kwargs, 0, "inval")
	if !ok {
		return value.False, nil
	}
	vals, _ := containerValues(x)
	for _, v := range vals {
		if v.Truth() {
			return value.True, nil
		}
	}
	return value.False, nil
}

func allTrue(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
	x, ok := arg(args, kwargs, 0, "inval")
	if !ok {
		return value.False, nil
	}
	vals, ok := containerValues(x)
	if !ok {
		return value.False, nil
	}
	_, isSchema := x.(*value.Schema)
	for _, v := range vals {
		// the runtime inverts the test for schema instances; keep its answer
		if isSchema == v.Truth() {
			return value.False, nil
		}
	}
	return value.True, nil
}

func isUnique(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
	x, ok := arg(args, kwargs, 0, "inval")
	if !ok {
		return value.False, nil
	}
	l, ok := x.(*value.List)
	if !ok {
		return value.False, nil
	}
	for i := range l.Elems {
		for j := 0; j < i; j++ {
			if value.Equal(l.Elems[i], l.Elems[j]) {
				return value.False, nil
			}
		}
	}
	return value.True, nil
}

func isNullish(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
	x, ok := arg(args, kwargs, 0, "inval")
	if !ok {
		return nil, evalErr("is_nullable() takes exactly one argument (0 given)")
	}
	return value.Bool(value.IsNoneOrUndefined(x)), nil
}

// SortValues sorts vs in place with KCL's order; it fails on unorderable pairs.
func SortValues(vs []value.Value, reverse bool) error {
	if err := sortable(vs); err != nil {
		return err
	}
	var err error
	sort.SliceStable(vs, func(i, j int) bool {
		a, b := vs[i], vs[j]
		if reverse {
			a, b = b, a
		}
		less, e := value.Less(a, b)
		if e != nil && err == nil {
			err = e
		}
		return less
	})
	return err
}

// sortable fails as the runtime's sort does: its Ord orders numbers with
// numbers and strings with strings only (no lists, bools or None), and its
// insertion sort compares each element with the largest before it first.
func sortable(vs []value.Value) error {
	class := func(v value.Value) int {
		switch v.(type) {
		case value.Int, value.Float:
			return 1
		case value.Str:
			return 2
		}
		return 0
	}
	for i := 1; i < len(vs); i++ {
		largest := vs[0]
		for _, v := range vs[1:i] {
			if less, _ := value.Less(largest, v); less {
				largest = v
			}
		}
		if c := class(vs[i]); c == 0 || c != class(largest) {
			return evalErr("cannot compare %s and %s", vs[i].Type(), largest.Type())
		}
	}
	return nil
}

func sorted(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
	x, ok := arg(args, kwargs, 0, "inval")
	if !ok {
		return nil, evalErr("sorted() takes exactly one argument (0 given)")
	}
	rev, _ := arg(args, kwargs, 1, "reverse")
	var vs []value.Value
	switch v := x.(type) {
	case *value.List:
		vs = value.DeepCopy(v).(*value.List).Elems
	case value.Str, *value.Dict, *value.Schema:
		if _, isSchema := v.(*value.Schema); isSchema {
			return nil, evalErr("sorted only for str|list|dict type")
		}
		vs, _ = Iterate(v)
		vs = append([]value.Value(nil), vs...)
	default:
		return nil, evalErr("sorted only for str|list|dict type")
	}
	if err := SortValues(vs, truthy(rev)); err != nil {
		return nil, err
	}
	return value.NewList(vs), nil
}

func zip(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
	if len(args) == 0 {
		return value.NewList(nil), nil
	}
	seqs := make([][]value.Value, len(args))
	n := -1
	for i, a := range args {
		s, err := Iterate(a)
		if err != nil {
			return nil, err
		}
		seqs[i] = s
		if n < 0 || len(s) < n {
			n = len(s)
		}
	}
	out := make([]value.Value, n)
	for i := range n {
		row := make([]value.Value, len(seqs))
		for j := range seqs {
			row[j] = seqs[j][i]
		}
		out[i] = value.NewList(row)
	}
	return value.NewList(out), nil
}
