package eval

import (
	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
)

// mergeMainConfigs mirrors the official pre-processing of the main package:
// several `name: Schema {...}` statements (and a first `name = Schema {...}`)
// become one statement at the last declaration holding all config entries, so
// that required attributes are checked on the merged config. Parsed files are
// shared, so merged statements are new nodes and bodies are per-run copies.
func mergeMainConfigs(files []*fileUnit) {
	type decl struct {
		file, index int
		union       bool
	}
	order := []string{}
	decls := map[string][]decl{}
	for fi, f := range files {
		for i, s := range f.body {
			switch s := s.(type) {
			case *syntax.UnificationStmt:
				if len(s.Target.Names) == 0 {
					continue
				}
				name := s.Target.Names[0].Value
				if _, ok := decls[name]; !ok {
					order = append(order, name)
				}
				decls[name] = append(decls[name], decl{fi, i, true})
			case *syntax.AssignStmt:
				if _, ok := s.Value.(*syntax.SchemaExpr); !ok {
					continue
				}
				for _, t := range s.Targets {
					if len(t.Paths) != 0 {
						continue
					}
					name := t.Name.Value
					if ds, ok := decls[name]; ok {
						if isPrivate(name) {
							decls[name] = append(ds[:0], decl{fi, i, false})
						}
						continue
					}
					order = append(order, name)
					decls[name] = []decl{{fi, i, false}}
				}
			}
		}
	}
	deleted := map[[2]int]bool{}
	for _, name := range order {
		ds := decls[name]
		if len(ds) < 2 {
			continue
		}
		var items []*syntax.ConfigEntry
		for _, d := range ds {
			if cfg := schemaConfigOf(files[d.file].body[d.index]); cfg != nil {
				items = append(items, cfg.Items...)
			}
		}
		last := ds[len(ds)-1]
		if lf := files[last.file]; len(lf.body) > 0 && len(lf.mod.Body) > 0 && &lf.body[0] == &lf.mod.Body[0] {
			// The body still is the parsed module's, which later runs
			// share: the merged statement goes into this run's copy.
			lf.body = append([]syntax.Stmt(nil), lf.body...)
		}
		files[last.file].body[last.index] = withConfigItems(files[last.file].body[last.index], unifyConfigEntries(items))
		for _, d := range ds[:len(ds)-1] {
			deleted[[2]int{d.file, d.index}] = true
		}
	}
	if len(deleted) == 0 {
		return
	}
	for fi, f := range files {
		body := make([]syntax.Stmt, 0, len(f.body))
		for i, s := range f.body {
			if !deleted[[2]int{fi, i}] {
				body = append(body, s)
			}
		}
		f.body = body
	}
}

func schemaConfigOf(s syntax.Stmt) *syntax.ConfigExpr {
	var se *syntax.SchemaExpr
	switch s := s.(type) {
	case *syntax.UnificationStmt:
		se = s.Value
	case *syntax.AssignStmt:
		se, _ = s.Value.(*syntax.SchemaExpr)
	}
	if se == nil {
		return nil
	}
	cfg, _ := se.Config.(*syntax.ConfigExpr)
	return cfg
}

// withConfigItems copies a statement with its schema config replaced.
func withConfigItems(s syntax.Stmt, items []*syntax.ConfigEntry) syntax.Stmt {
	copySchema := func(se *syntax.SchemaExpr) *syntax.SchemaExpr {
		c := *se
		if cfg, ok := se.Config.(*syntax.ConfigExpr); ok {
			nc := *cfg
			nc.Items = items
			c.Config = &nc
		}
		return &c
	}
	switch s := s.(type) {
	case *syntax.UnificationStmt:
		c := *s
		c.Value = copySchema(s.Value)
		return &c
	case *syntax.AssignStmt:
		c := *s
		c.Value = copySchema(s.Value.(*syntax.SchemaExpr))
		return &c
	}
	return s
}

// unifyConfigEntries groups entries by key (an override drops the earlier ones)
// and recurses into nested configs, as the official pre-processing does.
func unifyConfigEntries(entries []*syntax.ConfigEntry) []*syntax.ConfigEntry {
	const noName = "$name_none"
	var keys []string
	bucket := map[string][]*syntax.ConfigEntry{}
	for _, e := range entries {
		name := noName
		op := e.Operation
		switch k := e.Key.(type) {
		case *syntax.Identifier:
			name = k.Names[0].Value
			if len(k.Names) > 1 {
				op = syntax.OpUnion
			}
		case *syntax.StringLit:
			name = k.Value
		}
		vs, ok := bucket[name]
		if !ok {
			keys = append(keys, name)
		}
		if op == syntax.OpOverride {
			vs = vs[:0]
		}
		bucket[name] = append(vs, e)
	}
	var out []*syntax.ConfigEntry
	for _, k := range keys {
		out = append(out, bucket[k]...)
	}
	for i, e := range out {
		switch v := e.Value.(type) {
		case *syntax.SchemaExpr:
			if cfg, ok := v.Config.(*syntax.ConfigExpr); ok {
				nv := *v
				nc := *cfg
				nc.Items = unifyConfigEntries(cfg.Items)
				nv.Config = &nc
				ne := *e
				ne.Value = &nv
				out[i] = &ne
			}
		case *syntax.ConfigExpr:
			nc := *v
			nc.Items = unifyConfigEntries(v.Items)
			ne := *e
			ne.Value = &nc
			out[i] = &ne
		}
	}
	return out
}
