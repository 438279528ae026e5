package resolve

import (
	"fmt"
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
)

// KindIllegalParameter is the kind of a malformed parameter list.
const KindIllegalParameter = "IllegalParameterError"

// parameters reports a parameter without a default after one with a default,
// last first as the official resolver does.
func (r *resolver) parameters(args *syntax.Arguments) {
	if args == nil {
		return
	}
	mark := false
	for j := len(args.Defaults) - 1; j >= 0; j-- {
		d := args.Defaults[j]
		if d == nil {
			mark = true
			continue
		}
		if mark {
			r.diag(&Diagnostic{Kind: KindIllegalParameter, Messages: []Message{{Pos: d.Pos(), Msg: "non-default argument follows default argument"}}, Note: "A default argument"})
		}
	}
}

// positional words a count of positional arguments as the official engine.
func positional(n int) string {
	if n > 1 {
		return fmt.Sprintf("%d positional arguments", n)
	}
	return fmt.Sprintf("%d positional argument", n)
}

// schemaArguments checks the arguments of a schema instantiation against
// the schema's own parameters: too many positional arguments, unknown or
// repeated keywords, missing required ones.
func (r *resolver) schemaArguments(fn *syntax.Identifier, args []syntax.Expr, kwargs []*syntax.Keyword) {
	if fn == nil || len(fn.Names) == 0 || r.localHas(fn.Names[0].Value) {
		return
	}
	if r.schema != nil && r.schema.hasAttr(fn.Names[0].Value) {
		return
	}
	si := r.schemaByIdent(r.pkg, fn)
	if si == nil || si.stmt == nil {
		return
	}
	var params []string
	var required []string
	if a := si.stmt.Args; a != nil {
		for i, p := range a.Args {
			if p == nil || len(p.Names) == 0 {
				continue
			}
			name := p.Names[len(p.Names)-1].Value
			params = append(params, name)
			if i >= len(a.Defaults) || a.Defaults[i] == nil {
				required = append(required, name)
			}
		}
	}
	funcName := `"` + fn.Names[len(fn.Names)-1].Value + `"`
	if len(args) > len(params) {
		r.report(KindCompile, args[len(params)].Pos(), "%s takes %s but %d were given", funcName, positional(len(params)), len(args))
	}
	seen := map[string]bool{}
	for _, kw := range kwargs {
		if kw == nil || kw.Arg == nil || len(kw.Arg.Names) == 0 {
			continue
		}
		name := kw.Arg.Names[0].Value
		if seen[name] {
			r.report(KindCompile, kw.Pos(), "%s has duplicated keyword argument %s", funcName, name)
		}
		seen[name] = true
		known := false
		for _, p := range params {
			known = known || p == name
		}
		if !known {
			msg := ""
			if suggs := suggestions(name, params); len(suggs) > 0 {
				msg = fmt.Sprintf(", did you mean '%s'?", strings.Join(suggs, " or "))
			}
			r.report(KindCompile, kw.Arg.Pos(), "%s got an unexpected keyword argument '%s'%s", funcName, name, msg)
		}
	}
	got := len(args)
	for _, p := range required {
		if seen[p] {
			got++
		}
	}
	if got < len(required) {
		r.report(KindCompile, fn.Pos(), "expected %s, found %d", positional(len(required)), got)
	}
}
