package check

import (
	"fmt"
	"slices"
	"sort"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
)

// checkSchemaConfig checks the values of `Schema {attr = value}` against
// the attributes' declared types, into nested dict literals and
// conditional entries.
func (r *checker) checkSchemaConfig(e *syntax.SchemaExpr) {
	cfg, ok := e.Config.(*syntax.ConfigExpr)
	if !ok || e.Name == nil || r.shadowed(e.Name) {
		return
	}
	si := r.schemaByIdent(r.pkg, e.Name)
	if si == nil {
		return
	}
	r.configTypes(si, cfg.Items, nil, 0)
}

// configTypes checks config entries whose target is schema s; ctxAt is the
// place of the official config context holding them ("variable is defined
// here" of a key the index signature takes): the declaration of the
// attribute holding the config, or where the walk started (an assignment's
// target, an argument, a default value); nil under a schema expression.
func (r *checker) configTypes(s *schemaInfo, items []*syntax.ConfigEntry, ctxAt *syntax.Position, depth int) {
	if depth > 100 {
		return
	}
	for _, it := range items {
		if it == nil {
			continue
		}
		if it.Operation == syntax.OpInsert {
			// `k += v` has v itself judged against the attribute's type
			// (the official check_config_entry), a list included; a
			// union value is left to the evaluation.
			if t := r.exprType(it.Value, 0); t.isAny() || t.kind == tUnion {
				continue
			}
		}
		if it.Key == nil {
			var attrs []litAttr
			var at syntax.Position
			if ie, ok := it.Value.(*syntax.ConfigIfEntryExpr); ok {
				r.pushOrder(entryPos(it), phaseValue)
				for items := range ifBranches(ie) {
					r.configTypes(s, items, ctxAt, depth+1)
				}
				r.popOrder()
				// An `if` with no other branch has the type of its
				// entries' literal (one with branches has none).
				if ie.Orelse == nil {
					attrs, at = r.literalAttrs(ie.Items, 0), ie.Pos()
				}
			} else {
				if cfg, ok := it.Value.(*syntax.ConfigExpr); ok {
					// `**{...}` is walked in the same context.
					r.pushOrder(entryPos(it), phaseValue)
					r.configTypes(s, cfg.Items, ctxAt, depth+1)
					r.popOrder()
				}
				attrs, at = r.unpackedAttrs(it.Value), it.Value.Pos()
			}
			if len(attrs) > 0 {
				r.pushOrder(entryPos(it), phaseType)
				r.attrsInto(&typ{kind: tSchema, schema: s}, ctxAt, attrs, at, 0)
				r.popOrder()
			}
			continue
		}
		names := entryKeyNames(it.Key, true)
		if len(names) == 0 {
			continue
		}
		r.pushOrder(entryPos(it), phaseType)
		r.checkConfigPath(s, names, it.Value, ctxAt, depth)
		r.popOrder()
	}
}

// checkConfigPath checks `a.b.c = value` in a config of schema s.
func (r *checker) checkConfigPath(s *schemaInfo, names []*syntax.Name, value syntax.Expr, ctxAt *syntax.Position, depth int) {
	levels := r.configPath(s, names, value, ctxAt, depth)
	if len(levels) == 0 {
		return
	}
	// The parser nests `t.a = v` as `t: {a = v}`: each schema on the way
	// then judges a dict of one key, innermost first.
	// Each level gets the dict of all the names after it (`t.m.l.a = v`
	// gives t the dict {m: {l: {a: v}}}).
	value0 := r.exprType(value, 0)
	for k := len(levels) - 1; k >= 0; k-- {
		lv := levels[k]
		got := value0
		for j := len(names) - 1; j > lv.at; j-- {
			key := names[j].Value
			got = nestedKey(key, names[j].Pos(), widen(got), got)
		}
		r.dictIntoSchema(got, lv.want, names[lv.at].Pos(), 0)
	}
}

