package eval

import (
	"fmt"
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
)

// applyOverrides applies -O specs (`a.b.c=value`, `a.b:value` to union,
// `a.b+=value` to insert, `a.b-` to delete) to
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
	// op is the spec's operation: `=`, `:` or `+=`.
	op syntax.ConfigEntryOperation
	// file is the file of the value's nodes: none for the run, the
	// printer's mark for the file written back.
	file string
}

// parseOverride reads spec as 0.12.1's parse_override_spec: split at the
// first `=`, `:` or `+=` outside brackets, braces and string literals (the
// operation), else a trailing `-` deletes; an empty path or value is an
// invalid spec. The error is nil with a nil override for none.
func parseOverride(spec, pkgPath string) (*override, error) {
	invalid := &Error{Kind: errkind.Plain, Msg: fmt.Sprintf("Invalid spec format '%s', expected <field_path>=<filed_value>, <field_path>:<filed_value>, <field_path>+=<filed_value> or <field_path>-", spec)}
	if path, text, op, ok := splitOverrideSpec(spec); ok {
		path, text = strings.TrimSpace(path), strings.TrimSpace(text)
		if path == "" || text == "" {
			return nil, invalid
		}
		parts, err := attributePath(path)
		if err != nil {
			return nil, err
		}
		return &override{parts: parts, text: text, op: op}, nil
	}
	if path, ok := strings.CutSuffix(spec, "-"); ok && strings.TrimSpace(path) != "" {
		parts, err := attributePath(strings.TrimSpace(path))
		if err != nil {
			return nil, err
		}
		return &override{parts: parts, del: true, op: syntax.OpOverride}, nil
	}
	return nil, invalid
}

// attributePath is 0.12.1's parse_attribute_path: a.b.c, and a["b"].c or
// a['b'] for a key written in brackets and quotes (no index: a[0] is
// refused).
func attributePath(path string) ([]string, *Error) {
	fail := func(msg string) ([]string, *Error) { return nil, &Error{Kind: errkind.Plain, Msg: msg} }
	var parts []string
	var cur strings.Builder
	inBrackets := false
	rs := []rune(path)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		if inBrackets {
			if c == '"' || c == '\'' {
				if i+1 < len(rs) && rs[i+1] == ']' {
					i++
					inBrackets = false
					continue
				}
				return fail("Expected closing bracket")
			}
			cur.WriteRune(c)
			continue
		}
		switch c {
		case '.':
			if cur.Len() > 0 {
				parts = append(parts, cur.String())
				cur.Reset()
			}
		case '[':
			if cur.Len() > 0 {
				parts = append(parts, cur.String())
				cur.Reset()
			}
			inBrackets = true
			if i+1 < len(rs) {
				i++
				if rs[i] != '"' && rs[i] != '\'' {
					return fail("Expected opening quote after '['")
				}
			}
		case ']':
			return fail("Unmatched closing bracket")
		default:
			cur.WriteRune(c)
		}
	}
	if cur.Len() > 0 {
		parts = append(parts, cur.String())
	}
	return parts, nil
}

// splitOverrideSpec is 0.12.1's split_override_spec_op.
func splitOverrideSpec(spec string) (path, value string, op syntax.ConfigEntryOperation, ok bool) {
	depth := 0
	for i := 0; i < len(spec); i++ {
		switch c := spec[i]; {
		case c == '=' && depth == 0:
			return spec[:i], spec[i+1:], syntax.OpOverride, true
		case c == ':' && depth == 0:
			return spec[:i], spec[i+1:], syntax.OpUnion, true
		case c == '+' && depth == 0 && i+1 < len(spec) && spec[i+1] == '=':
			return spec[:i], spec[i+2:], syntax.OpInsert, true
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			if depth > 0 {
				depth--
			}
		case c == '"' || c == '\'':
			// A string literal is skipped to its closing quote (an
			// unescaped one; not an empty literal).
			if i+1 < len(spec) && spec[i+1] == c {
				break
			}
			for j := i + 1; j < len(spec); j++ {
				if spec[j] == '\\' {
					j++
					continue
				}
				if spec[j] == c {
					i = j
					break
				}
			}
		}
	}
	return "", "", syntax.OpOverride, false
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
			switch {
			case del:
				body[i] = nil
			case o.op != syntax.OpOverride:
				// A union or insert that applies to nothing leaves the
				// statement, and the name counts as not found.
				if c, ok := o.combineStmt(st); ok {
					body[i] = c
				} else {
					found = false
				}
			default:
				if as, ok := st.(*syntax.AssignStmt); ok {
					c := *as
					c.Value = placed(text, as.Value, o.file)
					body[i] = &c
				}
			}
			continue
		}
		if cfg := schemaOrConfig(st); cfg != nil {
			mk := func(at syntax.Node) syntax.Expr {
				if at == nil {
					return overrideValue(text, o.file)
				}
				return placed(text, at, o.file)
			}
			body[i] = replaceConfig(st, overrideConfig(cfg, parts[1:], mk, o.op, del, o.file))
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
			v = &syntax.ConfigExpr{Items: []*syntax.ConfigEntry{{Key: &syntax.Identifier{Names: names}, Value: v, Operation: o.op}}}
		}
		target := &syntax.Target{Name: &syntax.Name{Value: parts[0]}}
		// A name no statement sets gets one of the spec's operation:
		// `name += v`, `name: S {…}` for a schema value, else `name = v`.
		if se, ok := v.(*syntax.SchemaExpr); ok && o.op == syntax.OpUnion {
			body = append(body, &syntax.UnificationStmt{Target: &syntax.Identifier{Names: []*syntax.Name{target.Name}}, Value: se})
		} else if o.op == syntax.OpInsert {
			body = append(body, &syntax.AugAssignStmt{Target: target, Value: v, Op: syntax.AugAdd})
		} else {
			body = append(body, &syntax.AssignStmt{Targets: []*syntax.Target{target}, Value: v})
		}
	}
	return body, found || !del
}

