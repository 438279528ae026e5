package resolve

import (
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
)

// Error kinds of inheritance.
const (
	KindIllegalInherit = "IllegalInheritError"
	KindIndexSignature = "IndexSignatureError"
	KindName           = "NameError"
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
func (r *resolver) findCycles() {
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
func (r *resolver) checkSchemaTypes(p *Package) {
	pi := r.infos[p.Path]
	r.pkg = pi
	for _, name := range pi.order {
		sym := pi.globals[name]
		if sym.kind != symSchema || sym.schema.stmt == nil {
			continue
		}
		si := sym.schema
		st := si.stmt
		if st.IsProtocol && st.Name != nil && !strings.HasSuffix(st.Name.Value, "Protocol") {
			// The official position is just past the name.
			pos := st.Name.Pos()
			pos.Col += len([]rune(st.Name.Value))
			pos.Offset += len(st.Name.Value)
			r.report(KindCompile, pos, "schema protocol name must end with 'Protocol'")
		}
		if st.ParentName != nil {
			r.ident(st.ParentName)
			if si.parent == nil && !inCycle(pi, si) {
				r.report(KindIllegalInherit, st.ParentName.Pos(), "invalid schema inherit object type, expect schema, got '%s'", r.identTypeString(st.ParentName))
			}
		}
		if st.ForHostName != nil {
			if !st.IsMixin {
				r.report(KindIllegalInherit, st.ForHostName.Pos(), "only schema mixin can inherit from protocol")
			} else if r.ident(st.ForHostName); si.protocol == nil {
				r.report(KindIllegalInherit, st.ForHostName.Pos(), "invalid schema inherit object type, expect protocol, got '%s'", r.identTypeString(st.ForHostName))
			}
		}
		for _, b := range st.Body {
			if a, ok := b.(*syntax.SchemaAttr); ok {
				r.decorators(a.Decorators)
			}
		}
		if si.parent != nil {
			r.fieldChanges(pi, si)
		}
		r.indexSignatureFits(pi, si)
		for _, m := range st.Mixins {
			if m == nil || len(m.Names) == 0 {
				continue
			}
			last := m.Names[len(m.Names)-1].Value
			if !strings.HasSuffix(last, "Mixin") {
				r.report(KindName, m.Pos(), "a valid mixin name should end with 'Mixin', got '%s'", last)
			}
			r.ident(m)
			if ms := r.schemaByIdent(pi, m); ms == nil || !ms.isMixin || ms.isProtocol() {
				r.report(KindIllegalInherit, m.Pos(), "illegal schema mixin object type, expected mixin, got '%s'", r.identTypeString(m))
			}
		}
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
				r.report(KindCompile, c.stmt.Name.Pos(), "There is a circular reference between schemas %s", strings.Join(names, ", "))
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
func (r *resolver) identTypeString(id *syntax.Identifier) string {
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
func (r *resolver) annotatedGlobal(name string) *typ {
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

// fieldChanges reports attributes a subclass redeclares with a type the
// base's does not admit, or as optional when the base requires them.
func (r *resolver) fieldChanges(pi *pkgInfo, si *schemaInfo) {
	for _, b := range si.stmt.Body {
		a, ok := b.(*syntax.SchemaAttr)
		if !ok || a.Name == nil {
			continue
		}
		base, owner := si.parent.attrDecl(a.Name.Value)
		if base == nil {
			continue
		}
		if a.Ty != nil && base.Ty != nil {
			child := r.fromSyntax(pi, a.Ty, 0)
			parent := r.fromSyntax(r.infos[owner.pkg.Path], base.Ty, 0)
			if !fieldSubtype(child, parent) {
				r.report(KindType, a.Pos(), "can't change schema field type of '%s' from %s to %s", a.Name.Value, child, child)
			}
		}
		if a.IsOptional && !base.IsOptional {
			r.report(KindType, a.Pos(), "can't change the required schema attribute of '%s' to optional", a.Name.Value)
		}
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

// decorators reports decorators other than the builtin ones.
func (r *resolver) decorators(decs []*syntax.CallExpr) {
	for _, d := range decs {
		if d == nil {
			continue
		}
		id, ok := d.Func.(*syntax.Identifier)
		if !ok || len(id.Names) != 1 {
			r.report(KindType, d.Pos(), "decorator name must be a single identifier")
			continue
		}
		switch id.Names[0].Value {
		case "deprecated", "info":
		default:
			r.report(KindCompile, d.Pos(), "UnKnown decorator %s", id.Names[0].Value)
		}
	}
}

// indexSignatureFits reports an attribute of a schema whose type its own
// index signature's value type does not admit, as the official global pass.
func (r *resolver) indexSignatureFits(pi *pkgInfo, si *schemaInfo) {
	sig := si.stmt.IndexSignature
	if sig == nil || sig.AnyOther || sig.ValueTy == nil {
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
	for _, b := range si.stmt.Body {
		a, ok := b.(*syntax.SchemaAttr)
		if !ok || a.Name == nil || a.Ty == nil {
			continue
		}
		if t := r.fromSyntax(pi, a.Ty, 0); !t.isAny() && !narrower(t, val, 0) {
			r.report(KindIndexSignature, a.Pos(), "the type '%s' of schema attribute '%s' does not meet the index signature definition %s", t, a.Name.Value, sigText)
		}
	}
}
