package check

import (
	"fmt"
	"iter"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
)

// Config keys checked against schemas: `Schema {key = v}`, and a dict
// literal stored where a schema is expected, may only name attributes the
// schema declares (annotated attributes, of its bases, mixins and
// protocol), unless the schema is a mixin or has an index signature.

// hasDeclared reports whether name is a declared attribute of s.
func (s *schemaInfo) hasDeclared(name string) bool {
	n := 0
	for cur := s; cur != nil && n < 1000; cur, n = cur.parent, n+1 {
		if cur.declared[name] != nil || cur.unified[name] {
			return true
		}
		for _, m := range cur.mixins {
			if m.declared[name] != nil || m.unified[name] {
				return true
			}
		}
		for p, k := cur.protocol, 0; p != nil && k < 1000; p, k = p.parent, k+1 {
			if p.declared[name] != nil || p.unified[name] {
				return true
			}
		}
	}
	return false
}

// open reports schemas that take any key: mixins and schemas with an index
// signature in their chain, and rules whose protocol has one.
func (s *schemaInfo) open() bool {
	n := 0
	for cur := s; cur != nil && n < 1000; cur, n = cur.parent, n+1 {
		if cur.isRule {
			return cur.indexSig() != nil
		}
		if cur.stmt == nil || cur.isMixin || cur.stmt.IndexSignature != nil {
			return true
		}
		for _, m := range cur.mixins {
			if m.stmt == nil || m.stmt.IndexSignature != nil {
				return true
			}
		}
	}
	return false
}

// attrNames are a schema's own declared attributes in order, with its
// mixins', for suggestions.
func (s *schemaInfo) attrNames() []string {
	var out []string
	if s.stmt == nil {
		return nil
	}
	for _, b := range s.stmt.Body {
		switch b := b.(type) {
		case *syntax.SchemaAttr:
			if b.Name != nil {
				out = append(out, b.Name.Value)
			}
		case *syntax.UnificationStmt:
			if b.Target != nil && len(b.Target.Names) > 0 {
				out = append(out, b.Target.Names[0].Value)
			}
		}
	}
	for _, m := range s.mixins {
		out = append(out, m.attrNames()...)
	}
	return out
}

// schemaOf is the schema an annotation names, nil for any other type.
func (r *checker) schemaOf(pi *pkgInfo, t syntax.Type) *schemaInfo {
	if ty := r.fromSyntax(pi, t, 0); ty.kind == tSchema {
		return ty.schema
	}
	return nil
}

// configKeys checks the keys of cfg, a config whose target is schema s.
func (r *checker) configKeys(s *schemaInfo, cfg *syntax.ConfigExpr, depth int) {
	if s == nil || cfg == nil || depth > 100 {
		return
	}
	r.configItems(s, cfg.Items, depth)
}

func (r *checker) configItems(s *schemaInfo, items []*syntax.ConfigEntry, depth int) {
	for _, it := range items {
		if it == nil {
			continue
		}
		if it.Key == nil {
			switch v := it.Value.(type) {
			case *syntax.ConfigIfEntryExpr:
				r.pushOrder(entryPos(it), phaseValue)
				r.configIf(s, v, depth)
				r.popOrder()
			case *syntax.ConfigExpr:
				// `**{...}` is walked in the same context.
				r.pushOrder(entryPos(it), phaseValue)
				r.configItems(s, v.Items, depth+1)
				r.popOrder()
			}
			continue
		}
		r.pushOrder(entryPos(it), phaseKey)
		r.configItem(s, it, depth)
		r.popOrder()
	}
}

// configItem checks the key of one entry, and the keys of its value.
func (r *checker) configItem(s *schemaInfo, it *syntax.ConfigEntry, depth int) {
	names := entryKeyNames(it.Key, true)
	if _, sub := it.Key.(*syntax.Subscript); sub && names == nil {
		return
	}
	cur := s
	for i := 0; i < len(names); i++ {
		n := names[i]
		if cur == nil {
			break
		}
		if !cur.open() && !cur.hasDeclared(n.Value) {
			r.report(errkind.Compile, n.Pos(), "Cannot add member '%s' to schema '%s'%s", n.Value, cur.name, suggestionText(suggestions(n.Value, cur.attrNames())))
			cur = nil
			break
		}
		if keys := r.literalKeys(cur); keys != nil && !cur.hasDeclared(n.Value) && !containsString(keys, n.Value) {
			r.report(errkind.Compile, n.Pos(), "Cannot add member '%s' to schema '%s'%s", n.Value, cur.name, suggestionText(suggestions(n.Value, keys)))
			cur = nil
			break
		}
		a, owner := cur.attrDecl(n.Value)
		if a == nil {
			cur = nil
			break
		}
		t := r.fromSyntax(r.infos[owner.pkg.Path], a.Ty, 0)
		if t.kind == tUnion && i+1 < len(names) {
			r.unionMember(t, names[i+1])
		}
		// `d.k.a` with d a {str:S}: k is a key of the dict, a is S's.
		for t.kind == tDict && t.elem != nil && i+1 < len(names) {
			i++
			t = t.elem
		}
		cur = nil
		if t.kind == tSchema {
			cur = t.schema
		}
	}
	if v, ok := it.Value.(*syntax.ConfigExpr); ok && len(names) > 0 {
		r.orderPath[len(r.orderPath)-1].phase = phaseValue
		r.configKeys(cur, v, depth+1)
	}
}