// combineStmt is the statement st setting the override's name with the
// spec's union or insert applied to its value (0.12.1's
// override_top_level_stmt); st itself when neither applies.
func (o *override) combineStmt(st syntax.Stmt) (syntax.Stmt, bool) {
	switch s := st.(type) {
	case *syntax.AssignStmt:
		v, ok := combine(s.Value, placed(o.text, s.Value, o.file), o.op, o.file)
		if !ok {
			return st, false
		}
		c := *s
		c.Value = v
		return &c, true
	case *syntax.UnificationStmt:
		// A unification takes a schema value only.
		v, ok := combine(s.Value, placed(o.text, s.Value, o.file), o.op, o.file)
		se, isSchema := v.(*syntax.SchemaExpr)
		if !ok || !isSchema {
			return st, false
		}
		c := *s
		c.Value = se
		return &c, true
	}
	return st, false
}

// combine applies value to old with operation op as 0.12.1's override does:
// a union merges a config (or a config of the same schema) into old's
// config, entry by entry, and replaces anything else; an insert appends a
// list's items to old's list; an override replaces old. ok is false when
// nothing applies.
func combine(old, value syntax.Expr, op syntax.ConfigEntryOperation, file string) (syntax.Expr, bool) {
	switch op {
	case syntax.OpUnion:
		switch v := value.(type) {
		case *syntax.ConfigExpr:
			switch x := old.(type) {
			case *syntax.SchemaExpr:
				if cfg, ok := x.Config.(*syntax.ConfigExpr); ok {
					c := *x
					c.Config = mergeConfig(cfg, v, file)
					return &c, true
				}
			case *syntax.ConfigExpr:
				return mergeConfig(x, v, file), true
			}
			return old, false
		case *syntax.SchemaExpr:
			x, ok := old.(*syntax.SchemaExpr)
			if !ok || x.Name == nil || v.Name == nil || x.Name.Name() != v.Name.Name() {
				return old, false
			}
			cfg, ok1 := x.Config.(*syntax.ConfigExpr)
			merged, ok2 := v.Config.(*syntax.ConfigExpr)
			if !ok1 || !ok2 {
				return old, false
			}
			c := *x
			c.Config = mergeConfig(cfg, merged, file)
			return &c, true
		}
		return value, true
	case syntax.OpInsert:
		l, ok1 := value.(*syntax.ListExpr)
		x, ok2 := old.(*syntax.ListExpr)
		if !ok1 || !ok2 {
			return old, false
		}
		c := *x
		c.Elts = append(append([]syntax.Expr(nil), x.Elts...), l.Elts...)
		return &c, true
	}
	return value, true
}

// mergeConfig is 0.12.1's merge_config_expr: each entry of merged is set in
// cfg by its key's path with its own operation; `**` and `if` entries are
// appended.
func mergeConfig(cfg, merged *syntax.ConfigExpr, file string) *syntax.ConfigExpr {
	out := cfg
	for _, it := range merged.Items {
		names := ctxKeyParts(it.Key)
		if len(names) == 0 {
			c := *out
			c.Items = append(append([]*syntax.ConfigEntry(nil), out.Items...), it)
			out = &c
			continue
		}
		v := it.Value
		mk := func(at syntax.Node) syntax.Expr { return v }
		out = overrideConfig(out, names, mk, it.Operation, false, file)
	}
	return out
}

// ctxKeyParts are the names of a config key's path (a dotted name or a
// string); none for `**` and `if` entries.
func ctxKeyParts(k syntax.Expr) []string {
	switch k := k.(type) {
	case *syntax.Identifier:
		return k.Parts()
	case *syntax.StringLit:
		return []string{k.Value}
	}
	return nil
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
func overrideConfig(cfg *syntax.ConfigExpr, path []string, mk func(at syntax.Node) syntax.Expr, op syntax.ConfigEntryOperation, del bool, file string) *syntax.ConfigExpr {
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
			if op == syntax.OpOverride {
				ne.Value = mk(it)
				ne.Operation = syntax.OpOverride
			} else if v, ok := combine(it.Value, mk(it), op, file); ok {
				ne.Value = v
			} else {
				// Nothing applies: the path is added as if absent.
				found = false
				continue
			}
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
		nc := overrideConfig(inner, path[1:], mk, op, del, file)
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
		c.Items = append(c.Items, &syntax.ConfigEntry{Key: &syntax.Identifier{Names: names}, Value: mk(nil), Operation: op})
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
