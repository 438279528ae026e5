package eval

import (
	"fmt"
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
)

// applyOverrides applies -O specs (`[pkg:]a.b.c=value`, `a.b-` to delete) to
// the main package's statements before it runs, as the official engine edits
// the program: values that depend on an overridden one are recomputed.
func (in *Interp) applyOverrides(p *pkgState) error {
	for _, spec := range in.cfg.Overrides {
		if err := applyOverride(p, spec); err != nil {
			return err
		}
	}
	if len(in.cfg.Overrides) > 0 {
		in.prepare(p)
	}
	return in.reportOverridden(p)
}

// reportOverridden hands each file of the main package the overrides
// changed, as written before configs were merged, to Config.OverriddenFile
// (`kcl run -O … -d` writes them back, as 0.12.1 does before it compiles).
func (in *Interp) reportOverridden(p *pkgState) error {
	if in.cfg.OverriddenFile == nil || len(in.cfg.Overrides) == 0 {
		return nil
	}
	for _, f := range p.files {
		body, changed := f.mod.Body, false
		for _, spec := range in.cfg.Overrides {
			o, err := parseOverride(spec, p.path)
			if err != nil {
				return err
			}
			if o == nil {
				continue
			}
			o.file = syntax.OverrideValueFile
			var ch bool
			body, ch = o.apply(body)
			changed = changed || ch
		}
		if changed {
			m := *f.mod
			m.Body = body
			if err := in.cfg.OverriddenFile(f.path, &m); err != nil {
				return err
			}
		}
	}
	return nil
}

// override is one parsed -O spec.
type override struct {
	parts []string
	text  string
	del   bool
	// file is the file of the value's nodes: none for the run, the
	// printer's mark for the file written back.
	file string
}

// parseOverride reads spec for package pkgPath: nil when it is another
// package's.
func parseOverride(spec, pkgPath string) (*override, error) {
	s := spec
	if i := strings.Index(s, ":"); i >= 0 && !strings.ContainsAny(s[:i], "=.") {
		if pkg := s[:i]; pkg != "" && pkg != pkgPath {
			return nil, nil // overrides of other packages are not supported
		}
		s = s[i+1:]
	}
	var path, text string
	del := false
	if strings.HasSuffix(s, "-") && !strings.Contains(s, "=") {
		path, del = strings.TrimSuffix(s, "-"), true
	} else {
		var ok bool
		path, text, ok = strings.Cut(s, "=")
		if !ok || path == "" || text == "" {
			return nil, &Error{Kind: errkind.Plain, Msg: fmt.Sprintf("Invalid spec format '%s', expected <field_path>=<filed_value>, <field_path>:<filed_value>, <field_path>+=<filed_value> or <field_path>-", spec)}
		}
	}
	return &override{parts: strings.Split(path, "."), text: text, del: del}, nil
}

func applyOverride(p *pkgState, spec string) error {
	o, err := parseOverride(spec, p.path)
	if o == nil {
		return err
	}
	// The official engine applies the spec to each file of the main package
	// on its own.
	for _, f := range p.files {
		f.body, _ = o.apply(f.body)
	}
	return nil
}

