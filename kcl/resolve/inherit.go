package resolve

import (
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
)

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
	for _, cycle := range pi.cycles {
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
	for _, name := range pi.order {
		sym := pi.globals[name]
		if sym.kind != symSchema || sym.schema.stmt == nil || sym.schema.parent == nil {
			continue
		}
		si := sym.schema
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
