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
	return nil
}

func applyOverride(p *pkgState, spec string) error {
	s := spec
	if i := strings.Index(s, ":"); i >= 0 && !strings.ContainsAny(s[:i], "=.") {
		if pkg := s[:i]; pkg != "" && pkg != p.path {
			return nil // overrides of other packages are not supported
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
			return &Error{Kind: errkind.Plain, Msg: fmt.Sprintf("Invalid spec format '%s', expected <field_path>=<filed_value>, <field_path>:<filed_value>, <field_path>+=<filed_value> or <field_path>-", spec)}
		}
	}
	parts := strings.Split(path, ".")
	// The official engine applies the spec to each file of the main package
	// on its own: it sets every top-level statement of the root name there,
	// and a file without one gets `name = value` (`name = {b.c = value}` for
	// a.b.c) appended, so that a name set in another file is then set twice.
	for _, f := range p.files {
		body := append([]syntax.Stmt(nil), f.body...)
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
					c.Value = placed(text, as.Value)
					body[i] = &c
				}
				continue
			}
			if cfg := schemaOrConfig(st); cfg != nil {
				body[i] = replaceConfig(st, overrideConfig(cfg, parts[1:], text, del))
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
			v := overrideValue(text)
			if len(parts) > 1 {
				names := make([]*syntax.Name, 0, len(parts)-1)
				for _, n := range parts[1:] {
					names = append(names, &syntax.Name{Value: n})
				}
				v = &syntax.ConfigExpr{Items: []*syntax.ConfigEntry{{Key: &syntax.Identifier{Names: names}, Value: v, Operation: syntax.OpOverride}}}
			}
			body = append(body, &syntax.AssignStmt{Targets: []*syntax.Target{{Name: &syntax.Name{Value: parts[0]}}}, Value: v})
		}
		f.body = body
	}
	return nil
}

// overrideValue is a new expression for an override's text, as the official
// engine builds it: a unary or binary expression is the text as a string
// (x=1+2 sets "1+2"), text that does not parse is a string too. Its nodes
// have no position (errors inside it are printed without one).
func overrideValue(text string) syntax.Expr {
	str := &syntax.StringLit{Value: text, RawValue: fmt.Sprintf("%q", text)}
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
			s.SetSpan(syntax.Position{}, syntax.Position{})
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
func placed(text string, at syntax.Node) syntax.Expr {
	x := overrideValue(text)
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
func overrideConfig(cfg *syntax.ConfigExpr, path []string, text string, del bool) *syntax.ConfigExpr {
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
			ne.Value = placed(text, it)
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
		nc := overrideConfig(inner, path[1:], text, del)
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
		v := overrideValue(text)
		for i := len(path) - 1; i >= 1; i-- {
			v = &syntax.ConfigExpr{Items: []*syntax.ConfigEntry{{Key: nameKey(path[i]), Value: v, Operation: syntax.OpOverride}}}
		}
		op := syntax.OpOverride
		if len(path) > 1 {
			op = syntax.OpUnion
		}
		c.Items = append(c.Items, &syntax.ConfigEntry{Key: nameKey(key), Value: v, Operation: op})
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