// apply returns a file's statements with the override applied, and whether
// it changed them: it sets every top-level statement of the root name
// there, and a file without one gets `name = value` (`name = {b.c = value}`
// for a.b.c) appended, so that a name set in another file is then set twice.
func (o *override) apply(stmts []syntax.Stmt) ([]syntax.Stmt, bool) {
	parts, text, del := o.parts, o.text, o.del
	body := append([]syntax.Stmt(nil), stmts...)
	found := false
	for i, st := range body {
		if !setsName(st, parts[0]) {
			continue
		}
		found = true
		if len(parts) == 1 {
			if del {
				body[i] = nil
			} else if as, ok := st.(*syntax.AssignStmt); ok {
				c := *as
				c.Value = placed(text, as.Value, o.file)
				body[i] = &c
			}
			continue
		}
		if cfg := schemaOrConfig(st); cfg != nil {
			body[i] = replaceConfig(st, overrideConfig(cfg, parts[1:], text, del, o.file))
		}
	}
	kept := body[:0]
	for _, st := range body {
		if st != nil {
			kept = append(kept, st)
		}
	}
	body = kept
	if !found && !del {
		v := overrideValue(text, o.file)
		if len(parts) > 1 {
			names := make([]*syntax.Name, 0, len(parts)-1)
			for _, n := range parts[1:] {
				names = append(names, &syntax.Name{Value: n})
			}
			v = &syntax.ConfigExpr{Items: []*syntax.ConfigEntry{{Key: &syntax.Identifier{Names: names}, Value: v, Operation: syntax.OpOverride}}}
		}
		body = append(body, &syntax.AssignStmt{Targets: []*syntax.Target{{Name: &syntax.Name{Value: parts[0]}}}, Value: v})
	}
	return body, found || !del
}

// overrideValue is a new expression for an override's text, as the official
// engine builds it: a unary or binary expression is the text as a string
// (x=1+2 sets "1+2"), text that does not parse is a string too. Its nodes
// have no position (errors inside it are printed without one); the printer
// is told them from the file it gives (syntax.OverrideValueFile).
func overrideValue(text, file string) syntax.Expr {
	str := &syntax.StringLit{Value: text, RawValue: fmt.Sprintf("%q", text)}
	str.SetSpan(syntax.Position{File: file}, syntax.Position{File: file})
	m, err := syntax.ParseFile("<override>", []byte("__override_value__ = "+text+"\n"))
	if err != nil || len(m.Body) != 1 {
		return str
	}
	as, ok := m.Body[0].(*syntax.AssignStmt)
	if !ok {
		return str
	}
	switch as.Value.(type) {
	case *syntax.UnaryExpr, *syntax.BinaryExpr:
		return str
	}
	syntax.Walk(as.Value, func(n syntax.Node) bool {
		if s, ok := n.(spanned); ok {
			s.SetSpan(syntax.Position{File: file}, syntax.Position{File: file})
		}
		return true
	})
	return as.Value
}

type spanned interface {
	SetSpan(start, end syntax.Position)
}

// placed is an override's value standing where at stood: the official
// engine gives the value's root node the position of what it replaces (a
// top-level value, or a config entry as a whole), its inner nodes keep none.
func placed(text string, at syntax.Node, file string) syntax.Expr {
	x := overrideValue(text, file)
	start, end := at.Pos(), at.End()
	x.(spanned).SetSpan(start, end)
	if id, ok := x.(*syntax.Identifier); ok {
		// The official identifier is one node: its names are located with it.
		for _, n := range id.Names {
			n.SetSpan(start, end)
		}
	}
	return x
}

func setsName(st syntax.Stmt, name string) bool {
	switch s := st.(type) {
	case *syntax.AssignStmt:
		for _, t := range s.Targets {
			if t.Name.Value == name && len(t.Paths) == 0 {
				return true
			}
		}
	case *syntax.UnificationStmt:
		return len(s.Target.Names) == 1 && s.Target.Names[0].Value == name
	}
	return false
}

func schemaOrConfig(st syntax.Stmt) *syntax.ConfigExpr {
	var x syntax.Expr
	switch s := st.(type) {
	case *syntax.AssignStmt:
		x = s.Value
	case *syntax.UnificationStmt:
		x = s.Value
	}
	switch v := x.(type) {
	case *syntax.SchemaExpr:
		c, _ := v.Config.(*syntax.ConfigExpr)
		return c
	case *syntax.ConfigExpr:
		return v
	}
	return nil
}

func replaceConfig(st syntax.Stmt, cfg *syntax.ConfigExpr) syntax.Stmt {
	withCfg := func(x syntax.Expr) syntax.Expr {
		switch v := x.(type) {
		case *syntax.SchemaExpr:
			c := *v
			c.Config = cfg
			return &c
		case *syntax.ConfigExpr:
			return cfg
		}
		return x
	}
	switch s := st.(type) {
	case *syntax.AssignStmt:
		c := *s
		c.Value = withCfg(s.Value)
		return &c
	case *syntax.UnificationStmt:
		c := *s
		c.Value = withCfg(s.Value).(*syntax.SchemaExpr)
		return &c
	}
	return st
}

