package value

import (
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
)

// List is KCL's list. Elems is exposed for the evaluator and builtins; mutate it
// only before the list is frozen.
type List struct {
	Elems  []Value
	frozen bool
}

// NewList returns a list holding elems (not copied).
func NewList(elems []Value) *List { return &List{Elems: elems} }

func (l *List) Type() string { return TypeList }
func (l *List) Truth() bool  { return len(l.Elems) > 0 }

// String is the text str() gives: [1, a, {'k': 'v'}] (strings unquoted at the
// top level, as the official runtime prints them).
func (l *List) String() string {
	var b strings.Builder
	b.WriteByte('[')
	for i, e := range l.Elems {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(e.String())
	}
	b.WriteByte(']')
	return b.String()
}

// Len is the number of elements.
func (l *List) Len() int { return len(l.Elems) }

// Append adds v at the end.
func (l *List) Append(v Value) { l.Elems = append(l.Elems, v) }

// Copy returns a shallow copy, not frozen.
func (l *List) Copy() *List { return &List{Elems: append([]Value(nil), l.Elems...)} }

// Freeze makes l and everything reachable from it read-only.
func (l *List) Freeze() {
	if l.frozen {
		return
	}
	l.frozen = true
	for _, e := range l.Elems {
		Freeze(e)
	}
}

// Frozen reports whether l was frozen.
func (l *List) Frozen() bool { return l.frozen }

// CheckMutable returns an error if l is frozen.
func (l *List) CheckMutable(verb string) error {
	if l.frozen {
		return Errorf(errkind.Evaluation, "cannot %s frozen list", verb)
	}
	return nil
}

// Freeze freezes containers reachable from v; scalars are immutable already.
func Freeze(v Value) {
	if f, ok := v.(interface{ Freeze() }); ok {
		f.Freeze()
	}
}
