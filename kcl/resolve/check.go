package resolve

import (
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
)

type resolver struct {
	// typeAt, when set, is where an undefined name of the type being
	// walked is reported (see annotation).
	typeAt *syntax.Position
	// prepassed are the annotations annotationPrepass reported on.
	prepassed map[syntax.Type]bool
	// topStmt is the start of the top-level or schema-body statement being
	// walked, where the official resolver reports an undefined name in a
	// lambda's return type.
	topStmt syntax.Position
	prog    *Program
	infos   map[string]*pkgInfo // by package path
	visited map[*Package]bool
	diags   []*Diagnostic

	// The statement being checked.
	pkg    *pkgInfo
	file   *File
	local  *scope      // innermost local scope; nil at the top level
	schema *schemaInfo // enclosing schema or rule
	depth  int         // expression nesting, bounded against hostile input
	// assigned are the package's globals assigned so far in the walk.
	assigned map[string]syntax.Position
	// varTypes are the types of the package's globals known so far;
	// assignCount counts their assignments (only a global assigned once
	// has a type here).
	varTypes    map[string]*typ
	assignCount map[string]int
	// lambdaResults are the annotated return types of the package's
	// globals first assigned a lambda.
	lambdaResults map[string]*typ
	schemaScope   *scope // the scope of the enclosing schema's body
	// definingLambda is the global whose lambda's body is being walked;
	// walkedLambdas the globals whose lambda has been: only calls of those
	// are checked, as the official resolver types a global when it walks
	// its assignment.
	definingLambda string
	walkedLambdas  map[string]bool
	// lambdaBodyTypes are the types of the values the walked lambdas'
	// bodies end with: the result type of one without annotation.
	lambdaBodyTypes map[*syntax.LambdaExpr]*typ
	// paramTypes are the annotated parameters of the enclosing schema.
	paramTypes map[string]*typ
	// deferEntries is the config of the schema expression being walked,
	// whose entry-value checks come after its attribute types.
	deferEntries *syntax.ConfigExpr
	// orderPath is the place in a config walk being checked, diagOrder
	// that of each diagnostic reported there (see order.go).
	orderPath []orderElem
	diagOrder map[*Diagnostic][]orderElem
	// orderDone[k] is the last entry finished at depth k of orderPath: a
	// diagnostic reported at that depth comes after it (`{**1} | 1`
	// reports the `|` after the entries of its operands).
	orderDone []orderElem
	// globalLambdas are the package's globals assigned a lambda once.
	globalLambdas map[string]*syntax.LambdaExpr
}

// maxDepth bounds the nesting the pass follows; the parser bounds it first.
const maxDepth = 2000

// declare collects a package's global names and schemas.
func (r *resolver) declare(p *Package) *pkgInfo {
	pi := &pkgInfo{pkg: p, globals: map[string]*symbol{}}
	r.infos[p.Path] = pi
	// Imports are package-wide in the official resolver.
	for _, f := range p.Files {
		for _, s := range f.Body {
			if imp, ok := s.(*syntax.ImportStmt); ok {
				sym := &symbol{kind: symModule, pos: imp.Pos(), module: f.Imports[imp]}
				raw := imp.RawPath
				if raw == "" && imp.Path != nil {
					raw = imp.Path.Value
				}
				if sym.module == nil {
					if _, ok := systemModules[raw]; ok {
						sym.system = raw
					}
				}
				pi.define(imp.Name, sym)
			}
		}
	}
	var walk func(f *File, stmts []syntax.Stmt)
	walk = func(f *File, stmts []syntax.Stmt) {
		for _, s := range stmts {
			switch s := s.(type) {
			case *syntax.SchemaStmt:
				if s.Name == nil {
					continue
				}
				si := &schemaInfo{name: s.Name.Value, pkg: p, file: f, stmt: s, isMixin: s.IsMixin, attrs: map[string]bool{}}
				for _, n := range bodyNames(s.Body, nil) {
					si.attrs[n] = true
				}
				si.declared = map[string]*syntax.SchemaAttr{}
				si.unified = map[string]bool{}
				for _, b := range s.Body {
					if a, ok := b.(*syntax.SchemaAttr); ok && a.Name != nil && si.declared[a.Name.Value] == nil {
						si.declared[a.Name.Value] = a
					}
					if u, ok := b.(*syntax.UnificationStmt); ok && u.Target != nil && len(u.Target.Names) > 0 {
						si.unified[u.Target.Names[0].Value] = true
					}
				}
				if prev := pi.globals[s.Name.Value]; prev != nil && prev.kind == symSchema {
					// A schema defined twice (an error) is the last definition.
					prev.schema, prev.pos = si, s.Name.Pos()
				}
				pi.define(s.Name.Value, &symbol{kind: symSchema, pos: s.Name.Pos(), schema: si})
			case *syntax.RuleStmt:
				if s.Name == nil {
					continue
				}
				si := &schemaInfo{name: s.Name.Value, pkg: p, file: f, rule: s, isRule: true, attrs: map[string]bool{}}
				pi.define(s.Name.Value, &symbol{kind: symSchema, pos: s.Name.Pos(), schema: si})
			case *syntax.TypeAliasStmt:
				if s.TypeName != nil {
					pi.define(s.TypeName.Name(), &symbol{kind: symTypeAlias, pos: s.TypeName.Pos(), alias: s})
				}
			case *syntax.IfStmt:
				walk(f, s.Body)
				walk(f, s.Orelse)
			case *syntax.AugAssignStmt:
				// x op= v defines no global: without an assignment of x
				// it names an undefined variable.
			default:
				for _, n := range bodyNames([]syntax.Stmt{s}, nil) {
					pi.define(n, &symbol{kind: symVariable, pos: s.Pos()})
				}
			}
		}
	}
	for _, f := range p.Files {
		walk(f, f.Body)
	}
	return pi
}