// overrideConfig returns a copy of cfg with path set to val (or deleted).
func overrideConfig(cfg *syntax.ConfigExpr, path []string, text string, del bool, file string) *syntax.ConfigExpr {
	c := *cfg
	c.Items = append([]*syntax.ConfigEntry(nil), cfg.Items...)
	key := path[0]
	found := false
	for i := 0; i < len(c.Items); i++ {
		it := c.Items[i]
		if id, ok := it.Key.(*syntax.Identifier); ok && len(id.Names) > 1 && id.Names[0].Value == key {
			// A dotted key `a.b.c = v` is `a: {b.c = v}`: the official engine
			// edits it as the nested literal, so a deeper path reaches (and
			// deletes) what the dotted key set.
			it = expandDottedKey(it, id)
			c.Items[i] = it
		}
		if entryKey(it) != key {
			continue
		}
		if len(path) == 1 {
			found = true
			if del {
				c.Items = append(c.Items[:i], c.Items[i+1:]...)
				i--
				continue
			}
			ne := *it
			ne.Value = placed(text, it, file)
			ne.Operation = syntax.OpOverride
			c.Items[i] = &ne
			continue
		}
		var inner *syntax.ConfigExpr
		switch v := it.Value.(type) {
		case *syntax.ConfigExpr:
			inner = v
		case *syntax.SchemaExpr:
			inner, _ = v.Config.(*syntax.ConfigExpr)
		}
		if inner == nil {
			// A deeper path under a value that is no config: the official
			// engine adds `key: {...}`, which the union then judges.
			continue
		}
		found = true
		ne := *it
		nc := overrideConfig(inner, path[1:], text, del, file)
		if se, ok := it.Value.(*syntax.SchemaExpr); ok {
			s2 := *se
			s2.Config = nc
			ne.Value = &s2
		} else {
			ne.Value = nc
		}
		c.Items[i] = &ne
	}
	if !found && !del {
		// A path the config lacks is added as the dotted key `a.b = v`.
		names := make([]*syntax.Name, len(path))
		for i, n := range path {
			names[i] = &syntax.Name{Value: n}
		}
		c.Items = append(c.Items, &syntax.ConfigEntry{Key: &syntax.Identifier{Names: names}, Value: overrideValue(text, file), Operation: syntax.OpOverride})
	}
	return &c
}

// expandDottedKey rewrites the entry `a.b.c <op> v` as `a: {b.c <op> v}`.
func expandDottedKey(e *syntax.ConfigEntry, id *syntax.Identifier) *syntax.ConfigEntry {
	// Each part keeps its own position: errors are located at the key's name
	// of each level, as for the dotted key itself.
	rest := *id
	rest.Names = id.Names[1:]
	rest.StartPos = id.Names[1].StartPos
	inner := *e
	inner.Key = &rest
	inner.StartPos = rest.StartPos
	first := *id
	first.Names = id.Names[:1]
	first.EndPos = id.Names[0].EndPos
	return &syntax.ConfigEntry{
		Span:      e.Span,
		Key:       &first,
		Value:     &syntax.ConfigExpr{Span: inner.Span, Items: []*syntax.ConfigEntry{&inner}},
		Operation: syntax.OpUnion,
	}
}

func entryKey(e *syntax.ConfigEntry) string {
	switch k := e.Key.(type) {
	case *syntax.Identifier:
		if len(k.Names) == 1 {
			return k.Names[0].Value
		}
	case *syntax.StringLit:
		return k.Value
	}
	return ""
}

func nameKey(name string) *syntax.Identifier {
	return &syntax.Identifier{Names: []*syntax.Name{{Value: name}}}
}
