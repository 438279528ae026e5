package check

import (
	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
)

func defineConfigKeys(items []*syntax.ConfigEntry, sc *scope) {
	for _, it := range items {
		if it == nil {
			continue
		}
		switch k := it.Key.(type) {
		case *syntax.Identifier:
			if len(k.Names) > 0 {
				sc.define(k.Names[0].Value)
			}
		case *syntax.StringLit:
			sc.define(k.Value)
		case nil:
			if ie, ok := it.Value.(*syntax.ConfigIfEntryExpr); ok {
				for ie != nil {
					defineConfigKeys(ie.Items, sc)
					switch o := ie.Orelse.(type) {
					case *syntax.ConfigIfEntryExpr:
						ie = o
						continue
					case *syntax.ConfigExpr:
						defineConfigKeys(o.Items, sc)
					}
					ie = nil
				}
			}
		}
	}
}

func (r *checker) configEntries(items []*syntax.ConfigEntry, deferred bool) {
	for _, it := range items {
		if it == nil {
			continue
		}
		pos := entryPos(it)
		r.pushOrder(pos, phaseKey)
		switch k := it.Key.(type) {
		case *syntax.Identifier, *syntax.StringLit, nil:
		case *syntax.Subscript:
			// `arr[0] = v` edits the list attribute arr; any other
			// subscript key is an expression.
			if !numberIndex(k.Index) {
				r.expr(k)
			}
		default:
			r.expr(k)
		}
		r.popOrder()
		r.pushOrder(pos, phaseValue)
		r.expr(it.Value)
		r.popOrder()
		if sc := r.local; sc != nil && sc.config {
			// The key now names this value's type.
			switch k := it.Key.(type) {
			case *syntax.Identifier:
				if len(k.Names) == 1 {
					sc.setType(k.Names[0].Value, r.exprType(it.Value, 0))
				}
			case *syntax.StringLit:
				sc.setType(k.Value, r.exprType(it.Value, 0))
			}
		}
		loopKey := false
		if id, ok := it.Key.(*syntax.Identifier); ok && len(id.Names) == 1 {
			// A comprehension's loop variable as a key is its value (the
			// config's own scope, which defines its keys, is skipped).
			loopKey = r.local != nil && r.loopVarIn(r.local.parent, id.Names[0].Value)
		}
		literalKey := !loopKey
		switch it.Key.(type) {
		case *syntax.Identifier:
		case *syntax.StringLit, *syntax.Subscript, nil:
			literalKey = true
		default:
			literalKey = false
		}
		if !literalKey {
			// The key's type is judged after the value is walked (a loop
			// variable's after the value's check against the context).
			phase := phaseType
			if loopKey {
				phase = phaseAfter
			}
			r.pushOrder(pos, phase)
			var t *typ
			if loopKey {
				saved := r.local
				r.local = r.local.parent
				t = r.exprType(it.Key, 0)
				r.local = saved
			} else {
				t = r.exprType(it.Key, 0)
			}
			if !t.isAny() && !t.isStrKind() && !(t.kind == tUnion && allStr(t.elems)) {
				r.report(errkind.IllegalAttribute, it.Key.Pos(), "A attribute must be string type, got '%s'", t)
			}
			r.popOrder()
		}
		if !deferred {
			r.pushOrder(pos, phaseAfter)
			r.entryValue(it)
			r.popOrder()
		}
	}
}

// entryValue reports what the official config walk refuses of an entry's
// value: `**v` of something other than a dict or schema, `k += v` of
// something other than a list (a conditional list included).
func (r *checker) entryValue(it *syntax.ConfigEntry) {
	if it.Key == nil {
		if _, ok := it.Value.(*syntax.ConfigIfEntryExpr); ok {
			return
		}
		t := r.exprType(it.Value, 0)
		bad := t.concrete() && t.kind != tDict && t.kind != tNone
		if t.kind == tUnion {
			// A union unpacks when every member is a dict or a schema.
			for _, e := range t.elems {
				if e.kind != tDict && e.kind != tSchema && !e.isAny() {
					bad = true
				}
			}
		}
		if bad {
			r.report(errkind.Compile, it.Value.Pos(), "only dict and schema can be used ** unpack, got '%s'", t)
		}
		return
	}
	if it.Operation != syntax.OpInsert {
		return
	}
	// The value itself, a dotted key (a.b += [1]) included.
	t := r.exprType(it.Value, 0)
	if !t.isAny() && t.kind != tList {
		r.report(errkind.IllegalAttribute, it.Value.Pos(), "only list type can in inserted, got '%s'", t)
	}
}