// unpackedAttrs are the attributes of the value of `**value` the static
// pass knows: a literal's, an instance's schema's own (each at its
// declaration), a dict's whose keys it knows.
func (r *checker) unpackedAttrs(v syntax.Expr) []litAttr {
	if cfg, ok := v.(*syntax.ConfigExpr); ok {
		return r.literalAttrs(cfg.Items, 0)
	}
	vt := r.exprType(v, 0)
	switch {
	case vt.kind == tSchema && vt.instance:
		var attrs []litAttr
		for _, name := range vt.schema.attrNames() {
			if t, decl := r.attrType(vt.schema, name); decl != nil {
				attrs = append(attrs, litAttr{name: name, ty: t, pos: decl.Pos()})
			}
		}
		return attrs
	case vt.kind == tDict && len(vt.attrs) > 0:
		return typeAttrs(vt, 0)
	}
	return nil
}

// typeAttrs are the attributes of a dict type, in the order given (by
// where they were given), nested dicts' too.
func typeAttrs(t *typ, depth int) []litAttr {
	if depth > 50 {
		return nil
	}
	out := make([]litAttr, 0, len(t.attrs))
	for n, a := range t.attrs {
		la := litAttr{name: n, ty: a, pos: t.attrPos[n]}
		if a.kind == tDict && len(a.attrs) > 0 {
			la.sub = typeAttrs(a, depth+1)
		}
		out = append(out, la)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].pos != out[j].pos {
			return out[i].pos.Line < out[j].pos.Line || out[i].pos.Line == out[j].pos.Line && out[i].pos.Col < out[j].pos.Col
		}
		return out[i].name < out[j].name
	})
	return out
}

// pathLevel is a name of a dotted key whose attribute is a schema.
type pathLevel struct {
	at   int
	want *typ
}

// configPath checks the value of `a.b.c = value` against the type of its
// last name; it returns the schema levels it passed.
func (r *checker) configPath(s *schemaInfo, names []*syntax.Name, value syntax.Expr, ctxAt *syntax.Position, depth int) []pathLevel {
	var levels []pathLevel
	for i, n := range names {
		want, decl := r.attrType(s, n.Value)
		if decl == nil {
			// A key of the index signature takes its value type.
			if i == len(names)-1 && !s.hasAttr(n.Value) {
				if vt := r.indexValueType(s); !vt.isAny() {
					r.mustAssignAt(r.exprType(value, 0), vt, n.Pos(), ctxAt)
				}
			}
			return levels
		}
		if want.isAny() {
			return levels
		}
		if i == len(names)-1 {
			// A nested literal's entries are met in the walk of the value.
			if cfg, ok := value.(*syntax.ConfigExpr); ok && want.kind == tSchema {
				r.asValue(func() { r.configTypes(want.schema, cfg.Items, declAt(decl), depth+1) })
				r.dictIntoSchema(r.exprType(value, 0), want, n.Pos(), 0)
				return levels
			}
			// Config literals met in the value (list items,
			// comprehensions, operands) are walked under the type.
			p := decl.Pos()
			r.asValue(func() { r.ctxCheck(want, value, &p, depth+1) })
			r.mustAssign(r.exprType(value, 0), want, n.Pos(), decl)
			return levels
		}
		if want.kind == tSchema {
			levels = append(levels, pathLevel{i, want})
			s, ctxAt = want.schema, declAt(decl)
			continue
		}
		// `a.b.c = v` on a dict attribute: the official check follows the
		// names through the dict's value types, and judges the dict of the
		// names left ({c: v}) at the first one whose type is no dict, then
		// each literal the parser's nesting makes on the way back, at its
		// name ({b: {c: v}} at b against the type below a).
		at := i
		wants := []*typ{want}
		for want.kind == tDict && at+1 < len(names) {
			at++
			want = want.elem
			if want == nil || want.isAny() {
				return levels
			}
			wants = append(wants, want)
		}
		if cfg, ok := value.(*syntax.ConfigExpr); ok && at == len(names)-1 && want.kind == tSchema {
			// `d.k = {...}` into a {str:S}: a config of S.
			r.asValue(func() { r.configTypes(want.schema, cfg.Items, declAt(decl), depth+1) })
			r.dictIntoSchema(r.exprType(value, 0), want, names[at].Pos(), 0)
			return levels
		}
		if want.kind == tSchema && at < len(names)-1 {
			// `d.k.a = v` into a {str:S}: the rest of the path is S's.
			r.configPath(want.schema, names[at+1:], value, declAt(decl), depth+1)
			return levels
		}
		got := r.exprType(value, 0)
		for j := len(names) - 1; j > at; j-- {
			if got.isAny() {
				return levels
			}
			got = nestedKey(names[j].Value, names[j].Pos(), got, got)
		}
		r.mustAssign(got, want, names[at].Pos(), decl)
		for j := at - 1; j >= i; j-- {
			got = nestedKey(names[j+1].Value, names[j+1].Pos(), got, got)
			r.mustAssign(got, wants[j-i], names[j].Pos(), decl)
		}
		return levels
	}
	return levels
}

