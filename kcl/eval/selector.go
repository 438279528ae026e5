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
	var results []value.Value
	var names []string
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
		parts := strings.Split(path, ".")
		names = append(names, parts[len(parts)-1])
	}
	if len(results) == 1 {
		return results[0], nil
	}
	d := value.NewDict(len(results))
	for i, r := range results {
		d.Set(names[i], r)
	}
	return d, nil
}

func selectPath(v value.Value, parts []string) (value.Value, bool) {
	for _, p := range parts {
		if strings.HasPrefix(p, "[") && strings.HasSuffix(p, "]") {
			l, ok := v.(*value.List)
			if !ok {
				return nil, false
			}
			i, err := strconv.Atoi(p[1 : len(p)-1])
			if err != nil || i < 0 || i >= len(l.Elems) {
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
