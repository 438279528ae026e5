package resolve

import (
	"fmt"
	"slices"
	"sort"

	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
)

// The official resolver checks a config literal entry by entry: an entry's
// key against the schema, then its value (nested literals the same way),
// then the value's type, then what += and ** refuse. Our checks of a config
// run as separate passes (walk, types, keys), so each diagnostic they report
// is tagged with where in that walk the official resolver would meet it,
// and the diagnostics of a schema expression (or a typed assignment) are
// put in that order once all passes have run.

// orderElem is one level of that place: an entry, by its position, and the
// phase of its check.
type orderElem struct {
	line, col, phase int
}

const (
	phaseKey = iota
	phaseValue
	phaseType
	phaseAfter
)

// entryPos is where an entry is: its key, or its value for `**v` and
// conditional entries.
func entryPos(it *syntax.ConfigEntry) syntax.Position {
	if it.Key != nil {
		return it.Key.Pos()
	}
	if it.Value != nil {
		return it.Value.Pos()
	}
	return syntax.Position{}
}

// phaseDone is past every phase of an entry.
const phaseDone = phaseAfter + 1

func (r *resolver) pushOrder(pos syntax.Position, phase int) {
	r.orderPath = append(r.orderPath, orderElem{pos.Line, pos.Col, phase})
	r.orderDone = r.orderDone[:min(len(r.orderDone), len(r.orderPath))]
}

// pushLast tags what follows as met after every entry of the config.
func (r *resolver) pushLast() {
	r.pushOrder(syntax.Position{Line: int(^uint(0) >> 1)}, phaseKey)
}

func (r *resolver) popOrder() {
	n := len(r.orderPath) - 1
	done := r.orderPath[n]
	done.phase = phaseDone
	r.orderPath = r.orderPath[:n]
	for len(r.orderDone) <= n {
		r.orderDone = append(r.orderDone, orderElem{})
	}
	r.orderDone = append(r.orderDone[:n], done)
}

// tag records the current place of d: after the last entry finished at
// this depth, if any.
func (r *resolver) tag(d *Diagnostic) {
	path := r.orderPath
	if n := len(path); n < len(r.orderDone) && r.orderDone[n] != (orderElem{}) {
		path = append(slices.Clone(path), r.orderDone[n])
	}
	if len(path) == 0 {
		return
	}
	if r.diagOrder == nil {
		r.diagOrder = map[*Diagnostic][]orderElem{}
	}
	r.diagOrder[d] = slices.Clone(path)
}

// sortFrom puts the diagnostics reported since start in the official
// order. They are then one unit in the place the walk is at, so that an
// enclosing config or statement keeps their order.
func (r *resolver) sortFrom(start int) {
	if len(r.diagOrder) == 0 || start >= len(r.diags) {
		return
	}
	sub := r.diags[start:]
	if len(sub) > 1 {
		sort.SliceStable(sub, func(i, j int) bool {
			return orderLess(r.diagOrder[sub[i]], r.diagOrder[sub[j]])
		})
	}
	var base []orderElem
	if len(r.orderPath) > 0 {
		base = slices.Clone(r.orderPath)
	}
	for _, d := range sub {
		if base == nil {
			delete(r.diagOrder, d)
		} else {
			r.diagOrder[d] = base
		}
	}
}

// orderLess compares places: a shorter one (a level's own diagnostics,
// met before its entries) first.
func orderLess(a, b []orderElem) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		x, y := a[i], b[i]
		switch {
		case x.line != y.line:
			return x.line < y.line
		case x.col != y.col:
			return x.col < y.col
		case x.phase != y.phase:
			return x.phase < y.phase
		}
	}
	return len(a) < len(b)
}

// asValue runs f, an entry's check of its nested literal, in the place of
// the entry's value rather than its type.
func (r *resolver) asValue(f func()) {
	last := &r.orderPath[len(r.orderPath)-1]
	phase := last.phase
	last.phase = phaseValue
	f()
	r.orderPath[len(r.orderPath)-1].phase = phase
}

// assignLast is mustAssign of a whole assignment, judged after the walk of
// its value.
func (r *resolver) assignLast(got, want *typ, pos syntax.Position, decl *syntax.SchemaAttr) {
	r.pushLast()
	r.mustAssign(got, want, pos, decl)
	r.popOrder()
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
func (r *resolver) literalAttrs(items []*syntax.ConfigEntry, depth int) []litAttr {
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
func (r *resolver) attrsInto(ctx *typ, ctxDecl *syntax.Position, attrs []litAttr, at syntax.Position, depth int) {
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
				r.diag(&Diagnostic{Kind: KindCompile, Messages: []Message{
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
		}
		if sub.isAny() {
			continue
		}
		r.dictIntoSchema(a.ty, sub, at, 0)
		if !assignable(a.ty, sub) {
			d := &Diagnostic{Kind: KindType, Messages: []Message{{Pos: at, Msg: fmt.Sprintf("expected %s, got %s", sub, a.ty)}}}
			if subDecl != nil {
				d.Messages = append(d.Messages, Message{Pos: *subDecl, Msg: fmt.Sprintf("variable is defined here, its type is %s, but got %s", sub, a.ty)})
			}
			d.Messages = append(d.Messages, Message{Pos: a.pos, Msg: "config attribute is defined here"})
			r.diag(d)
		}
		r.attrsInto(sub, subDecl, a.sub, at, depth+1)
	}
}