// nestedKey is the type of the literal the parser makes of a dotted key's
// last names (`a.b = v` is `a: {b = v}`): a dict of key name holding elem,
// whose attribute name, of v's widened type, is given at pos.
func nestedKey(name string, pos syntax.Position, elem, v *typ) *typ {
	return &typ{kind: tDict, key: &typ{kind: tLitStr, lit: name}, elem: elem,
		attrs: map[string]*typ{name: widen(v)}, attrPos: map[string]syntax.Position{name: pos}}
}

// declAt is where an attribute is declared, nil for none.
func declAt(a *syntax.SchemaAttr) *syntax.Position {
	if a == nil {
		return nil
	}
	p := a.Pos()
	return &p
}

// indexValueType is the value type of a schema's own index signature.
func (r *checker) indexValueType(s *schemaInfo) *typ {
	sig := s.indexSig()
	if sig == nil {
		return anyT
	}
	return r.fromSyntax(r.infos[s.sigOwner().pkg.Path], sig.ValueTy, 0)
}

// dictIntoSchema reports what the official check_type meets on its way
// when a dict is stored where a schema is expected: a dict literal of one key
// has its value judged against that attribute (dict_assignable_to_schema),
// through list items, dict values and unions. It returns check_type's answer.
func (r *checker) dictIntoSchema(got, want *typ, pos syntax.Position, depth int) bool {
	if got == nil || want == nil || depth > 50 {
		return true
	}
	switch {
	case got.isAny() || want.isAny():
		return true
	case got.kind == tList && want.kind == tList:
		return r.dictIntoSchema(got.elem, want.elem, pos, depth+1)
	case got.kind == tDict && want.kind == tDict:
		return r.dictIntoSchema(got.key, want.key, pos, depth+1) && r.dictIntoSchema(got.elem, want.elem, pos, depth+1)
	case got.kind == tDict && want.kind == tSchema:
		if want.schema.stmt == nil {
			return true
		}
		if want.schema.stmt.IndexSignature != nil {
			r.dictIntoIndexed(got, want.schema, pos, depth)
			return true
		}
		key, ok := singleLitKey(got.key)
		if !ok || got.attrs[key] == nil {
			return true
		}
		// Only the schema's own attributes (its mixins' included): the
		// official SchemaType.attrs hold no base's.
		_, owner := want.schema.attrDecl(key)
		if owner == nil || (owner != want.schema && !slices.Contains(want.schema.mixins, owner)) {
			return true
		}
		if t, decl := r.attrType(want.schema, key); decl != nil {
			r.mustAssign(got.attrs[key], t, pos, decl)
		}
		return true
	case got.kind == tUnion:
		for _, e := range got.elems {
			if !r.dictIntoSchema(e, want, pos, depth+1) {
				return false
			}
		}
		return true
	case want.kind == tUnion:
		for _, e := range want.elems {
			if r.dictIntoSchema(got, e, pos, depth+1) {
				return true
			}
		}
		return false
	}
	return assignable(got, want)
}

