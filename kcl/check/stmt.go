package check

import "github.com/kcl-lang/flux-kcl-controller/kcl/syntax"

func (r *checker) stmts(stmts []syntax.Stmt) {
	for _, s := range stmts {
		r.stmt(s)
	}
}

func (r *checker) stmt(s syntax.Stmt) {
	if s != nil && (r.local == nil || r.local == r.schemaScope) {
		r.topStmt = s.Pos()
	}
	if len(r.orderPath) == 0 {
		r.orderDone = r.orderDone[:0]
	}
	switch s := s.(type) {
	case *syntax.AssignStmt:
		for _, t := range s.Targets {
			r.target(t)
			if t != nil && t.Name != nil {
				r.defineLambdaLocal(t.Name.Value)
			}
			if r.local == nil && t != nil && t.Name != nil {
				if _, seen := r.assigned[t.Name.Value]; !seen {
					r.assigned[t.Name.Value] = t.Pos()
				}
			}
		}
		r.annotation(s.Ty)
		start := len(r.diags)
		if _, ok := s.Value.(*syntax.LambdaExpr); ok && r.local == nil && len(s.Targets) == 1 && s.Targets[0] != nil && s.Targets[0].Name != nil {
			// While its body is walked, the lambda a global is being
			// assigned has no type yet: a recursive call is not checked.
			prev := r.definingLambda
			r.definingLambda = s.Targets[0].Name.Value
			r.expr(s.Value)
			r.definingLambda = prev
			r.walkedLambdas[s.Targets[0].Name.Value] = true
		} else {
			r.expr(s.Value)
			r.lambdaLocalValue(s)
		}
		r.assignTypes(s)
		// A typed target's config checks (a schema attribute's too) are
		// met in the walk of its value; an untyped one's diagnostics are in
		// walk order already.
		if s.Ty != nil || (r.schema != nil && r.local == r.schemaScope) {
			r.sortFrom(start)
		}
	case *syntax.AugAssignStmt:
		if r.local == nil {
			r.augAssign(s)
		}
		if s.Target != nil && s.Target.Name != nil && r.local == nil {
			// The target is read: at the top level it must be assigned
			// somewhere (x op= v defines nothing).
			r.ident(&syntax.Identifier{Span: s.Target.Name.Span, Names: []*syntax.Name{s.Target.Name}, Ctx: syntax.Load})
		}
		r.target(s.Target)
		if s.Target != nil && s.Target.Name != nil && len(s.Target.Paths) > 0 {
			// The official walk resolves the target's path, member by
			// member, before the value.
			r.targetPlace(s.Target)
		}
		if s.Target != nil && s.Target.Name != nil {
			r.defineLambdaLocal(s.Target.Name.Value)
		}
		r.expr(s.Value)
		// The official resolver reports the value's own errors first.
		r.augBinary(s)
	case *syntax.UnificationStmt:
		if s.Target != nil && len(s.Target.Names) > 0 {
			r.defineLambdaLocal(s.Target.Names[0].Value)
		}
		if s.Value != nil {
			r.expr(s.Value)
		}
		r.unifiedGlobal(s)
	case *syntax.TypeAliasStmt:
		if s.TypeName == nil || s.Ty == nil {
			r.annotation(s.Ty)
			break
		}
		if r.prepassed[s.Ty] {
			r.annotation(s.Ty)
		} else {
			// An alias the global passes did not meet (in an if block)
			// is judged by the walk, at its name too.
			r.markType(s.Ty, s.TypeName.Pos())
			r.aliasName(s)
		}
		if r.local == nil && r.schema == nil {
			// The walk inserts the alias's name again (see aliasGlobal).
			r.aliasGlobal(s)
			if g := r.globals[s.TypeName.Name()]; !g.t.isAny() {
				r.varTypes[s.TypeName.Name()] = g.t
			}
		}
	case *syntax.ExprStmt:
		for _, e := range s.Exprs {
			r.expr(e)
		}
	case *syntax.AssertStmt:
		r.expr(s.Test)
		r.expr(s.IfCond)
		r.expr(s.Msg)
	case *syntax.IfStmt:
		r.expr(s.Cond)
		r.stmts(s.Body)
		r.stmts(s.Orelse)
	case *syntax.SchemaAttr:
		r.annotation(s.Ty)
		start := len(r.diags)
		r.expr(s.Value)
		r.annotatedConfig(s.Ty, s.Value)
		if s.Value != nil && s.Op == syntax.AugAssign && r.schema != nil && s.Name != nil {
			// A value is judged against the attribute's type, its first
			// declaration's in the body (a later one may not change it).
			if want, decl := r.attrType(r.schema, s.Name.Value); decl != nil {
				r.assignLast(r.exprType(s.Value, 0), want, s.Pos(), nil)
			}
		}
		r.sortFrom(start)
	case *syntax.SchemaStmt:
		r.schemaStmt(s)
	case *syntax.RuleStmt:
		r.ruleStmt(s)
	}
}

