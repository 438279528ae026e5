package check

import (
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

func (r *checker) pushOrder(pos syntax.Position, phase int) {
	r.orderPath = append(r.orderPath, orderElem{pos.Line, pos.Col, phase})
	r.orderDone = r.orderDone[:min(len(r.orderDone), len(r.orderPath))]
}

// pushLast tags what follows as met after every entry of the config.
func (r *checker) pushLast() {
	r.pushOrder(syntax.Position{Line: int(^uint(0) >> 1)}, phaseKey)
}

func (r *checker) popOrder() {
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
func (r *checker) tag(d *Diagnostic) {
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
func (r *checker) sortFrom(start int) {
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
func (r *checker) asValue(f func()) {
	last := &r.orderPath[len(r.orderPath)-1]
	phase := last.phase
	last.phase = phaseValue
	f()
	r.orderPath[len(r.orderPath)-1].phase = phase
}