func (r *checker) configIf(s *schemaInfo, ie *syntax.ConfigIfEntryExpr, depth int) {
	for items := range ifBranches(ie) {
		r.configItems(s, items, depth)
	}
}

// ifBranches yields the entries of every branch of a conditional config entry
// (`if a: ... elif b: ... else: ...`), at most 1,000 branches deep.
func ifBranches(ie *syntax.ConfigIfEntryExpr) iter.Seq[[]*syntax.ConfigEntry] {
	return func(yield func([]*syntax.ConfigEntry) bool) {
		for n := 0; ie != nil && n < 1000; n++ {
			if !yield(ie.Items) {
				return
			}
			switch o := ie.Orelse.(type) {
			case *syntax.ConfigIfEntryExpr:
				ie = o
				continue
			case *syntax.ConfigExpr:
				yield(o.Items)
			}
			return
		}
	}
}

func numberIndex(e syntax.Expr) bool {
	switch e := e.(type) {
	case *syntax.NumberLit:
		return true
	case *syntax.UnaryExpr:
		_, ok := e.Operand.(*syntax.NumberLit)
		return ok
	}
	return false
}

var _ = fmt.Sprintf

// literalKeys are the keys a schema's own index signature allows when its
// key type is a string literal or a union of them; nil otherwise.
func (r *checker) literalKeys(s *schemaInfo) []string {
	sig := s.indexSig()
	if sig == nil || sig.AnyOther {
		return nil
	}
	t := r.fromSyntax(r.infos[s.sigOwner().pkg.Path], sig.KeyTy, 0)
	var keys []string
	switch t.kind {
	case tLitStr:
		return []string{t.lit}
	case tUnion:
		for _, e := range t.elems {
			if e.kind != tLitStr {
				return nil
			}
			keys = append(keys, e.lit)
		}
		return keys
	}
	return nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// shadowed reports a name whose first part a local scope or the enclosing
// schema binds, so that it is not the package's.
func (r *checker) shadowed(id *syntax.Identifier) bool {
	if len(id.Names) == 0 {
		return true
	}
	first := id.Names[0].Value
	return r.localHas(first) || (r.schema != nil && r.schema.hasAttr(first))
}

// unionMember checks a key set through an attribute whose type is a union:
// some schema of the union must take it (a dict or any other type does).
func (r *checker) unionMember(u *typ, n *syntax.Name) {
	r.unionMemberAt(u, n.Value, n.Pos(), nil)
}

// unionMemberAt is unionMember of the name key at pos (the official
// must_check_config_attr of a union context).
func (r *checker) unionMemberAt(u *typ, key string, pos syntax.Position, attrPos *syntax.Position) {
	var names, suggs []string
	for _, e := range u.elems {
		switch e.kind {
		case tSchema:
			if e.schema.open() || e.schema.hasDeclared(key) {
				return
			}
			names = append(names, e.schema.name)
			suggs = append(suggs, suggestions(key, e.schema.attrNames())...)
		case tDict, tAny:
			return
		}
	}
	if len(names) == 0 {
		return
	}
	target := "schema " + names[0]
	if len(names) > 1 {
		target = "schemas [" + rustDebugList(names) + "]"
	}
	d := &Diagnostic{Kind: errkind.Compile, Messages: []Message{{Pos: pos, Msg: fmt.Sprintf("Cannot add member '%s' to '%s'%s", key, target, suggestionText(suggs))}}}
	if attrPos != nil {
		d.Messages = append(d.Messages, Message{Pos: *attrPos, Msg: "config attribute is defined here"})
	}
	r.diag(d)
}

// entryKeyNames are the names a config entry's key spells: `a.b.c`, "a", and
// with subscripts `l[0]` (0.12.1 judges its value against the type of l).
func entryKeyNames(key syntax.Expr, subscripts bool) []*syntax.Name {
	switch k := key.(type) {
	case *syntax.Identifier:
		return k.Names
	case *syntax.StringLit:
		return []*syntax.Name{{Span: k.Span, Value: k.Value}}
	case *syntax.Subscript:
		if id, ok := k.Value.(*syntax.Identifier); ok && subscripts && numberIndex(k.Index) {
			return id.Names
		}
	}
	return nil
}
