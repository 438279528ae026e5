package check

import (
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
)

func (s *schemaInfo) isProtocol() bool { return s.stmt != nil && s.stmt.IsProtocol }

// isPlainSchema reports a schema that may be inherited from.
func (s *schemaInfo) isPlainSchema() bool { return s.stmt != nil && !s.isMixin && !s.stmt.IsProtocol }

// fullName is a schema's name as the official engine prints it in
// inheritance errors: qualified by its package outside the main one.
func (s *schemaInfo) fullName() string {
	if s.pkg == nil || s.pkg.Path == "__main__" {
		return s.name
	}
	return s.pkg.Path + "." + s.name
}

// findCycles records, before they are broken, the inheritance cycles of
// freshly declared packages, each from its first declared schema.
func (r *checker) findCycles() {
	var paths []string
	for path, pi := range r.infos {
		if !pi.cached {
			paths = append(paths, path)
		}
	}
	sortStrings(paths)
	inCycle := map[*schemaInfo]bool{}
	for _, path := range paths {
		pi := r.infos[path]
		for _, name := range pi.order {
			sym := pi.globals[name]
			if sym.kind != symSchema || inCycle[sym.schema] {
				continue
			}
			start := sym.schema
			var chain []*schemaInfo
			found := false
			for cur, n := start.parent, 0; cur != nil && n < 1000; cur, n = cur.parent, n+1 {
				if cur == start {
					found = true
					break
				}
				chain = append(chain, cur)
			}
			if !found {
				continue
			}
			cycle := append([]*schemaInfo{start}, chain...)
			for _, c := range cycle {
				inCycle[c] = true
			}
			pi.cycles = append(pi.cycles, cycle)
		}
	}
}

// checkSchemaTypes reports what the official resolver finds while it builds
// a package's schema types: inheritance cycles, and attributes a subclass
// redeclares with a type the base's does not admit or as optional when the
// base requires them.
func (r *checker) checkSchemaTypes(p *Package) {
	pi := r.infos[p.Path]
	r.pkg = pi
	for _, name := range pi.order {
		sym := pi.globals[name]
		if sym.kind == symSchema && sym.schema.rule != nil {
			// The official build of a rule type: its host, its parent
			// rules, its parameters.
			rs := sym.schema.rule
			if rs.ForHostName != nil {
				if r.ident(rs.ForHostName); sym.schema.protocol == nil {
					r.report(errkind.IllegalInherit, rs.ForHostName.Pos(), "invalid schema inherit object type, expect protocol, got '%s'", r.identTypeString(rs.ForHostName))
				}
			}
			r.reservedTypeName("rule", rs.Name)
			for _, p := range rs.ParentRules {
				r.ident(p)
				if ps := r.schemaByIdent(pi, p); ps == nil || !ps.isRule {
					r.report(errkind.IllegalInherit, p.Pos(), "illegal rule type '%s'", r.identTypeString(p))
				} else {
					r.ruleParent(sym.schema, ps)
				}
			}
			r.paramAnnotations(rs.Args, nil)
			r.decorators(rs.Decorators)
			continue
		}
		if sym.kind != symSchema || sym.schema.stmt == nil {
			continue
		}
		si := sym.schema
		st := si.stmt
		r.reservedTypeName("schema", st.Name)
		if st.IsProtocol && st.Name != nil && !strings.HasSuffix(st.Name.Value, "Protocol") {
			// The official position is just past the name.
			pos := st.Name.Pos()
			pos.Col += len([]rune(st.Name.Value))
			pos.Offset += len(st.Name.Value)
			r.report(errkind.Compile, pos, "schema protocol name must end with 'Protocol'")
		}
		if st.IsProtocol && st.Name != nil && !onlyAttributes(st) {
			r.report(errkind.Compile, st.Name.Pos(), "a protocol is only allowed to define attributes in it")
		}
		if st.ParentName != nil {
			r.ident(st.ParentName)
			if si.parent == nil && !inCycle(pi, si) {
				r.report(errkind.IllegalInherit, st.ParentName.Pos(), "invalid schema inherit object type, expect schema, got '%s'", r.identTypeString(st.ParentName))
			}
		}
		if st.ForHostName != nil {
			if !st.IsMixin {
				r.report(errkind.IllegalInherit, st.ForHostName.Pos(), "only schema mixin can inherit from protocol")
			} else if r.ident(st.ForHostName); si.protocol == nil {
				r.report(errkind.IllegalInherit, st.ForHostName.Pos(), "invalid schema inherit object type, expect protocol, got '%s'", r.identTypeString(st.ForHostName))
			}
		}
		// The official build of the schema type: the index signature's
		// types, each attribute's type and decorators, ...
		if sig := st.IndexSignature; sig != nil {
			r.markAtStart(sig.KeyTy)
			r.markAtStart(sig.ValueTy)
		}
		for _, b := range st.Body {
			switch a := b.(type) {
			case *syntax.SchemaAttr:
				r.markAtStart(a.Ty)
				r.decorators(a.Decorators)
			case *syntax.UnificationStmt:
				// The attribute's type is the schema name, resolved as a
				// type named at the statement.
				if a.Value != nil && a.Value.Name != nil {
					r.schemaName(a.Value.Name, a.Pos())
				}
			}
		}
		r.fieldChanges(pi, si)
		for _, m := range st.Mixins {
			if m == nil || len(m.Names) == 0 {
				continue
			}
			last := m.Names[len(m.Names)-1].Value
			if !strings.HasSuffix(last, "Mixin") {
				r.report(errkind.Name, m.Pos(), "a valid mixin name should end with 'Mixin', got '%s'", last)
			}
			r.ident(m)
			if ms := r.schemaByIdent(pi, m); ms == nil || !ms.isMixin || ms.isProtocol() {
				r.report(errkind.IllegalInherit, m.Pos(), "illegal schema mixin object type, expected mixin, got '%s'", r.identTypeString(m))
			}
		}
		// ... the parameters (none named as an attribute, their types at
		// each name), the decorators.
		r.paramAnnotations(st.Args, si.attrs)
		r.decorators(st.Decorators)
	}
	for _, cycle := range pi.cycles {
		if len(cycle) == 1 {
			// schema S(S): 0.12.1 accepts the definition and fails only
			// where S is instantiated (the evaluator's schemaCycle).
			continue
		}
		names := make([]string, len(cycle))
		for i, c := range cycle {
			names[i] = c.fullName()
		}
		for _, c := range cycle {
			if c.stmt != nil && c.stmt.Name != nil {
				r.report(errkind.Compile, c.stmt.Name.Pos(), "There is a circular reference between schemas %s", strings.Join(names, ", "))
			}
		}
	}
}

