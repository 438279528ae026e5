package eval

import (
	"strconv"
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

// selectPaths applies -S selectors (`pkg:a.b.c`, `a.[0]`): one selector
// prints the selected value itself; several print a dict of them.
func (in *Interp) selectPaths(out value.Value, selectors []string) (value.Value, error) {
	// As 0.12.1's filter_by_path: only a config is selected from; one
	// selector gives its value, several a list of theirs (printed as a
	// stream of documents).
	if _, ok := value.AsDict(out); !ok {
		return out, nil
	}
	var results []value.Value
	for _, sel := range selectors {
		path := sel
		if i := strings.Index(path, ":"); i >= 0 {
			path = path[i+1:]
		}
		v, ok := selectPath(out, strings.Split(path, "."))
		if !ok {
			return nil, errorAt(in.lastStmtPos(), errkind.Evaluation, "invalid path select operand %s, value not found", sel)
		}
		results = append(results, v)
	}
	if len(results) == 1 {
		return results[0], nil
	}
	return value.NewList(results), nil
}

// selectPath is the runtime's get_by_path: each part a dict or schema key,
// or a list index written as a number.
func selectPath(v value.Value, parts []string) (value.Value, bool) {
	for _, p := range parts {
		if l, ok := v.(*value.List); ok {
			i, err := strconv.ParseUint(p, 10, 63)
			if err != nil || i >= uint64(len(l.Elems)) {
				return nil, false
			}
			v = l.Elems[i]
			continue
		}
		d, ok := value.AsDict(v)
		if !ok {
			return nil, false
		}
		if v, ok = d.Get(p); !ok {
			return nil, false
		}
	}
	return v, true
}

// lastStmtPos is the position of the main package's last statement, where the
// official engine reports selector errors.
func (in *Interp) lastStmtPos() syntax.Position {
	if in.main == nil {
		return syntax.Position{}
	}
	for i := len(in.main.files) - 1; i >= 0; i-- {
		if b := in.main.files[i].body; len(b) > 0 {
			return lineOnly(b[len(b)-1].Pos())
		}
	}
	return syntax.Position{}
}