// dictIntoIndexed is dict_assignable_to_schema for a schema s with an index
// signature: each attribute the dict's type knows (in the order given) is
// judged against the schema's own attribute of that name, at pos and with
// its declaration, when the signature is `[...k]: v`; otherwise, or for
// an undeclared name, against the signature's value type at the attribute.
// A dict with no known attributes has its value type judged as a whole.
func (r *checker) dictIntoIndexed(got *typ, s *schemaInfo, pos syntax.Position, depth int) {
	vt := r.indexValueType(s)
	if len(got.attrs) == 0 {
		if !r.dictIntoSchema(got.elem, vt, pos, depth+1) || !assignable(got.elem, vt) {
			r.diag(&Diagnostic{Kind: errkind.Type, Messages: []Message{{Pos: pos,
				Msg: fmt.Sprintf("expected schema index signature value type %s, got %s", vt, got.elem)}}})
		}
		return
	}
	for _, a := range typeAttrs(got, 0) {
		if s.stmt.IndexSignature.AnyOther {
			if _, owner := s.attrDecl(a.name); owner == s || slices.Contains(s.mixins, owner) {
				if t, decl := r.attrType(s, a.name); decl != nil {
					p := decl.Pos()
					r.mustAssignAt(a.ty, t, pos, &p)
				}
				continue
			}
		}
		r.mustAssignAt(a.ty, vt, a.pos, nil)
	}
}

// singleLitKey is the key of a dict type whose keys are all one literal.
func singleLitKey(k *typ) (string, bool) {
	if k == nil {
		return "", false
	}
	switch k.kind {
	case tLitStr:
		return k.lit, true
	case tUnion:
		if len(k.elems) == 0 {
			return "", false
		}
		for _, e := range k.elems {
			if e.kind != tLitStr || e.lit != k.elems[0].lit {
				return "", false
			}
		}
		return k.elems[0].lit, true
	}
	return "", false
}

// schemaValue checks a dict literal stored where schema type want is
// expected (an argument, a lambda's result): its keys and values, the
// context starting at the literal.
func (r *checker) schemaValue(want *typ, v syntax.Expr) {
	cfg, ok := v.(*syntax.ConfigExpr)
	if !ok || want.kind != tSchema {
		return
	}
	at := v.Pos()
	r.configKeys(want.schema, cfg, 0)
	r.configTypes(want.schema, cfg.Items, &at, 0)
}

// unionedConfig is the dict literal of `value | {...}`: stored where a
// schema is expected, the official resolver checks its entries' values
// against the schema's attributes, as those of a plain literal.
func unionedConfig(v syntax.Expr) *syntax.ConfigExpr {
	b, ok := v.(*syntax.BinaryExpr)
	if !ok || b.Op != syntax.BitOr {
		return nil
	}
	cfg, _ := b.Right.(*syntax.ConfigExpr)
	return cfg
}

// litAttr is an attribute of a config literal's type, as the official
// walk_config_entries records it: its widened type, the key it was last
// given at, and the attributes of its own literal value.
type litAttr struct {
	name string
	ty   *typ
	pos  syntax.Position
	sub  []litAttr
}

// literalAttrs are the attributes of a config literal's keyed entries, in
// the order first given; `a.b = v` is `a: {b = v}`.
func (r *checker) literalAttrs(items []*syntax.ConfigEntry, depth int) []litAttr {
	if depth > 50 {
		return nil
	}
	var out []litAttr
	for _, it := range items {
		if it == nil {
			continue
		}
		if it.Key == nil {
			// An unpacked literal, or an `if` with no other branch, adds
			// its attributes.
			var inner []litAttr
			switch v := it.Value.(type) {
			case *syntax.ConfigExpr:
				inner = r.literalAttrs(v.Items, depth+1)
			case *syntax.ConfigIfEntryExpr:
				if v.Orelse == nil {
					inner = r.literalAttrs(v.Items, depth+1)
				}
			}
			for _, a := range inner {
				replaced := false
				for i := range out {
					if out[i].name == a.name {
						out[i], replaced = a, true
						break
					}
				}
				if !replaced {
					out = append(out, a)
				}
			}
			continue
		}
		names := entryKeyNames(it.Key, false)
		if len(names) == 0 {
			continue
		}
		last := names[len(names)-1]
		a := litAttr{name: last.Value, ty: widen(r.exprType(it.Value, 0)), pos: last.Pos()}
		if cfg, ok := it.Value.(*syntax.ConfigExpr); ok {
			a.sub = r.literalAttrs(cfg.Items, depth+1)
		}
		for j := len(names) - 2; j >= 0; j-- {
			inner := a
			a = litAttr{name: names[j].Value, pos: names[j].Pos(), sub: []litAttr{inner},
				ty: &typ{kind: tDict, key: strT, elem: inner.ty, attrs: map[string]*typ{inner.name: inner.ty}}}
		}
		merged := false
		for i := range out {
			if out[i].name == a.name {
				out[i].ty = widen(union([]*typ{out[i].ty, a.ty}))
				out[i].pos = a.pos
				out[i].sub = nil
				merged = true
				break
			}
		}
		if !merged {
			out = append(out, a)
		}
	}
	return out
}

