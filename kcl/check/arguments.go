package check

import (
	"fmt"
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
)

// parameters reports a parameter without a default after one with a default,
// last first as the official resolver does.
func (r *checker) parameters(args *syntax.Arguments) {
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
			r.diag(&Diagnostic{Kind: errkind.IllegalParameter, Messages: []Message{{Pos: d.Pos(), Msg: "non-default argument follows default argument"}}, Note: "A default argument"})
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

// signature is what a call is checked against: the parameters of a
// schema, or of a lambda assigned to a global of the package.
type signature struct {
	name string // as the official engine quotes it
	args *syntax.Arguments
	// annot, when args is nil, is a function type annotation: its
	// parameters have no names nor defaults.
	annot *syntax.FunctionType
	pkg   *pkgInfo
}

// schemaArguments walks and checks the arguments of a schema
// instantiation.
func (r *checker) schemaArguments(fn *syntax.Identifier, args []syntax.Expr, kwargs []*syntax.Keyword) {
	if sig, ok := r.callSignature(fn); ok {
		r.callArguments(fn, sig, args, kwargs)
		return
	}
	r.exprs(args)
	for _, k := range kwargs {
		r.expr(k.Value)
	}
}

// callSignature finds the parameters a call of fn is checked against: a
// schema's, a package-level lambda's (once its assignment has been walked),
// an imported package's lambda's, or those of a lambda assigned to a local of
// the lambda body being walked.
func (r *checker) callSignature(fn *syntax.Identifier) (signature, bool) {
	if fn == nil || len(fn.Names) == 0 {
		return signature{}, false
	}
	var sig signature
	if r.shadowed(fn) {
		lam := r.localLambda(fn)
		if lam == nil {
			return r.typeSignature(fn)
		}
		sig = signature{args: lam.Args, pkg: r.pkg}
	} else if si := r.schemaByIdent(r.pkg, fn); si != nil && si.stmt != nil {
		sig = signature{args: si.stmt.Args, pkg: r.infos[si.pkg.Path]}
	} else if len(fn.Names) == 1 {
		lam := r.globalLambdas[fn.Names[0].Value]
		if lam == nil {
			return r.typeSignature(fn)
		}
		if !r.walkedLambdas[fn.Names[0].Value] {
			return signature{}, false
		}
		sig = signature{args: lam.Args, pkg: r.pkg}
	} else if sym := r.pkg.globals[fn.Names[0].Value]; len(fn.Names) == 2 && sym != nil && sym.kind == symModule && sym.module != nil {
		// A lambda global of an imported package.
		target := r.infos[sym.module.Path]
		if target == nil || target.lambdas[fn.Names[1].Value] == nil {
			return signature{}, false
		}
		sig = signature{args: target.lambdas[fn.Names[1].Value].Args, pkg: target}
	} else {
		return r.typeSignature(fn)
	}
	sig.name = `"` + fn.Names[len(fn.Names)-1].Value + `"`
	return sig, true
}

// typeSignature is the signature of a callee by its function type: a global
// assigned again (its first lambda's), one annotated with a function type,
// a schema attribute's.
func (r *checker) typeSignature(fn *syntax.Identifier) (signature, bool) {
	t := r.exprType(fn, 0)
	if t.kind != tFunc || t.fnPkg == nil {
		return signature{}, false
	}
	sig := signature{name: `"` + fn.Name() + `"`, pkg: t.fnPkg}
	switch {
	case t.fnLambda != nil:
		sig.args = t.fnLambda.Args
	case t.fnAnnot != nil:
		sig.annot = t.fnAnnot
	default:
		return signature{}, false
	}
	return sig, true
}

// localLambda is the lambda a local name of a lambda body was first assigned,
// if that local is the one fn names.
func (r *checker) localLambda(fn *syntax.Identifier) *syntax.LambdaExpr {
	if len(fn.Names) != 1 {
		return nil
	}
	name := fn.Names[0].Value
	for sc := r.local; sc != nil; sc = sc.parent {
		if sc.names[name] {
			return sc.lambdas[name]
		}
	}
	return nil
}

type param struct {
	name     string
	ty       syntax.Type
	required bool
	pos      syntax.Position
	// t is a builtin's parameter type (ty is nil); nil is any.
	t *typ
}

// callArguments walks and checks a call's arguments against sig (see
// matchArguments).
func (r *checker) callArguments(fn *syntax.Identifier, sig signature, args []syntax.Expr, kwargs []*syntax.Keyword) {
	var params []param
	if sig.annot != nil {
		for _, ty := range sig.annot.ParamsTy {
			// Located at the function type, as the official label is.
			params = append(params, param{ty: ty, required: true, pos: sig.annot.Pos()})
		}
	}
	if a := sig.args; a != nil {
		for i, p := range a.Args {
			if p == nil || len(p.Names) == 0 {
				continue
			}
			pr := param{name: p.Names[len(p.Names)-1].Value, pos: p.Pos(), required: i >= len(a.Defaults) || a.Defaults[i] == nil}
			if i < len(a.TyList) {
				pr.ty = a.TyList[i]
			}
			params = append(params, pr)
		}
	}
	check := func(p param, v syntax.Expr) {
		if v == nil {
			return
		}
		// An untyped parameter is any, which no module fits.
		want := anyT
		if p.ty != nil {
			want = r.fromSyntax(sig.pkg, p.ty, 0)
		}
		got := r.exprType(v, 0)
		if want.isAny() && !got.hasModule() {
			return
		}
		// The argument's config entries first, then the whole value.
		start := len(r.diags)
		r.schemaValue(want, v)
		pos := p.pos
		if want.kind != tSchema {
			// The context of an argument starts at the argument.
			vp := v.Pos()
			r.ctxCheck(want, v, &vp, 0)
		}
		r.pushLast()
		r.mustAssignAt(got, want, v.Pos(), &pos)
		r.popOrder()
		r.sortFrom(start)
	}
	r.matchArguments(fn.Pos(), sig.name, params, false, args, kwargs, check)
}

// matchArguments walks a call's arguments, matches them to params and
// checks each with check, as the official resolver does: an argument is
// walked and judged before the next one is walked; the arguments past the
// parameters' count after the first are not walked, nor the values of
// keywords that name no parameter. A variadic function takes any further
// arguments and keywords, and none is required. quoted names the function
// in the messages, fnPos is where a missing argument is reported.
func (r *checker) matchArguments(fnPos syntax.Position, quoted string, params []param, variadic bool, args []syntax.Expr, kwargs []*syntax.Keyword, check func(param, syntax.Expr)) {
	for i, a := range args {
		r.expr(a)
		if i < len(params) {
			check(params[i], a)
		} else if !variadic {
			r.report(errkind.Compile, args[len(params)].Pos(), "%s takes %s but %d were given", quoted, positional(len(params)), len(args))
			break
		}
	}
	seen := map[string]bool{}
	var prevKw *syntax.Keyword
	for _, kw := range kwargs {
		if kw == nil {
			continue
		}
		if kw.Arg == nil || len(kw.Arg.Names) == 0 {
			r.report(errkind.Compile, kw.Pos(), "missing argument")
			prevKw = kw
			continue
		}
		name := kw.Arg.Names[0].Value
		if seen[name] {
			// Located from the end of the keyword before it.
			pos := kw.End()
			if prevKw != nil {
				pos = prevKw.End()
			}
			r.report(errkind.Compile, pos, "%s has duplicated keyword argument %s", quoted, name)
		}
		seen[name] = true
		prevKw = kw
		var match *param
		for i := range params {
			if params[i].name == name {
				match = &params[i]
				break
			}
		}
		if match == nil && variadic {
			continue
		}
		if match == nil {
			names := make([]string, len(params))
			for i, p := range params {
				names[i] = p.name
			}
			msg := ""
			if suggs := suggestions(name, names); len(suggs) > 0 {
				msg = fmt.Sprintf(", did you mean '%s'?", strings.Join(suggs, " or "))
			}
			r.report(errkind.Compile, kw.Arg.Pos(), "%s got an unexpected keyword argument '%s'%s", quoted, name, msg)
			// The official walk reaches the value of a known keyword only.
			continue
		}
		r.expr(kw.Value)
		check(*match, kw.Value)
	}
	if variadic {
		return
	}
	got, required := len(args), 0
	for _, p := range params {
		if p.required {
			required++
			if seen[p.name] {
				got++
			}
		}
	}
	if got < required {
		r.report(errkind.Compile, fnPos, "expected %s, found %d", positional(required), got)
	}
}

// arguments checks parameter types and, with defaults, the default values
// in the enclosing scope (no parameter is visible there), and defines the
// parameters in sc. The official resolver walks a lambda's defaults only: a
// schema's or rule's are first met at run time (an undefined name there is
// Undefined).
func (r *checker) arguments(args *syntax.Arguments, sc *scope, defaults bool) {
	if args == nil {
		return
	}
	for i := range args.Args {
		if i < len(args.TyList) {
			r.annotation(args.TyList[i])
		}
		if defaults && i < len(args.Defaults) {
			r.expr(args.Defaults[i])
		}
	}
	for _, a := range args.Args {
		if a != nil && len(a.Names) > 0 {
			sc.define(a.Names[0].Value)
		}
	}
}

// argumentTypes gives a lambda's annotated parameters their types in its
// body, where the official resolver checks their uses and reassignments.
func (r *checker) argumentTypes(args *syntax.Arguments, sc *scope) {
	if args == nil {
		return
	}
	for i, a := range args.Args {
		if i >= len(args.TyList) || args.TyList[i] == nil || a == nil || len(a.Names) == 0 {
			continue
		}
		if t := r.fromSyntax(r.pkg, args.TyList[i], 0); !t.isAny() {
			sc.setType(a.Names[0].Value, t)
		}
	}
}
