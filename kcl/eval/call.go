package eval

import (
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

func (in *Interp) evalArgs(e *env, argExprs []syntax.Expr, kws []*syntax.Keyword) ([]value.Value, []value.KV, error) {
	var args []value.Value
	for _, a := range argExprs {
		if st, ok := a.(*syntax.StarredExpr); ok {
			v, err := in.eval(e, st.Value)
			if err != nil {
				return nil, nil, err
			}
			items, err := unpackList(v, st.Pos())
			if err != nil {
				return nil, nil, err
			}
			args = append(args, items...)
			continue
		}
		v, err := in.eval(e, a)
		if err != nil {
			return nil, nil, err
		}
		args = append(args, v)
	}
	var kwargs []value.KV
	for _, k := range kws {
		v, err := in.eval(e, k.Value)
		if err != nil {
			return nil, nil, err
		}
		if k.Arg == nil {
			// **kwargs unpacking
			if d, ok := value.AsDict(v); ok {
				for _, ent := range d.Entries() {
					kwargs = append(kwargs, value.KV{Key: ent.Key, Value: ent.Value})
				}
			}
			continue
		}
		kwargs = append(kwargs, value.KV{Key: k.Arg.Name(), Value: v})
	}
	return args, kwargs, nil
}

func (in *Interp) evalCall(e *env, x *syntax.CallExpr) (value.Value, error) {
	fv, err := in.eval(e, x.Func)
	if err != nil {
		return nil, err
	}
	args, kwargs, err := in.evalArgs(e, x.Args, x.Keywords)
	if err != nil {
		return nil, err
	}
	fn, ok := fv.(value.Callable)
	if !ok && value.IsNoneOrUndefined(fv) {
		// `a?.b()` on None is None.
		if sel, isSel := x.Func.(*syntax.SelectorExpr); isSel && sel.HasQuestion {
			return value.None, nil
		}
	}
	if !ok {
		// The official runtime calls what is not a function to Undefined
		// (statically known cases are the static pass's errors): a lambda
		// read before its global is computed, from a schema body, is Undefined.
		return value.Undefined, nil
	}
	if err := in.thread.Enter(); err != nil {
		return nil, locate(err, lineOnly(x.Pos()))
	}
	prevFile := in.thread.CurrentFile
	r, err := fn.Call(in.thread, args, kwargs)
	in.thread.CurrentFile = prevFile
	in.thread.Leave()
	if err != nil {
		var ae *Error
		if errors.As(err, &ae) && ae.args != nil {
			return nil, in.argumentError(x, ae.args)
		}
		if errors.As(err, &ae) && ae.atCall {
			moved := *ae
			moved.atCall, moved.Pos = false, lineOnly(x.Pos())
			return nil, &moved
		}
		var me *Error
		if errors.As(err, &me) && me.Kind == errkind.Compile && strings.HasPrefix(me.Msg, "expected ") && strings.Contains(me.Msg, "positional argument") {
			// Missing arguments are reported at the call.
			return nil, &Error{Kind: errkind.Compile, Pos: x.Pos(), Msg: me.Msg}
		}
		return nil, locate(err, lineOnly(x.Pos()))
	}
	if r == nil {
		r = value.None
	}
	return r, nil
}

// bindParams binds call arguments to parameters, evaluating defaults in the
// definition environment and converting typed parameters.
// A parameter with no argument and no default is an error, or None when
// missingNone (a schema instantiated by a type conversion, as in 0.12.1).
func (in *Interp) bindParams(defEnv *env, params *syntax.Arguments, args []value.Value, kwargs []value.KV, pos syntax.Position, missingNone, lambda bool) (map[string]value.Value, error) {
	vars := make(map[string]value.Value, len(params.Args))
	for _, kw := range kwargs {
		known := false
		for _, p := range params.Args {
			if p.Name() == kw.Key {
				known = true
				break
			}
		}
		if !known && !lambda {
			return nil, &Error{Kind: errkind.Compile, Pos: pos, args: &argMismatch{keyword: kw.Key},
				Msg: fmt.Sprintf("got an unexpected keyword argument '%s'", kw.Key)}
		}
	}
	// At run time the official engine calls a lambda with what it is
	// given: an argument too many or an unknown keyword is dropped, a
	// missing one is None (the static pass checks the calls it can type).
	if len(args) > len(params.Args) && !lambda {
		return nil, &Error{Kind: errkind.Compile, Pos: pos, args: &argMismatch{want: len(params.Args), got: len(args)},
			Msg: fmt.Sprintf("takes %d positional argument but %d were given", len(params.Args), len(args))}
	}
	// convert converts to a parameter's type; a lambda's argument that
	// fails is reported at the call, its default at the lambda.
	convert := func(i int, v value.Value, arg bool) (value.Value, error) {
		if i >= len(params.TyList) || params.TyList[i] == nil {
			return v, nil
		}
		cv, err := in.convertType(defEnv, v, params.TyList[i], lineOnly(pos))
		var ae *Error
		if lambda && arg && errors.As(err, &ae) {
			moved := *ae
			moved.atCall = true
			return nil, &moved
		}
		return cv, err
	}
	// 0.12.1 evaluates and converts every default, in order, before it
	// binds the arguments: a default reads the defaults before it (None
	// for a parameter without one), never an argument.
	var de *env
	for i, p := range params.Args {
		v := value.None
		if i < len(params.Defaults) && params.Defaults[i] != nil {
			if de == nil {
				de = defEnv.withLocals(vars)
				// Its resolver does not walk a schema's or rule's
				// defaults: a name undefined there is Undefined.
				de.locals.unresolved = !lambda
			}
			dv, err := in.eval(de, params.Defaults[i])
			if err != nil {
				return nil, err
			}
			if v, err = convert(i, dv, false); err != nil {
				return nil, err
			}
		}
		vars[p.Name()] = v
	}
	for i, p := range params.Args {
		name := p.Name()
		var v value.Value
		if i < len(args) {
			v = args[i]
		}
		for _, kw := range kwargs {
			if kw.Key == name {
				v = kw.Value
			}
		}
		if v == nil {
			if i < len(params.Defaults) && params.Defaults[i] != nil {
				continue
			}
			if !missingNone && !lambda {
				return nil, &Error{Kind: errkind.Compile, Pos: pos, Msg: fmt.Sprintf("expected %d positional %s, found %d", len(params.Args), plural(len(params.Args), "argument"), len(args))}
			}
			v = value.None
		}
		v, err := convert(i, v, true)
		if err != nil {
			return nil, err
		}
		vars[name] = v
	}
	return vars, nil
}

// lambdaFn is a lambda with its closure.
type lambdaFn struct {
	expr *syntax.LambdaExpr
	env  *env
	// bodyLocals are the names the body assigns (Interp.lambdaLocals).
	bodyLocals []string
	// closure holds the local variables around the lambda as they were when
	// it was made: the official lambda reads an enclosing lambda's or
	// comprehension's variable from that copy, and a name the copy lacks
	// from the live scope.
	closure *locals
	// this is the schema instance being built where the lambda was made:
	// the lambda reads its attributes as they are when it is called.
	this *schemaFrame
	// level is the number of official scopes open where the lambda was made.
	// 0.12.1 records it as the level of the lambda's own scope, and a
	// variable found below that level (but above the globals) is read from
	// the closure when the closure has it: so a lambda made inside a call
	// and called where fewer scopes are open reads the closure's value of a
	// name for its own parameter of that name (upstream issue 1919).
	level int
}

func (in *Interp) makeLambda(e *env, x *syntax.LambdaExpr) (value.Value, error) {
	if err := checkParams(x.Args); err != nil {
		return nil, err
	}
	locals, ok := in.lambdaLocals[x]
	if !ok {
		// Per lambda expression, not per value: a lambda written in a
		// schema body is made again for every instance.
		locals = bodyLocals(x.Body, nil)
		if in.lambdaLocals == nil {
			in.lambdaLocals = map[*syntax.LambdaExpr][]string{}
		}
		in.lambdaLocals[x] = locals
	}
	around := e.locals
	if around == nil && len(in.callLocals) > 0 {
		// A global statement run by backtracking during a call: 0.12.1's
		// scopes are one stack, so the lambda closes over the call's variables.
		around = in.callLocals[len(in.callLocals)-1]
	}
	lf := &lambdaFn{expr: x, env: e, bodyLocals: locals, closure: closureOf(around), level: len(in.scopes)}
	if fr, ok := in.topFrame(); ok {
		lf.this = fr.f
	}
	f := &value.Function{FuncName: "lambda", Closure: lf}
	f.Impl = func(t *value.Thread, args []value.Value, kwargs []value.KV) (value.Value, error) {
		return in.callLambda(lf, args, kwargs)
	}
	return f, nil
}

func (in *Interp) callLambda(lf *lambdaFn, args []value.Value, kwargs []value.KV) (value.Value, error) {
	x := lf.expr
	vars := map[string]value.Value{}
	if x.Args != nil {
		var err error
		vars, err = in.bindParams(lf.env, x.Args, args, kwargs, x.Pos(), false, true)
		if err != nil {
			return nil, err
		}
	} else if len(args) > 0 {
		return nil, errorAt(lineOnly(x.Pos()), errkind.Evaluation, "expected 0 positional arguments, found %d", len(args))
	}
	if len(in.scopes) < lf.level && lf.closure != nil {
		for name := range vars {
			if v, ok := lf.closure.get(name); ok {
				vars[name] = v
			}
		}
	}
	c := *lf.env
	le := &c
	if lf.closure != nil {
		le.locals = lf.closure
	}
	le.locals = &locals{vars: vars, parent: le.locals}
	le.lambda = le.locals
	// A local read before it is assigned (or when only an untaken branch
	// assigns it) is the closure's or global name of that name, or else
	// Undefined (see lookup).
	le.locals.unset = lf.bodyLocals
	in.lambdaDepth++
	in.callLocals = append(in.callLocals, le.locals)
	defer func() { in.lambdaDepth--; in.callLocals = in.callLocals[:len(in.callLocals)-1] }()
	defer in.leaveScope(in.enterScope())
	if lf.this != nil {
		in.frameStack = append(in.frameStack, frameRef{f: lf.this})
		defer func(n int) { in.frameStack = in.frameStack[:n] }(len(in.frameStack) - 1)
	}
	var result value.Value = value.None
	for _, st := range x.Body {
		v, err := in.execStmtValue(le, st)
		if err != nil {
			return nil, err
		}
		result = v
	}
	if x.ReturnTy != nil {
		// A result of the wrong type is reported where the official
		// runtime's panic_info points: the node run last.
		return in.convertType(lf.env, result, x.ReturnTy, lineOnly(in.panicPos(x.Pos())))
	}
	return result, nil
}

// argumentError words an argument mismatch as the official checker does, with
// the callee's name and at the offending argument.
func (in *Interp) argumentError(x *syntax.CallExpr, m *argMismatch) error {
	name := "lambda"
	switch f := x.Func.(type) {
	case *syntax.Identifier:
		name = f.Names[len(f.Names)-1].Value
	case *syntax.SelectorExpr:
		name = f.Attr.Name()
	}
	if m.keyword != "" {
		pos := x.Pos()
		for _, k := range x.Keywords {
			if k.Arg != nil && k.Arg.Name() == m.keyword {
				pos = k.Pos()
			}
		}
		return errorAt(pos, errkind.Compile, "\"%s\" got an unexpected keyword argument '%s'", name, m.keyword)
	}
	pos := x.Pos()
	if m.want < len(x.Args) {
		pos = x.Args[m.want].Pos()
	}
	return errorAt(pos, errkind.Compile, "\"%s\" takes %d positional %s but %d were given", name, m.want, plural(m.want, "argument"), m.got)
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// bodyLocals lists the names a lambda body assigns (plainly), branches
// included.
func bodyLocals(stmts []syntax.Stmt, out []string) []string {
	for _, st := range stmts {
		switch st := st.(type) {
		case *syntax.IfStmt:
			out = bodyLocals(st.Body, out)
			out = bodyLocals(st.Orelse, out)
		case *syntax.AssignStmt:
			for _, t := range st.Targets {
				if t != nil && t.Name != nil && len(t.Paths) == 0 {
					out = append(out, t.Name.Value)
				}
			}
		}
	}
	return out
}

// closureOf copies a locals chain as it is now (each frame's variables),
// followed by the live chain itself for the names the copy lacks.
func closureOf(l *locals) *locals {
	if l == nil {
		return nil
	}
	head := &locals{}
	cur := head
	for s := l; s != nil; s = s.parent {
		c := *s
		c.vars = maps.Clone(s.vars)
		cur.parent = &c
		cur = &c
	}
	cur.parent = l
	return head.parent
}
