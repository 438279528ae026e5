package value

import (
	"fmt"
	"math"
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
)

// ConfigOp is the operation a config entry was written with: `a: v` unions,
// `a = v` overrides, `a += v` inserts (appends to a list, or at InsertIndex).
type ConfigOp uint8

const (
	OpUnion    ConfigOp = iota // a: v
	OpOverride                 // a = v
	OpInsert                   // a += v
)

func (op ConfigOp) String() string {
	switch op {
	case OpOverride:
		return "="
	case OpInsert:
		return "+="
	}
	return ":"
}

// NoIndex means an entry carries no insert index (a += v appends).
const NoIndex = math.MinInt

// Entry is one key of a Dict with the metadata config unification needs.
type Entry struct {
	Key   string
	Value Value
	Op    ConfigOp
	// Index is where an OpInsert entry inserts into the target list (a[1] += v),
	// or NoIndex.
	Index int
}

// Dict is an insertion-ordered string-keyed map, KCL's dict and config value.
// Each key remembers the operation it was written with, as the official runtime's
// DictValue does, so that later unions can honour `=` and `+=`.
type Dict struct {
	entries []Entry
	index   map[string]int // key -> position in entries; nil while small
	// AttrTypes maps a key to its declared type annotation (schema attributes).
	AttrTypes map[string]string
	// PotentialSchema is the schema type a dict literal was written against
	// (set by the evaluator when a dict flows into a schema-typed slot).
	PotentialSchema string
	frozen          bool
}

// smallDict is the size below which lookups scan instead of using the index map;
// most KCL dicts are small and the map costs more than it saves.
const smallDict = 8

// NewDict returns an empty dict with room for n entries.
func NewDict(n int) *Dict {
	return &Dict{entries: make([]Entry, 0, n)}
}

// DictOf builds a dict from alternating string keys and values (for tests and
// builtins): DictOf("a", Int(1), "b", Str("x")).
func DictOf(kv ...any) *Dict {
	d := NewDict(len(kv) / 2)
	for i := 0; i+1 < len(kv); i += 2 {
		d.Set(kv[i].(string), kv[i+1].(Value))
	}
	return d
}

func (d *Dict) Type() string { return TypeDict }
func (d *Dict) Truth() bool  { return len(d.entries) > 0 }

// String is the text str() gives: {'a': 1, 'b': 'x'}.
func (d *Dict) String() string {
	var b strings.Builder
	writeDictText(&b, d)
	return b.String()
}

// Len is the number of keys.
func (d *Dict) Len() int { return len(d.entries) }

func (d *Dict) find(key string) int {
	if d.index != nil {
		if i, ok := d.index[key]; ok {
			return i
		}
		return -1
	}
	for i := range d.entries {
		if d.entries[i].Key == key {
			return i
		}
	}
	return -1
}

func (d *Dict) reindex() {
	if len(d.entries) <= smallDict {
		d.index = nil
		return
	}
	if d.index == nil {
		d.index = make(map[string]int, len(d.entries)*2)
	} else {
		clear(d.index)
	}
	for i := range d.entries {
		d.index[d.entries[i].Key] = i
	}
}

// Get returns the value at key.
func (d *Dict) Get(key string) (Value, bool) {
	if i := d.find(key); i >= 0 {
		return d.entries[i].Value, true
	}
	return nil, false
}

// Has reports whether key is present.
func (d *Dict) Has(key string) bool { return d.find(key) >= 0 }

// Entry returns the entry at key, with its operation metadata.
func (d *Dict) Entry(key string) (Entry, bool) {
	if i := d.find(key); i >= 0 {
		return d.entries[i], true
	}
	return Entry{}, false
}

// Set stores value at key, keeping the key's position (and metadata) if it exists.
func (d *Dict) Set(key string, v Value) {
	if i := d.find(key); i >= 0 {
		d.entries[i].Value = v
		return
	}
	d.appendEntry(Entry{Key: key, Value: v, Op: OpUnion, Index: NoIndex})
}

// SetEntry stores value, operation and insert index at key, keeping the key's
// position if it exists (IndexMap::insert semantics).
func (d *Dict) SetEntry(e Entry) {
	if i := d.find(e.Key); i >= 0 {
		d.entries[i] = e
		return
	}
	d.appendEntry(e)
}