// checkInheritance links schemas to their parents, mixins and protocols.
func (r *resolver) checkInheritance() {
	for _, pi := range r.infos {
		if pi.cached {
			continue
		}
		for _, sym := range pi.globals {
			if sym.kind != symSchema {
				continue
			}
			si := sym.schema
			// Only what the official resolver accepts is linked: a schema
			// (not a mixin or protocol) as parent, mixins as mixins, a
			// protocol as the host of a mixin.
			if si.stmt != nil {
				if p := r.schemaByIdent(pi, si.stmt.ParentName); p != nil && p.isPlainSchema() {
					si.parent = p
				}
				if p := r.schemaByIdent(pi, si.stmt.ForHostName); p != nil && p.isProtocol() && si.isMixin {
					si.protocol = p
				}
				for _, m := range si.stmt.Mixins {
					if ms := r.schemaByIdent(pi, m); ms != nil && ms.isMixin && !ms.isProtocol() {
						si.mixins = append(si.mixins, ms)
					}
				}
			} else if si.rule != nil {
				if p := r.schemaByIdent(pi, si.rule.ForHostName); p != nil && p.isProtocol() {
					si.protocol = p
				}
			}
		}
	}
	r.findCycles()
	// Break inheritance cycles so that walks up the chain end.
	for _, pi := range r.infos {
		if pi.cached {
			continue
		}
		for _, sym := range pi.globals {
			if sym.kind == symSchema {
				breakCycle(sym.schema)
			}
		}
	}
}

func breakCycle(s *schemaInfo) {
	seen := map[*schemaInfo]bool{}
	for cur := s; cur != nil; cur = cur.parent {
		if seen[cur.parent] {
			cur.parent = nil
			return
		}
		seen[cur] = true
	}
}

// schemaByIdent finds the schema a (possibly package-qualified) name denotes.
func (r *resolver) schemaByIdent(pi *pkgInfo, id *syntax.Identifier) *schemaInfo {
	if id == nil || len(id.Names) == 0 {
		return nil
	}
	sym := pi.globals[id.Names[0].Value]
	for _, n := range id.Names[1:] {
		if sym == nil || sym.kind != symModule || sym.module == nil {
			return nil
		}
		target := r.infos[sym.module.Path]
		if target == nil {
			return nil
		}
		sym = target.globals[n.Value]
	}
	if sym == nil || sym.kind != symSchema {
		return nil
	}
	return sym.schema
}

func (r *resolver) checkBodies(p *Package) {
	r.checkGlobals(p)
	r.checkSchemaTypes(p)
	r.pkg = r.infos[p.Path]
	r.assigned = map[string]syntax.Position{}
	r.varTypes = map[string]*typ{}
	r.assignCount = map[string]int{}
	r.lambdaResults = map[string]*typ{}
	var count func(stmts []syntax.Stmt)
	count = func(stmts []syntax.Stmt) {
		for _, s := range stmts {
			if is, ok := s.(*syntax.IfStmt); ok {
				count(is.Body)
				count(is.Orelse)
				continue
			}
			if _, aug := s.(*syntax.AugAssignStmt); aug {
				continue // x op= v keeps the type of x
			}
			for _, n := range bodyNames([]syntax.Stmt{s}, nil) {
				r.assignCount[n]++
			}
		}
	}
	for _, f := range p.Files {
		count(f.Body)
	}
	r.globalLambdas = map[string]*syntax.LambdaExpr{}
	r.walkedLambdas = map[string]bool{}
	r.lambdaBodyTypes = map[*syntax.LambdaExpr]*typ{}
	for _, f := range p.Files {
		for _, st := range f.Body {
			as, ok := st.(*syntax.AssignStmt)
			if !ok || len(as.Targets) != 1 || as.Targets[0] == nil || as.Targets[0].Name == nil || len(as.Targets[0].Paths) > 0 {
				continue
			}
			if lam, ok := as.Value.(*syntax.LambdaExpr); ok && r.assignCount[as.Targets[0].Name.Value] == 1 {
				r.globalLambdas[as.Targets[0].Name.Value] = lam
			}
		}
	}
	r.prepassed = map[syntax.Type]bool{}
	for _, f := range p.Files {
		r.file = f
		r.annotationPrepass(f.Body)
	}
	for _, f := range p.Files {
		r.file = f
		r.stmts(f.Body)
	}
	r.pkg.varTypes = r.varTypes
	r.pkg.lambdaResults = r.lambdaResults
	r.pkg.lambdas = r.globalLambdas
}

func (r *resolver) stmts(stmts []syntax.Stmt) {
	for _, s := range stmts {
		r.stmt(s)
	}
}

