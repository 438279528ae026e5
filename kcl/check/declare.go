package check

import "github.com/kcl-lang/flux-kcl-controller/kcl/syntax"

// declare collects a package's global names and schemas.
func (r *checker) declare(p *Package) *pkgInfo {
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
	var walk func(f *SourceFile, stmts []syntax.Stmt)
	walk = func(f *SourceFile, stmts []syntax.Stmt) {
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

// schemaByIdent finds the schema a (possibly package-qualified) name denotes.
func (r *checker) schemaByIdent(pi *pkgInfo, id *syntax.Identifier) *schemaInfo {
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

func (r *checker) lookupSchema(name *syntax.Name) *schemaInfo {
	if name == nil {
		return nil
	}
	if sym := r.pkg.globals[name.Value]; sym != nil && sym.kind == symSchema {
		return sym.schema
	}
	return nil
}
