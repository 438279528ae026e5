package check

import (
	"fmt"

	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
)

func (r *checker) report(kind string, pos syntax.Position, format string, args ...any) *Diagnostic {
	d := &Diagnostic{Kind: kind, Messages: []Message{{Pos: pos, Msg: fmt.Sprintf(format, args...)}}}
	r.reported++
	if len(r.diags) < maxDiagnostics {
		r.diags = append(r.diags, d)
		r.tag(d)
	}
	return d
}

func (r *checker) diag(d *Diagnostic) {
	r.reported++
	if len(r.diags) < maxDiagnostics {
		r.diags = append(r.diags, d)
		r.tag(d)
	}
}