// attrsInto is the official check_config_value_recursively: the attributes
// of an unpacked or conditional literal judged again, at the literal, against
// the context ctx (declared at ctxDecl, if known).
func (r *checker) attrsInto(ctx *typ, ctxDecl *syntax.Position, attrs []litAttr, at syntax.Position, depth int) {
	if depth > 50 || ctx.isAny() {
		return
	}
	for _, a := range attrs {
		var sub *typ
		var subDecl *syntax.Position
		switch ctx.kind {
		case tSchema:
			s := ctx.schema
			if !s.open() && !s.hasDeclared(a.name) {
				r.diag(&Diagnostic{Kind: errkind.Compile, Messages: []Message{
					{Pos: at, Msg: fmt.Sprintf("Cannot add member '%s' to schema '%s'%s", a.name, s.name, suggestionText(suggestions(a.name, s.attrNames())))},
					{Pos: a.pos, Msg: "config attribute is defined here"},
				}})
			}
			if t, decl := r.attrType(s, a.name); decl != nil {
				p := decl.Pos()
				sub, subDecl = t, &p
			} else if s.stmt != nil && s.stmt.IndexSignature != nil {
				sub, subDecl = r.indexValueType(s), ctxDecl
			}
		case tDict, tList:
			sub, subDecl = ctx.elem, ctxDecl
		case tUnion:
			r.unionMemberAt(ctx, a.name, at, &a.pos)
			sub, subDecl = r.memberType(ctx, a.name), ctxDecl
		}
		if sub.isAny() {
			continue
		}
		r.dictIntoSchema(a.ty, sub, at, 0)
		if !assignable(a.ty, sub) {
			d := &Diagnostic{Kind: errkind.Type, Messages: []Message{{Pos: at, Msg: fmt.Sprintf("expected %s, got %s", sub, a.ty)}}}
			if subDecl != nil {
				d.Messages = append(d.Messages, Message{Pos: *subDecl, Msg: fmt.Sprintf("variable is defined here, its type is %s, but got %s", sub, a.ty)})
			}
			d.Messages = append(d.Messages, Message{Pos: a.pos, Msg: "config attribute is defined here"})
			r.diag(d)
		}
		r.attrsInto(sub, subDecl, a.sub, at, depth+1)
	}
}

// annotatedConfig checks a config literal (or `v | {...}`) stored under a
// schema annotation: its keys, and its values against the attributes.
func (r *checker) annotatedConfig(ty syntax.Type, value syntax.Expr) {
	if cfg, ok := value.(*syntax.ConfigExpr); ok {
		if si := r.schemaOf(r.pkg, ty); si != nil {
			// The context of a default value starts at the value.
			at := value.Pos()
			r.configKeys(si, cfg, 0)
			r.configTypes(si, cfg.Items, &at, 0)
		}
	} else if want := r.fromSyntax(r.pkg, ty, 0); want.kind == tSchema && value != nil {
		// The config literals met in the value (through parentheses,
		// both branches of `if` and both operands) are walked under it.
		at := value.Pos()
		r.ctxCheck(want, value, &at, 0)
	}
}