func inCycle(pi *pkgInfo, s *schemaInfo) bool {
	for _, c := range pi.cycles {
		for _, m := range c {
			if m == s {
				return true
			}
		}
	}
	return false
}

// identTypeString is the official type string of a name used as a parent
// or mixin: a schema's name, an annotated global's type, else any.
func (r *checker) identTypeString(id *syntax.Identifier) string {
	if si := r.schemaByIdent(r.pkg, id); si != nil {
		return si.name
	}
	if len(id.Names) == 1 {
		if sym := r.pkg.globals[id.Names[0].Value]; sym != nil && sym.kind == symVariable {
			if t := r.annotatedGlobal(id.Names[0].Value); t != nil {
				return t.String()
			}
		}
	}
	return "any"
}

// annotatedGlobal is the annotation of a global's first annotated assignment.
func (r *checker) annotatedGlobal(name string) *typ {
	for _, f := range r.pkg.pkg.Files {
		for _, st := range f.Body {
			as, ok := st.(*syntax.AssignStmt)
			if !ok || as.Ty == nil {
				continue
			}
			for _, t := range as.Targets {
				if t != nil && t.Name != nil && t.Name.Value == name {
					return r.fromSyntax(r.pkg, as.Ty, 0)
				}
			}
		}
	}
	return nil
}

// fieldChanges is the official global pass over a schema's attribute
// declarations, statement by statement: the first declaration of a name in
// the body gives the attribute its type (and, without a base's, its
// optionality); a later one, or one the base's type does not admit, may not
// change the type ("from" the first one's), nor make a required attribute
// optional; then the declaration must meet the schema's own index signature.
func (r *checker) fieldChanges(pi *pkgInfo, si *schemaInfo) {
	type first struct {
		ty       *typ
		optional bool
	}
	firsts := map[string]first{}
	for _, b := range si.stmt.Body {
		a, ok := b.(*syntax.SchemaAttr)
		if !ok || a.Name == nil {
			continue
		}
		name := a.Name.Value
		t := anyT
		if a.Ty != nil {
			t = r.fromSyntax(pi, a.Ty, 0)
		}
		var base *syntax.SchemaAttr
		var baseType *typ
		if si.parent != nil {
			var owner *schemaInfo
			if base, owner = si.parent.attrDecl(name); base != nil && base.Ty != nil {
				baseType = r.fromSyntax(r.infos[owner.pkg.Path], base.Ty, 0)
			}
		}
		f, seen := firsts[name]
		if !seen {
			f = first{ty: t, optional: a.IsOptional}
			if base != nil {
				f.optional = base.IsOptional
			}
			firsts[name] = f
		}
		if a.Ty != nil && (!fieldSubtype(t, f.ty) || baseType != nil && !fieldSubtype(t, baseType)) {
			r.report(errkind.Type, a.Pos(), "can't change schema field type of '%s' from %s to %s", name, f.ty, t)
		}
		if a.IsOptional && !f.optional {
			r.report(errkind.Type, a.Pos(), "can't change the required schema attribute of '%s' to optional", name)
		}
		r.indexSignatureFits(pi, si, a)
	}
}