// defineLambdaLocal defines a name a lambda body assigns, when its statement
// is walked: the official resolver walks a lambda body in order, so a lambda
// written in it does not see the names assigned after it (the target is
// defined before the value is walked: `y = y + 1` is no static error).
func (r *checker) defineLambdaLocal(name string) {
	if r.local != nil && r.local.lambda {
		r.local.define(name)
	}
}

// lambdaLocalValue records the lambda a local of a lambda body is first
// assigned: its calls are checked against its parameters.
func (r *checker) lambdaLocalValue(s *syntax.AssignStmt) {
	sc := r.local
	if sc == nil || !sc.lambda || len(s.Targets) != 1 || s.Targets[0] == nil || s.Targets[0].Name == nil || len(s.Targets[0].Paths) != 0 {
		return
	}
	lam, ok := s.Value.(*syntax.LambdaExpr)
	name := s.Targets[0].Name.Value
	if _, seen := sc.lambdaSeen[name]; seen {
		return
	}
	if sc.lambdaSeen == nil {
		sc.lambdaSeen = map[string]bool{}
		sc.lambdas = map[string]*syntax.LambdaExpr{}
	}
	sc.lambdaSeen[name] = true
	if ok {
		sc.lambdas[name] = lam
	}
}

func (r *checker) target(t *syntax.Target) {
	if t == nil {
		return
	}
	for _, p := range t.Paths {
		if p.Index != nil {
			r.expr(p.Index)
		}
	}
}

func (r *checker) schemaStmt(s *syntax.SchemaStmt) {
	if r.local == nil && s.Name != nil {
		r.uniqueKey(s.Name)
	}
	si := r.lookupSchema(s.Name)
	if si == nil || si.stmt != s {
		return
	}
	prevLocal, prevSchema := r.local, r.schema
	sc := &scope{parent: r.local}
	r.arguments(s.Args, sc, false)
	r.parameters(s.Args)
	if sig := s.IndexSignature; sig != nil {
		r.annotation(sig.KeyTy)
		r.annotation(sig.ValueTy)
		if sig.KeyName != nil {
			sc.define(sig.KeyName.Value)
		}
		r.local = sc
		r.expr(sig.Value)
		r.local = prevLocal
		if sig.Value != nil {
			// The default must be of the value type.
			r.mustAssign(r.exprType(sig.Value, 0), r.fromSyntax(r.pkg, sig.ValueTy, 0), sig.Pos(), nil)
		}
	}
	for _, n := range bodyNames(s.Body, nil) {
		sc.define(n)
	}
	r.local, r.schema = sc, si
	prevSchemaScope, prevParams := r.schemaScope, r.paramTypes
	r.schemaScope = sc
	r.paramTypes = map[string]*typ{}
	if a := s.Args; a != nil {
		for i, p := range a.Args {
			if p != nil && len(p.Names) == 1 && i < len(a.TyList) && a.TyList[i] != nil {
				r.paramTypes[p.Names[0].Value] = r.fromSyntax(r.pkg, a.TyList[i], 0)
			}
		}
	}
	defer func() { r.schemaScope, r.paramTypes = prevSchemaScope, prevParams }()
	r.stmts(s.Body)
	for _, c := range s.Checks {
		r.checkExpr(c)
	}
	r.local, r.schema = prevLocal, prevSchema
}

// checkExpr resolves a check block's expression in the official
// walk_check_expr's order: the message, the if condition, then the test.
func (r *checker) checkExpr(c *syntax.CheckExpr) {
	r.expr(c.Msg)
	r.expr(c.IfCond)
	r.expr(c.Test)
}

func (r *checker) ruleStmt(s *syntax.RuleStmt) {
	si := r.lookupSchema(s.Name)
	if si == nil || si.rule != s {
		return
	}
	prevLocal, prevSchema := r.local, r.schema
	sc := &scope{parent: r.local}
	r.arguments(s.Args, sc, false)
	r.local, r.schema = sc, si
	for _, c := range s.Checks {
		r.checkExpr(c)
	}
	r.local, r.schema = prevLocal, prevSchema
}

// unifiedGlobal checks `x: S {…}` at the top level as the official walk
// does: the instance must fit the type the global x has (another
// statement's annotation), and types x when it has none.
func (r *checker) unifiedGlobal(s *syntax.UnificationStmt) {
	if r.local != nil || r.schema != nil || s.Target == nil || len(s.Target.Names) != 1 || s.Value == nil || s.Value.Name == nil {
		return
	}
	si := r.schemaByIdent(r.pkg, s.Value.Name)
	if si == nil || si.isRule || r.shadowed(s.Value.Name) {
		return
	}
	got := &typ{kind: tSchema, schema: si, instance: true}
	name := s.Target.Names[0].Value
	want := r.varTypes[name]
	if want.isAny() {
		r.varTypes[name] = got
		return
	}
	r.assignLast(got, want, s.Target.Pos(), nil)
}