func (r *resolver) stmt(s syntax.Stmt) {
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
	case *syntax.TypeAliasStmt:
		r.annotation(s.Ty)
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
			if want, decl := r.attrType(r.schema, s.Name.Value); decl == s {
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
func (r *resolver) defineLambdaLocal(name string) {
	if r.local != nil && r.local.lambda {
		r.local.define(name)
	}
}

// lambdaLocalValue records the lambda a local of a lambda body is first
// assigned: its calls are checked against its parameters.
func (r *resolver) lambdaLocalValue(s *syntax.AssignStmt) {
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

func (r *resolver) target(t *syntax.Target) {
	if t == nil {
		return
	}
	for _, p := range t.Paths {
		if p.Index != nil {
			r.expr(p.Index)
		}
	}
}

func (r *resolver) lookupSchema(name *syntax.Name) *schemaInfo {
	if name == nil {
		return nil
	}
	if sym := r.pkg.globals[name.Value]; sym != nil && sym.kind == symSchema {
		return sym.schema
	}
	return nil
}

func (r *resolver) schemaStmt(s *syntax.SchemaStmt) {
	if r.local == nil && s.Name != nil {
		r.uniqueKey(s.Name)
	}
	si := r.lookupSchema(s.Name)
	if si == nil || si.stmt != s {
		return
	}
	prevLocal, prevSchema := r.local, r.schema
	sc := &scope{parent: r.local}
	r.arguments(s.Args, sc)
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
		r.expr(c.Test)
		r.expr(c.IfCond)
		r.expr(c.Msg)
	}
	r.local, r.schema = prevLocal, prevSchema
}

func (r *resolver) ruleStmt(s *syntax.RuleStmt) {
	si := r.lookupSchema(s.Name)
	if si == nil || si.rule != s {
		return
	}
	for _, p := range s.ParentRules {
		r.ident(p)
	}
	if s.ForHostName != nil {
		r.ident(s.ForHostName)
	}
	prevLocal, prevSchema := r.local, r.schema
	sc := &scope{parent: r.local}
	r.arguments(s.Args, sc)
	r.local, r.schema = sc, si
	for _, c := range s.Checks {
		r.expr(c.Test)
		r.expr(c.IfCond)
		r.expr(c.Msg)
	}
	r.local, r.schema = prevLocal, prevSchema
}

// arguments checks parameter types and defaults in the enclosing scope and
// defines the parameters in sc.
func (r *resolver) arguments(args *syntax.Arguments, sc *scope) {
	if args == nil {
		return
	}
	for i, a := range args.Args {
		if i < len(args.TyList) {
			r.annotation(args.TyList[i])
		}
		if i < len(args.Defaults) {
			r.expr(args.Defaults[i])
		}
		if a != nil && len(a.Names) > 0 {
			sc.define(a.Names[0].Value)
		}
	}
}

// argumentTypes gives a lambda's annotated parameters their types in its
// body, where the official resolver checks their uses and reassignments.
func (r *resolver) argumentTypes(args *syntax.Arguments, sc *scope) {
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

func (r *resolver) typ(t syntax.Type) {
	switch t := t.(type) {
	case *syntax.NamedType:
		if t.Identifier != nil {
			r.typeName(t.Identifier)
		}
	case *syntax.ListType:
		r.typ(t.InnerType)
	case *syntax.DictType:
		r.typ(t.KeyType)
		r.typ(t.ValueType)
	case *syntax.UnionType:
		for _, e := range t.TypeElements {
			r.typ(e)
		}
	case *syntax.FunctionType:
		for _, p := range t.ParamsTy {
			r.typ(p)
		}
		r.typ(t.RetTy)
	}
}

// annotation checks a type annotation. The official resolver reports an
// undefined name in one at the annotation's start: `x: [Nope]` at `[`. The
// annotations its global pass resolves are reported by annotationPrepass,
// before any statement is walked, and not again.
func (r *resolver) annotation(t syntax.Type) {
	if t == nil {
		return
	}
	if !r.prepassed[t] {
		r.typeAtStart(t)
	}
}

// typeAtStart reports the undefined names of t at t's start.
func (r *resolver) typeAtStart(t syntax.Type) {
	if t == nil {
		return
	}
	p := t.Pos()
	r.typeAt = &p
	r.typ(t)
	r.typeAt = nil
}

// annotationPrepass is the official global pass over the annotations of a
// package: of top-level assignments (in top-level ifs too), type aliases,
// schema and rule parameters, index signatures and schema attributes. An
// undefined name in one of them comes before every other error.
func (r *resolver) annotationPrepass(stmts []syntax.Stmt) {
	markAt := func(t syntax.Type, p syntax.Position) {
		if t != nil {
			r.prepassed[t] = true
			r.typeAt = &p
			r.typ(t)
			r.typeAt = nil
		}
	}
	mark := func(t syntax.Type) {
		if t != nil {
			markAt(t, t.Pos())
		}
	}
	// A schema's or rule's parameter is reported at its name.
	args := func(a *syntax.Arguments) {
		if a == nil {
			return
		}
		for i, t := range a.TyList {
			if t != nil && i < len(a.Args) && a.Args[i] != nil {
				markAt(t, a.Args[i].Pos())
			}
		}
	}
	for _, st := range stmts {
		switch s := st.(type) {
		case *syntax.AssignStmt:
			mark(s.Ty)
		case *syntax.IfStmt:
			r.annotationPrepass(s.Body)
			r.annotationPrepass(s.Orelse)
		case *syntax.TypeAliasStmt:
			if s.TypeName != nil && s.Ty != nil {
				markAt(s.Ty, s.TypeName.Pos()) // at the alias's name
			}
		case *syntax.RuleStmt:
			args(s.Args)
		case *syntax.SchemaStmt:
			args(s.Args)
			if sig := s.IndexSignature; sig != nil {
				mark(sig.KeyTy)
				mark(sig.ValueTy)
			}
			for _, b := range s.Body {
				if a, ok := b.(*syntax.SchemaAttr); ok {
					mark(a.Ty)
				}
			}
		}
	}
}

// typeName checks the name of a schema or type alias used as a type.
func (r *resolver) typeName(id *syntax.Identifier) {
	if len(id.Names) == 0 {
		return
	}
	first := id.Names[0].Value
	if len(id.Names) == 1 {
		if r.pkg.globals[first] != nil || builtinSet[first] || r.localHas(first) {
			return
		}
		pos := id.Pos()
		if r.typeAt != nil {
			pos = *r.typeAt
		}
		r.undefined(id.Names[0].Value, pos)
		return
	}
	// A qualified type: the member must exist in a user module.
	sym := r.pkg.globals[first]
	if sym == nil && r.localHas(first) {
		return
	}
	if sym == nil {
		r.undefined(first, id.Pos())
		return
	}
	if sym.system != "" {
		// System modules also export types (units.NumberMultiplier); a
		// name they do not have at all is the official TypeError.
		member := id.Names[1].Value
		if len(id.Names) == 2 && !systemMembers[sym.system][member] && !(sym.system == "units" && member == "NumberMultiplier") {
			pos := id.Pos()
			if r.typeAt != nil {
				pos = *r.typeAt
			}
			r.report(KindType, pos, "attribute '%s' not found in 'module '%s''", member, sym.system)
		}
		return
	}
	r.moduleMembers(sym, id)
}

// loopVar reports that name is a comprehension or quantifier variable.
func (r *resolver) loopVar(name string) bool { return r.loopVarIn(r.local, name) }

// loopVarIn is loopVar from scope from outwards.
func (r *resolver) loopVarIn(from *scope, name string) bool {
	for sc := from; sc != nil; sc = sc.parent {
		if sc.names[name] {
			return sc.loop
		}
	}
	return false
}

func (r *resolver) localHas(name string) bool {
	for sc := r.local; sc != nil; sc = sc.parent {
		if sc.names[name] {
			return true
		}
	}
	return false
}

// ident checks a loaded identifier, `a` or `a.b.c`.
func (r *resolver) ident(id *syntax.Identifier) {
	if id == nil || len(id.Names) == 0 || id.Ctx == syntax.Store {
		return
	}
	first := id.Names[0].Value
	// A parent's undeclared body names are locals of its body: the official
	// resolver does not see them in a child's.
	if r.localHas(first) || (r.schema != nil && r.schema.hasDeclared(first)) {
		if len(id.Names) > 1 {
			r.attrPath(r.nameType(first), id, true)
		}
		return
	}
	sym := r.pkg.globals[first]
	if sym == nil {
		if builtinSet[first] {
			return
		}
		if s := r.schema; s != nil {
			// Mixins and rules keep some dynamic lookups: a lower-case
			// name in a mixin may be an attribute of its host.
			if s.isRule || (s.isMixin && !startsUpper(first)) {
				return
			}
		}
		r.undefined(first, id.Pos())
		return
	}
	if len(id.Names) > 1 {
		if sym.kind == symModule {
			r.moduleMembers(sym, id)
			if len(id.Names) > 2 && sym.module != nil {
				// pkg.value.member: the member of the value's type.
				if target := r.infos[sym.module.Path]; target != nil && target.varTypes[id.Names[1].Value] != nil {
					rest := &syntax.Identifier{Span: id.Span, Names: id.Names[1:], Ctx: id.Ctx}
					r.attrPath(target.varTypes[id.Names[1].Value], rest, true)
				}
			}
			return
		}
		r.attrPath(r.nameType(first), id, true)
	}
}

func startsUpper(s string) bool { return s != "" && s[0] >= 'A' && s[0] <= 'Z' }

// moduleMembers checks the member of `mod.member` when mod is a module.
func (r *resolver) moduleMembers(sym *symbol, id *syntax.Identifier) {
	if sym.kind != symModule || len(id.Names) < 2 {
		return
	}
	member := id.Names[1].Value
	var modName string
	switch {
	case sym.module != nil:
		target := r.infos[sym.module.Path]
		if target == nil || target.globals[member] != nil {
			return
		}
		modName = sym.module.Path
	case sym.system != "":
		if systemMembers[sym.system][member] {
			return
		}
		modName = sym.system
	default:
		return // plugin
	}
	r.report(KindType, id.Pos(), "attribute '%s' not found in 'module '%s''", member, modName)
}

// undefined reports a name that no scope defines, with suggestions.
func (r *resolver) undefined(name string, pos syntax.Position) {
	cands := append([]string(nil), builtinNames...)
	cands = append(cands, r.pkg.order...)
	var locals [][]string
	for sc := r.local; sc != nil; sc = sc.parent {
		locals = append(locals, sc.order)
	}
	for i := len(locals) - 1; i >= 0; i-- {
		cands = append(cands, locals[i]...)
	}
	r.report(KindCompile, pos, "name '%s' is not defined%s", strings.ReplaceAll(name, "@", ""), suggestionText(suggestions(name, cands)))
}

func (r *resolver) exprs(es []syntax.Expr) {
	for _, e := range es {
		r.expr(e)
	}
}

func (r *resolver) expr(e syntax.Expr) {
	if e == nil {
		return
	}
	r.depth++
	defer func() { r.depth-- }()
	if r.depth > maxDepth {
		return
	}
	switch e := e.(type) {
	case *syntax.Identifier:
		r.ident(e)
	case *syntax.UnaryExpr:
		r.expr(e.Operand)
		r.unary(e)
	case *syntax.BinaryExpr:
		r.expr(e.Left)
		r.expr(e.Right)
		r.binary(e)
	case *syntax.IfExpr:
		r.expr(e.Cond)
		r.expr(e.Body)
		r.expr(e.Orelse)
	case *syntax.SelectorExpr:
		r.expr(e.Value)
		r.constantAttr(e)
		r.valueAttr(e)
	case *syntax.CallExpr:
		r.expr(e.Func)
		id, _ := e.Func.(*syntax.Identifier)
		if sig, ok := r.callSignature(id); ok {
			r.callArguments(id, sig, e.Args, e.Keywords, true)
		} else {
			r.exprs(e.Args)
			for _, k := range e.Keywords {
				r.expr(k.Value)
			}
		}
		r.strMethodCall(e)
		r.builtinArguments(e)
		r.callable(e)
	case *syntax.ParenExpr:
		r.expr(e.Expr)
	case *syntax.QuantExpr:
		r.expr(e.Target)
		r.iterable(e.Target)
		r.loopVariables(e.Variables, false)
		r.withScope(func(sc *scope) {
			sc.loop = true
			// Typed as they iterate, as a comprehension's (the official
			// walk_quant_expr runs do_loop_type_check).
			r.compClauseTargets(&syntax.CompClause{Targets: e.Variables, Iter: e.Target}, sc)
			r.expr(e.IfCond)
			r.expr(e.Test)
		})
	case *syntax.ListExpr:
		// Each item is a place of its own: a typed target's checks of
		// an item's literal come before the next item's walk.
		for _, el := range e.Elts {
			if el == nil {
				continue
			}
			r.pushOrder(el.Pos(), phaseValue)
			r.expr(el)
			r.popOrder()
		}
	case *syntax.ListIfItemExpr:
		r.expr(e.IfCond)
		r.exprs(e.Exprs)
		r.expr(e.Orelse)
	case *syntax.StarredExpr:
		r.expr(e.Value)
	case *syntax.ListComp:
		r.withScope(func(sc *scope) {
			r.generators(e.Generators, sc)
			r.expr(e.Elt)
		})
		if _, ok := e.Elt.(*syntax.StarredExpr); ok {
			r.report(KindCompile, e.Elt.Pos(), "list unpacking cannot be used in list comprehension")
		}
	case *syntax.DictComp:
		r.withScope(func(sc *scope) {
			r.generators(e.Generators, sc)
			if e.Entry != nil {
				r.expr(e.Entry.Key)
				// The key must be a string (the official check_attr_ty,
				// before the value is walked), its loop variables typed as
				// they iterate.
				if e.Entry.Key != nil {
					if t := r.exprType(e, 0); t.kind == tDict && !t.key.isAny() && !t.key.isStrKind() && !(t.key.kind == tUnion && allStr(t.key.elems)) {
						r.report(KindIllegalAttribute, e.Entry.Key.Pos(), "A attribute must be string type, got '%s'", t.key)
					}
				}
				r.expr(e.Entry.Value)
			}
		})
		if e.Entry != nil && e.Entry.Key == nil && e.Entry.Value != nil {
			r.report(KindCompile, e.Entry.Value.Pos(), "dict unpacking cannot be used in dict comprehension")
		}
	case *syntax.ConfigIfEntryExpr:
		// Each condition is met in its place among the branches' entries.
		if e.IfCond != nil {
			r.pushOrder(e.IfCond.Pos(), phaseKey)
			r.expr(e.IfCond)
			r.popOrder()
		}
		r.configEntries(e.Items, false)
		r.expr(e.Orelse)
	case *syntax.SchemaExpr:
		if e.Name != nil {
			r.ident(e.Name)
		}
		start := len(r.diags)
		// The official walk judges a schema config entry's type before
		// its += or ** value: those checks wait for checkSchemaConfig.
		cfg, _ := e.Config.(*syntax.ConfigExpr)
		prev := r.deferEntries
		r.deferEntries = cfg
		r.expr(e.Config)
		r.deferEntries = prev
		r.checkSchemaConfig(e)
		if cfg != nil {
			for _, it := range cfg.Items {
				if it != nil {
					r.pushOrder(entryPos(it), phaseAfter)
					r.entryValue(it)
					r.popOrder()
				}
			}
		}
		if cfg, ok := e.Config.(*syntax.ConfigExpr); ok && e.Name != nil && !r.shadowed(e.Name) {
			if si := r.schemaByIdent(r.pkg, e.Name); si != nil {
				r.configKeys(si, cfg, 0)
			} else if t := r.identType(e.Name); t.kind == tDict {
				// `d {k = v}` of a dict: its config is walked with d's type
				// as the context (the official walk_schema_expr).
				r.ctxConfig(t, cfg.Items, nil, 0)
			} else if invalidSchemaType(t) {
				r.report(KindCompile, e.Name.Pos(), "Invalid schema type '%s'", t)
			}
		}
		// The official walk checks the arguments after the config, each
		// walked then judged.
		r.pushLast()
		r.schemaArguments(e.Name, e.Args, e.Kwargs)
		r.popOrder()
		r.sortFrom(start)
	case *syntax.ConfigExpr:
		r.withScope(func(sc *scope) {
			// Keys are visible to the config's values (the official
			// resolver binds them as it goes; binding them first only
			// accepts more).
			sc.config = true
			defineConfigKeys(e.Items, sc)
			deferred := e == r.deferEntries
			r.deferEntries = nil
			r.configEntries(e.Items, deferred)
		})
	case *syntax.CheckExpr:
		r.expr(e.Test)
		r.expr(e.IfCond)
		r.expr(e.Msg)
	case *syntax.LambdaExpr:
		r.parameters(e.Args)
		r.withScope(func(sc *scope) {
			sc.lambda = true
			r.arguments(e.Args, sc)
			r.argumentTypes(e.Args, sc)
			// The body's names are defined as its statements are walked
			// (see defineLambdaLocal).
			if e.ReturnTy != nil {
				p := r.topStmt
				r.typeAt = &p
				r.typ(e.ReturnTy)
				r.typeAt = nil
			}
			if n := len(e.Body); n > 0 {
				if last, ok := e.Body[n-1].(*syntax.IfStmt); ok {
					// The official resolver looks at the last statement first.
					r.report(KindCompile, last.Pos(), "The last statement of the lambda body must be a expression e.g., x, 1, etc.")
				}
			}
			r.stmts(e.Body)
			r.lambdaBodyTypes[e] = r.lambdaBodyType(e)
			// The value of the body's last expression is the result.
			if n := len(e.Body); n > 0 && e.ReturnTy != nil {
				if as, ok := e.Body[n-1].(*syntax.AssignStmt); ok && as.Value != nil {
					// A body ending in an assignment has the assigned value.
					if want := r.fromSyntax(r.pkg, e.ReturnTy, 0); !want.isAny() {
						r.mustAssignAt(r.exprType(as.Value, 0), want, r.topStmt, nil)
					}
				}
				// The result's config entries first, then the whole value.
				start := len(r.diags)
				if es, ok := e.Body[n-1].(*syntax.ExprStmt); ok && len(es.Exprs) == 1 {
					r.schemaValue(r.fromSyntax(r.pkg, e.ReturnTy, 0), es.Exprs[0])
				}
				if es, ok := e.Body[n-1].(*syntax.ExprStmt); ok && len(es.Exprs) > 0 {
					// The result must fit the return type (the official
					// upgrade_type_for_expr), its config literals checked
					// under it.
					v := es.Exprs[len(es.Exprs)-1]
					want := r.fromSyntax(r.pkg, e.ReturnTy, 0)
					if !want.isAny() {
						if want.kind != tSchema {
							vp := v.Pos()
							r.ctxCheck(want, v, &vp, 0)
						}
						tp := e.ReturnTy.Pos()
						r.pushLast()
						r.mustAssignAt(r.exprType(v, 0), want, v.Pos(), &tp)
						r.popOrder()
					}
				}
				r.sortFrom(start)
			}
		})
	case *syntax.Subscript:
		r.expr(e.Value)
		r.expr(e.Index)
		r.expr(e.Lower)
		r.expr(e.Upper)
		r.expr(e.Step)
		if e.Ctx != syntax.Store {
			r.subscript(e)
		}
	case *syntax.Keyword:
		r.expr(e.Value)
	case *syntax.Compare:
		r.expr(e.Left)
		r.exprs(e.Comparators)
		r.compare(e)
	case *syntax.JoinedString:
		r.exprs(e.Values)
	case *syntax.FormattedValue:
		r.expr(e.Value)
	}
}

func (r *resolver) withScope(f func(sc *scope)) {
	prev := r.local
	sc := &scope{parent: prev}
	r.local = sc
	f(sc)
	r.local = prev
}

func (r *resolver) generators(gens []*syntax.CompClause, sc *scope) {
	sc.loop = true
	for _, g := range gens {
		if g == nil {
			continue
		}
		r.expr(g.Iter)
		r.iterable(g.Iter)
		r.loopVariables(g.Targets, true)
		// Typed as they iterate, for the clause's own ifs and the body.
		r.compClauseTargets(g, sc)
		r.exprs(g.Ifs)
	}
}

func defineConfigKeys(items []*syntax.ConfigEntry, sc *scope) {
	for _, it := range items {
		if it == nil {
			continue
		}
		switch k := it.Key.(type) {
		case *syntax.Identifier:
			if len(k.Names) > 0 {
				sc.define(k.Names[0].Value)
			}
		case *syntax.StringLit:
			sc.define(k.Value)
		case nil:
			if ie, ok := it.Value.(*syntax.ConfigIfEntryExpr); ok {
				for ie != nil {
					defineConfigKeys(ie.Items, sc)
					switch o := ie.Orelse.(type) {
					case *syntax.ConfigIfEntryExpr:
						ie = o
						continue
					case *syntax.ConfigExpr:
						defineConfigKeys(o.Items, sc)
					}
					ie = nil
				}
			}
		}
	}
}

func (r *resolver) configEntries(items []*syntax.ConfigEntry, deferred bool) {
	for _, it := range items {
		if it == nil {
			continue
		}
		pos := entryPos(it)
		r.pushOrder(pos, phaseKey)
		switch k := it.Key.(type) {
		case *syntax.Identifier, *syntax.StringLit, nil:
		case *syntax.Subscript:
			// `arr[0] = v` edits the list attribute arr; any other
			// subscript key is an expression.
			if !numberIndex(k.Index) {
				r.expr(k)
			}
		default:
			r.expr(k)
		}
		r.popOrder()
		r.pushOrder(pos, phaseValue)
		r.expr(it.Value)
		r.popOrder()
		if sc := r.local; sc != nil && sc.config {
			// The key now names this value's type.
			switch k := it.Key.(type) {
			case *syntax.Identifier:
				if len(k.Names) == 1 {
					sc.setType(k.Names[0].Value, r.exprType(it.Value, 0))
				}
			case *syntax.StringLit:
				sc.setType(k.Value, r.exprType(it.Value, 0))
			}
		}
		loopKey := false
		if id, ok := it.Key.(*syntax.Identifier); ok && len(id.Names) == 1 {
			// A comprehension's loop variable as a key is its value (the
			// config's own scope, which defines its keys, is skipped).
			loopKey = r.local != nil && r.loopVarIn(r.local.parent, id.Names[0].Value)
		}
		literalKey := !loopKey
		switch it.Key.(type) {
		case *syntax.Identifier:
		case *syntax.StringLit, *syntax.Subscript, nil:
			literalKey = true
		default:
			literalKey = false
		}
		if !literalKey {
			// The key's type is judged after the value is walked (a loop
			// variable's after the value's check against the context).
			phase := phaseType
			if loopKey {
				phase = phaseAfter
			}
			r.pushOrder(pos, phase)
			var t *typ
			if loopKey {
				saved := r.local
				r.local = r.local.parent
				t = r.exprType(it.Key, 0)
				r.local = saved
			} else {
				t = r.exprType(it.Key, 0)
			}
			if !t.isAny() && !t.isStrKind() && !(t.kind == tUnion && allStr(t.elems)) {
				r.report(KindIllegalAttribute, it.Key.Pos(), "A attribute must be string type, got '%s'", t)
			}
			r.popOrder()
		}
		if !deferred {
			r.pushOrder(pos, phaseAfter)
			r.entryValue(it)
			r.popOrder()
		}
	}
}

// entryValue reports what the official config walk refuses of an entry's
// value: `**v` of something other than a dict or schema, `k += v` of
// something other than a list (a conditional list included).
func (r *resolver) entryValue(it *syntax.ConfigEntry) {
	if it.Key == nil {
		if _, ok := it.Value.(*syntax.ConfigIfEntryExpr); ok {
			return
		}
		t := r.exprType(it.Value, 0)
		bad := t.concrete() && t.kind != tDict && t.kind != tNone
		if t.kind == tUnion {
			// A union unpacks when every member is a dict or a schema.
			for _, e := range t.elems {
				if e.kind != tDict && e.kind != tSchema && !e.isAny() {
					bad = true
				}
			}
		}
		if bad {
			r.report(KindCompile, it.Value.Pos(), "only dict and schema can be used ** unpack, got '%s'", t)
		}
		return
	}
	if it.Operation != syntax.OpInsert {
		return
	}
	// The value itself, a dotted key (a.b += [1]) included.
	t := r.exprType(it.Value, 0)
	if !t.isAny() && t.kind != tList {
		r.report(KindIllegalAttribute, it.Value.Pos(), "only list type can in inserted, got '%s'", t)
	}
}

// loopVariables reports loop targets that are not plain names, and a third
// one; a comprehension locates that at the end of the second target.
func (r *resolver) loopVariables(targets []*syntax.Identifier, comp bool) {
	for i, t := range targets {
		if t == nil || len(t.Names) == 0 {
			continue
		}
		if len(t.Names) > 1 {
			r.report(KindCompile, t.Pos(), "loop variables can only be ordinary identifiers")
		}
		if i >= 2 {
			pos := t.Pos()
			if comp && targets[i-1] != nil {
				pos = targets[i-1].End()
			}
			r.report(KindCompile, pos, "the number of loop variables is %d, which can only be 1 or 2", len(targets))
			return
		}
	}
}

// KindIllegalAttribute is the kind of a config key that is not a string.
const KindIllegalAttribute = "IllegalAttributeError"

func allStr(ts []*typ) bool {
	for _, t := range ts {
		if !t.isStrKind() {
			return false
		}
	}
	return true
}

// valueAttr reports an attribute of an expression whose type has no
// members (an int, a bool, a float, a list, a unit value), such as
// `(a + b).startswith(...)`, as the official load_attr does (`?.`
// included). Constants are constantAttr's.
func (r *resolver) valueAttr(e *syntax.SelectorExpr) {
	if e.Attr == nil || len(e.Attr.Names) == 0 {
		return
	}
	if _, ok := e.Value.(*syntax.NameConstantLit); ok {
		return
	}
	switch t := r.exprType(e.Value, 0); t.kind {
	case tNumMul, tBool, tInt, tFloat, tLitBool, tLitInt, tLitFloat, tList:
		r.report(KindType, e.Attr.Pos(), "attribute '%s' not found in '%s'", e.Attr.Names[0].Value, t)
	case tStr, tLitStr:
		if strMethodResults[e.Attr.Names[0].Value] == nil {
			r.report(KindType, e.Attr.Pos(), "attribute '%s' not found in '%s'", e.Attr.Names[0].Value, t)
		}
	case tSchema:
		// A member of a schema-typed value (a call of a lambda whose body
		// ends in an instance), as a name's: at the attribute.
		r.attrPath(t, &syntax.Identifier{Span: e.Attr.Span, Names: append([]*syntax.Name{nil}, e.Attr.Names...)}, true)
	case tNone:
		// A value typed None (a lambda whose body ends in None), `?.` too.
		r.report(KindType, e.Attr.Pos(), "attribute '%s' not found in 'NoneType'", e.Attr.Names[0].Value)
	}
}

// constantAttr reports an attribute read from a literal constant (None.x,
// True.x), which the official resolver types and refuses, `?.` included.
func (r *resolver) constantAttr(e *syntax.SelectorExpr) {
	c, ok := e.Value.(*syntax.NameConstantLit)
	if !ok || e.Attr == nil || len(e.Attr.Names) == 0 {
		return
	}
	var in string
	switch c.Value {
	case syntax.None, syntax.Undefined:
		in = "NoneType"
	case syntax.True:
		in = "bool(True)"
	case syntax.False:
		in = "bool(False)"
	default:
		return
	}
	r.report(KindType, e.Attr.Pos(), "attribute '%s' not found in '%s'", e.Attr.Names[0].Value, in)
}

// iterable reports a comprehension over a value whose type cannot be
// iterated (None, a bool or a number), as the official resolver does.
func (r *resolver) iterable(e syntax.Expr) {
	if e == nil {
		return
	}
	t := r.exprType(e, 0)
	members := []*typ{t}
	if t.kind == tUnion {
		// Each member of a union is judged, as the official loop check.
		members = t.elems
	}
	for _, m := range members {
		switch m.kind {
		case tNone, tBool, tInt, tFloat, tLitBool, tLitInt, tLitFloat, tNumMul:
			r.report(KindCompile, e.Pos(), "'%s' object is not iterable", m)
		}
	}
}

// callable reports a call of a value the official resolver knows cannot be
// called: a str, number, bool, list, dict, None or schema instance.
func (r *resolver) callable(e *syntax.CallExpr) {
	switch t := r.exprType(e.Func, 0); t.kind {
	case tStr, tLitStr, tInt, tLitInt, tFloat, tLitFloat, tBool, tLitBool, tList, tDict, tNone:
		r.report(KindCompile, e.Func.Pos(), "'%s' object is not callable", t)
	case tSchema:
		if t.instance {
			r.report(KindCompile, e.Func.Pos(), "schema '%s' instance is not callable", t.schema.name)
		}
	}
}

// subscript reports what the official resolver refuses of x[i]: indexing
// anything but a list, dict, str or schema (a union of them too), `?[`
// of None, a dict or schema key that is not a str, a slice of a dict, a
// list or str index that is a str or float.
func (r *resolver) subscript(e *syntax.Subscript) {
	t := r.exprType(e.Value, 0)
	switch t.kind {
	case tNone:
		r.report(KindCompile, e.Pos(), "'%s' object is not subscriptable", t)
		return
	case tUnion, tBool, tInt, tFloat, tLitBool, tLitInt, tLitFloat, tNumMul:
		if !e.HasQuestion && (t.kind != tUnion || !hasSchema(t)) {
			r.report(KindCompile, e.Pos(), "'%s' object is not subscriptable", t)
		}
		return
	}
	if e.Index == nil {
		if t.kind == tDict || t.kind == tSchema {
			r.report(KindCompile, e.Pos(), "unhashable type: 'slice'")
		}
		return
	}
	it := r.exprType(e.Index, 0)
	if it.isAny() || it.kind == tNone || it.kind == tUnion {
		return
	}
	switch {
	case t.kind == tDict || t.kind == tSchema:
		if !it.isStrKind() {
			r.report(KindCompile, e.Pos(), "invalid dict/schema key type: '%s'", it)
		}
	case t.kind == tList || t.isStrKind():
		if it.isStrKind() || it.kind == tFloat || it.kind == tLitFloat || it.kind == tBool || it.kind == tLitBool {
			r.report(KindType, e.Index.Pos(), "expected int, got %s", it)
		}
	}
}

// lambdaBodyType is the type of the value a lambda's body ends with (its
// last expression, or the value of its last assignment), in the body's
// scope.
func (r *resolver) lambdaBodyType(e *syntax.LambdaExpr) *typ {
	n := len(e.Body)
	if n == 0 {
		return anyT
	}
	switch last := e.Body[n-1].(type) {
	case *syntax.ExprStmt:
		if len(last.Exprs) > 0 {
			return r.exprType(last.Exprs[len(last.Exprs)-1], 0)
		}
	case *syntax.AssignStmt:
		if last.Value != nil {
			return r.exprType(last.Value, 0)
		}
	}
	return anyT
}

// invalidSchemaType reports a type `name {...}` cannot be made from: no
// schema, no dict (a list, a string, a number, a bool).
func invalidSchemaType(t *typ) bool {
	switch t.kind {
	case tList, tStr, tInt, tFloat, tBool, tLitStr, tLitInt, tLitFloat, tLitBool:
		return true
	}
	return false
}