// fieldSubtype reports whether a redeclared attribute type c stays within
// the base's type p; schemas must be the same or inherit from it.
func fieldSubtype(c, p *typ) bool {
	if c.kind == tSchema && p.kind == tSchema {
		for cur, n := c.schema, 0; cur != nil && n < 1000; cur, n = cur.parent, n+1 {
			if cur == p.schema {
				return true
			}
		}
		return false
	}
	if c.kind == tSchema || p.kind == tSchema {
		return p.isAny() || c.isAny()
	}
	return assignable(c, p)
}

// decoratorParams are the official parameters of the builtin decorators
// (info takes any: see variadicFuncs).
var decoratorParams = map[string][]param{
	"deprecated": {optional("version", strT), optional("reason", strT), optional("strict", boolT)},
	"info":       {},
}

// decorators reports decorators other than the builtin ones, and walks and
// checks the arguments of those as any function's (see matchArguments).
func (r *checker) decorators(decs []*syntax.CallExpr) {
	for _, d := range decs {
		if d == nil {
			continue
		}
		id, ok := d.Func.(*syntax.Identifier)
		if !ok || len(id.Names) != 1 {
			r.report(errkind.Type, d.Pos(), "decorator name must be a single identifier")
			continue
		}
		name := id.Names[0].Value
		params, ok := decoratorParams[name]
		if !ok {
			r.report(errkind.Compile, d.Pos(), "UnKnown decorator %s", name)
			continue
		}
		r.matchArguments(id.Pos(), `"`+name+`"`, params, variadicFuncs[name], d.Args, d.Keywords, r.typedParam)
	}
}

// indexSignatureFits reports an attribute declaration a of schema si whose
// type its own index signature's value type does not admit, as the
// official global pass.
func (r *checker) indexSignatureFits(pi *pkgInfo, si *schemaInfo, a *syntax.SchemaAttr) {
	sig := si.stmt.IndexSignature
	if sig == nil || sig.AnyOther || sig.ValueTy == nil || a.Ty == nil {
		return
	}
	val := r.fromSyntax(pi, sig.ValueTy, 0)
	if val.isAny() {
		return
	}
	name := "["
	if sig.KeyName != nil {
		name += sig.KeyName.Value + ": "
	}
	sigText := name + r.fromSyntax(pi, sig.KeyTy, 0).String() + "]: " + val.String()
	if t := r.fromSyntax(pi, a.Ty, 0); !t.isAny() && !narrower(t, val, 0) {
		r.report(errkind.IndexSignature, a.Pos(), "the type '%s' of schema attribute '%s' does not meet the index signature definition %s", t, a.Name.Value, sigText)
	}
}

// checkInheritance links schemas to their parents, mixins and protocols.
func (r *checker) checkInheritance() {
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

// onlyAttributes reports a schema statement of attribute declarations only,
// with no parameters, mixins or checks: what a protocol may hold.
func onlyAttributes(st *syntax.SchemaStmt) bool {
	if st.Args != nil || len(st.Mixins) > 0 || len(st.Checks) > 0 {
		return false
	}
	for _, b := range st.Body {
		if _, ok := b.(*syntax.SchemaAttr); !ok {
			return false
		}
	}
	return true
}

// reservedTypeName reports a schema or rule named as a built-in type.
func (r *checker) reservedTypeName(kind string, name *syntax.Name) {
	if name == nil {
		return
	}
	switch name.Value {
	case "any", "int", "float", "str", "bool":
		r.report(errkind.Compile, name.Pos(), "%s name '%s' cannot be the same as the built-in types ([\"any\", \"int\", \"float\", \"str\", \"bool\"])", kind, name.Value)
	}
}