// SetOp changes only the recorded operation of an existing key.
func (d *Dict) SetOp(key string, op ConfigOp, index int) {
	if i := d.find(key); i >= 0 {
		d.entries[i].Op = op
		d.entries[i].Index = index
	}
}

func (d *Dict) appendEntry(e Entry) {
	d.entries = append(d.entries, e)
	if d.index != nil {
		d.index[e.Key] = len(d.entries) - 1
	} else if len(d.entries) > smallDict {
		d.reindex()
	}
}

// Delete removes key the way the official runtime does (IndexMap::swap_remove):
// the last entry moves into the removed slot.
func (d *Dict) Delete(key string) bool {
	i := d.find(key)
	if i < 0 {
		return false
	}
	last := len(d.entries) - 1
	if d.index != nil {
		delete(d.index, key)
	}
	if i != last {
		d.entries[i] = d.entries[last]
		if d.index != nil {
			d.index[d.entries[i].Key] = i
		}
	}
	d.entries[last] = Entry{}
	d.entries = d.entries[:last]
	return true
}

// DeleteOrdered removes key keeping the order of the others (IndexMap::shift_remove).
func (d *Dict) DeleteOrdered(key string) bool {
	i := d.find(key)
	if i < 0 {
		return false
	}
	copy(d.entries[i:], d.entries[i+1:])
	d.entries[len(d.entries)-1] = Entry{}
	d.entries = d.entries[:len(d.entries)-1]
	d.reindex()
	return true
}

// Clear removes every key.
func (d *Dict) Clear() {
	clear(d.entries)
	d.entries = d.entries[:0]
	d.index = nil
}

// Keys returns the keys in insertion order.
func (d *Dict) Keys() []string {
	keys := make([]string, len(d.entries))
	for i := range d.entries {
		keys[i] = d.entries[i].Key
	}
	return keys
}

// Entries returns the entries in insertion order. The slice is the dict's own:
// do not modify it, and do not keep it across mutations.
func (d *Dict) Entries() []Entry { return d.entries }

// At returns the i-th entry in insertion order.
func (d *Dict) At(i int) Entry { return d.entries[i] }

// Copy returns a shallow copy with the same metadata, not frozen.
func (d *Dict) Copy() *Dict {
	c := &Dict{
		entries:         append([]Entry(nil), d.entries...),
		PotentialSchema: d.PotentialSchema,
	}
	if d.AttrTypes != nil {
		c.AttrTypes = make(map[string]string, len(d.AttrTypes))
		for k, v := range d.AttrTypes {
			c.AttrTypes[k] = v
		}
	}
	c.reindex()
	return c
}

// Freeze makes d and everything reachable from it read-only.
func (d *Dict) Freeze() {
	if d.frozen {
		return
	}
	d.frozen = true
	for i := range d.entries {
		Freeze(d.entries[i].Value)
	}
}

// Frozen reports whether d was frozen.
func (d *Dict) Frozen() bool { return d.frozen }

// CheckMutable returns an error if d is frozen.
func (d *Dict) CheckMutable(verb string) error {
	if d.frozen {
		return Errorf(errkind.Evaluation, "cannot %s frozen dict", verb)
	}
	return nil
}

func writeDictText(b *strings.Builder, d *Dict) {
	b.WriteByte('{')
	for i, e := range d.entries {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(QuotedString(e.Key))
		b.WriteString(": ")
		if s, ok := e.Value.(Str); ok {
			b.WriteString(QuotedString(string(s)))
		} else {
			b.WriteString(e.Value.String())
		}
	}
	b.WriteByte('}')
}

// QuotedString quotes s the way the runtime does inside str() of a dict:
// 'abc', or "it's" when s holds a single quote.
func QuotedString(s string) string {
	hasSingle := strings.Contains(s, "'")
	hasDouble := strings.Contains(s, `"`)
	switch {
	case !hasDouble:
		return "'" + s + "'"
	case !hasSingle:
		return `"` + s + `"`
	}
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
}

var _ fmt.Stringer = (*Dict)(nil)
