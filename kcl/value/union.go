package value

import (
	"fmt"
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
)

// UnionOptions steer Union as the runtime's UnionOptions do.
type UnionOptions struct {
	// ListOverride replaces lists instead of unioning them element by element.
	ListOverride bool
	// ConfigResolve re-runs a schema after config was unioned into it (via Resolve).
	ConfigResolve bool
	// IdempotentCheck reports a conflict when `:` unions two different scalars.
	IdempotentCheck bool
	// Resolve re-evaluates a schema instance with the union's config keys; set by
	// the evaluator when ConfigResolve is used. Nil keeps the instance as is.
	Resolve func(s *Schema, keys []string) (Value, error)
}

type unionState struct {
	depth     int
	t         *Thread
	opts      *UnionOptions
	conflict  bool
	backtrace []string
	objJSON   string
	deltaJSON string
}

// Union merges delta into p (KCL's `|` and config unification) and returns the
// result; p's containers are updated in place, as in the runtime. Callers that need
// `a | b` semantics pass DeepCopy(a).
func Union(t *Thread, p, delta Value, opts UnionOptions) (Value, error) {
	st := &unionState{t: t, opts: &opts}
	r, err := st.union(p, delta, true)
	if err != nil {
		return nil, err
	}
	if st.conflict {
		return nil, st.conflictError()
	}
	return r, nil
}

func (st *unionState) conflictError() *Error {
	bt := st.backtrace
	for i, j := 0, len(bt)-1; i < j; i, j = i+1, j-1 {
		bt[i], bt[j] = bt[j], bt[i]
	}
	key := bt[len(bt)-1]
	if key == "" {
		return Errorf(errkind.Evaluation, "conflicting values between %s and %s", st.deltaJSON, st.objJSON)
	}
	note := fmt.Sprintf("    {...} | {\n            ...\n            %s = %s\n            ...\n    }", key, st.deltaJSON)
	return Errorf(errkind.Evaluation, "conflicting values on the attribute '%s' between :\n    %s\nand\n    %s\nwith union path :\n    %s\ntry operator '=' to override the attribute, like:\n%s",
		key, st.objJSON, st.deltaJSON, strings.Join(bt, "."), note)
}

func (st *unionState) union(p, x Value, orMode bool) (Value, error) {
	st.depth++
	defer func() { st.depth-- }()
	if st.depth > MaxNesting {
		return nil, Errorf(errkind.Evaluation, "the values to union are nested more than %d levels deep", MaxNesting)
	}
	if IsNoneOrUndefined(p) {
		return x, nil
	}
	if IsNoneOrUndefined(x) {
		return p, nil
	}
	if isContainer(p) && isContainer(x) {
		return st.doUnion(p, x)
	}
	if orMode {
		if a, ok := p.(Int); ok {
			if b, ok := x.(Int); ok {
				return a | b, nil
			}
		}
		return nil, Errorf(errkind.Evaluation, "unsupported operand type(s) for |: '%q' and '%q'", p.Type(), x.Type())
	}
	return x, nil
}

func summaryJSON(v Value) string {
	switch v.(type) {
	case *Dict, *Schema:
		return "{...}"
	case *List:
		return "[...]"
	}
	return CompactJSON(v)
}

func (st *unionState) recordConflict(path string, obj, delta Value) {
	st.conflict = true
	st.backtrace = append(st.backtrace, path)
	st.objJSON = summaryJSON(obj)
	st.deltaJSON = summaryJSON(delta)
}

// unionDict merges delta's entries into obj following each entry's operation.
func (st *unionState) unionDict(obj, delta *Dict) error {
	obj.PotentialSchema = delta.PotentialSchema
	for _, de := range delta.entries {
		k, v := de.Key, de.Value
		i := obj.find(k)
		if i < 0 && de.Index == NoIndex {
			obj.appendEntry(de)
			continue
		}
		// the op (and an index, if any) of the delta entry replace obj's
		if i >= 0 {
			obj.entries[i].Op = de.Op
			if de.Index != NoIndex {
				obj.entries[i].Index = de.Index
			}
		}
		switch de.Op {
		case OpUnion:
			if de.Index != NoIndex {
				index := de.Index
				if i < 0 {
					return Errorf(errkind.Evaluation, "only non-empty list attribute can be union value with the index %d", index)
				}
				list, ok := obj.entries[i].Value.(*List)
				if !ok {
					return Errorf(errkind.Evaluation, "only list attribute can be union value with the index %d", index)
				}
				n, ok := normalizeIndex(index, len(list.Elems))
				if !ok {
					return Errorf(errkind.Evaluation, "only non-empty list attribute can be union value with the index %d", index)
				}
				old := list.Elems[n]
				if st.opts.IdempotentCheck && !Subsume(v, old, false) {
					st.recordConflict(fmt.Sprintf("%s[%d]", k, index), old, v)
					return nil
				}
				r, err := st.union(old, v, false)
				if err != nil {
					return err
				}
				if st.conflict {
					st.backtrace = append(st.backtrace, k)
					return nil
				}
				list.Elems[n] = r
				continue
			}
			old := obj.entries[i].Value
			if st.opts.IdempotentCheck && !Subsume(v, old, false) {
				st.recordConflict(k, old, v)
				return nil
			}
			r, err := st.union(old, v, false)
			if err != nil {
				return err
			}
			if st.conflict {
				st.backtrace = append(st.backtrace, k)
				return nil
			}
			obj.entries[i].Value = r
		case OpOverride:
			if de.Index != NoIndex {
				index := de.Index
				if i < 0 {
					return Errorf(errkind.Evaluation, "only list attribute can be override value with the index %d", index)
				}
				list, ok := obj.entries[i].Value.(*List)
				if !ok {
					return Errorf(errkind.Evaluation, "only list attribute can be override value with the index %d", index)
				}
				// The runtime's messages: Rust's own for a negative index
				// past the start and for a replacement, Vec::remove's for a
				// removal past the end.
				n, ok := normalizeIndex(index, len(list.Elems))
				switch {
				case !ok && (n < 0 || !IsUndefined(v)):
					return Errorf(errkind.Evaluation, "index out of bounds: the len is %d but the index is %d", len(list.Elems), index)
				case !ok:
					return Errorf(errkind.Evaluation, "removal index (is %d) should be < len (is %d)", n, len(list.Elems))
				}
				if IsUndefined(v) {
					list.Elems = append(list.Elems[:n], list.Elems[n+1:]...)
				} else {
					list.Elems[n] = v
				}
				continue
			}
			obj.entries[i].Value = v
		case OpInsert:
			if i < 0 {
				obj.appendEntry(Entry{Key: k, Value: NewList(nil), Op: de.Op, Index: de.Index})
				i = len(obj.entries) - 1
			} else if IsNoneOrUndefined(obj.entries[i].Value) {
				obj.entries[i].Value = NewList(nil)
			}
			origin := obj.entries[i].Value
			if origin == v {
				continue
			}
			ol, ok1 := origin.(*List)
			vl, ok2 := v.(*List)
			if !ok1 || !ok2 {
				return Errorf(errkind.Evaluation, "only list attribute can be inserted value, the origin value type is %s and got value type is %s", origin.Type(), v.Type())
			}
			if de.Index != NoIndex {
				n, _ := normalizeIndex(de.Index, len(ol.Elems))
				switch {
				case n < 0:
					return Errorf(errkind.Evaluation, "index out of bounds: the len is %d but the index is %d", len(ol.Elems), de.Index)
				case n > len(ol.Elems):
					return Errorf(errkind.Evaluation, "insertion index (is %d) should be <= len (is %d)", n, len(ol.Elems))
				}
				add := append([]Value(nil), vl.Elems...)
				ol.Elems = append(ol.Elems[:n], append(add, ol.Elems[n:]...)...)
			} else {
				ol.Elems = append(ol.Elems, vl.Elems...)
			}
		}
	}
	return nil
}

// normalizeIndex maps a possibly negative index into [0, n).
func normalizeIndex(i, n int) (int, bool) {
	if i < 0 {
		i += n
	}
	return i, i >= 0 && i < n
}

func (st *unionState) doUnion(p, x Value) (Value, error) {
	if p == x {
		return p, nil
	}
	var (
		schemaName, pkgPath string
		keys                []string
		args                []Value
		kwargs              []KV
		def                 any
		optional            map[string]bool
		result              *Schema
		asSchema            bool
	)
	switch obj := p.(type) {
	case *List:
		delta, ok := x.(*List)
		if !ok {
			break
		}
		if !st.opts.ListOverride {
			objLen := len(obj.Elems)
			for idx := range max(objLen, len(delta.Elems)) {
				if idx >= objLen {
					obj.Elems = append(obj.Elems, delta.Elems[idx])
				} else if idx < len(delta.Elems) {
					r, err := st.union(obj.Elems[idx], delta.Elems[idx], false)
					if err != nil {
						return nil, err
					}
					obj.Elems[idx] = r
					if st.conflict {
						st.backtrace = append(st.backtrace, fmt.Sprintf("list[%d]", idx))
					}
				}
			}
		}
		return p, nil
	case *Dict:
		switch delta := x.(type) {
		case *Dict:
			if err := st.unionDict(obj, delta); err != nil {
				return nil, err
			}
			return p, nil
		case *Schema:
			if err := st.unionDict(obj, delta.Config); err != nil {
				return nil, err
			}
			schemaName, pkgPath, def = delta.Name, delta.PkgPath, delta.Def
			keys = append(append([]string(nil), delta.ConfigKeys...), obj.Keys()...)
			args, kwargs, optional = delta.Args, delta.Kwargs, delta.Optional
			result = &Schema{Config: obj, Meta: delta.Meta}
			asSchema = true
		}
	case *Schema:
		switch delta := x.(type) {
		case *Dict:
			if err := st.unionDict(obj.Config, delta); err != nil {
				return nil, err
			}
			keys = append(append([]string(nil), obj.ConfigKeys...), delta.Keys()...)
			args, kwargs = obj.Args, obj.Kwargs
		case *Schema:
			if err := st.unionDict(obj.Config, delta.Config); err != nil {
				return nil, err
			}
			keys = append(append([]string(nil), obj.ConfigKeys...), delta.ConfigKeys...)
			args, kwargs = delta.Args, delta.Kwargs
		default:
			return nil, unionFailure(p, x)
		}
		schemaName, pkgPath, def, optional = obj.Name, obj.PkgPath, obj.Def, obj.Optional
		result = obj
		asSchema = true
	}
	if !asSchema {
		return nil, unionFailure(p, x)
	}
	if st.conflict {
		return p, nil
	}
	result.Name, result.PkgPath, result.Def = schemaName, pkgPath, def
	result.ConfigKeys = keys
	result.Args, result.Kwargs = args, kwargs
	result.Optional = optional
	if st.opts.ConfigResolve && st.opts.Resolve != nil {
		return st.opts.Resolve(result, keys)
	}
	return result, nil
}

func unionFailure(p, x Value) *Error {
	return Errorf(errkind.Evaluation, "union failure, expect %q, got %q", p.Type(), x.Type())
}

// Subsume reports whether v1 fits inside v2 (the runtime's value_subsume): the
// idempotence check of `:` unions.
func Subsume(v1, v2 Value, recursive bool) bool {
	if IsNoneOrUndefined(v1) || IsNoneOrUndefined(v2) {
		return true
	}
	if Equal(v1, v2) {
		return true
	}
	switch a := v1.(type) {
	case Int, Float, Bool, Str:
		return false
	case *List:
		b, ok := v2.(*List)
		if !ok || len(a.Elems) != len(b.Elems) {
			return false
		}
		for i := range a.Elems {
			if !Subsume(a.Elems[i], b.Elems[i], recursive) {
				return false
			}
		}
		return true
	}
	d1, ok1 := AsDict(v1)
	d2, ok2 := AsDict(v2)
	if !ok1 || !ok2 {
		return false
	}
	if d1.Len() == 0 {
		return true
	}
	shared := false
	for _, e := range d1.entries {
		if d2.Has(e.Key) {
			shared = true
			break
		}
	}
	if !shared {
		return true
	}
	if recursive {
		for _, e := range d1.entries {
			if w, ok := d2.Get(e.Key); ok && !Subsume(e.Value, w, recursive) {
				return false
			}
		}
	}
	return true
}

// MaxNesting bounds how deep value operations descend: self-referencing or
// absurdly deep data ends in an error or stops there, never in a stack overflow.
const MaxNesting = 10000

// DeepCopy copies containers recursively (functions and scalars are shared, as in
// the runtime). A schema instance copies to a schema instance with the same type.
// Below MaxNesting levels containers are shared rather than copied.
func DeepCopy(v Value) Value { return deepCopy(v, 0) }

func deepCopy(v Value, depth int) Value {
	if depth > MaxNesting {
		return v
	}
	switch v := v.(type) {
	case *List:
		elems := make([]Value, len(v.Elems))
		for i, e := range v.Elems {
			elems[i] = deepCopy(e, depth+1)
		}
		return NewList(elems)
	case *Dict:
		return deepCopyDict(v, depth)
	case *Schema:
		c := *v
		c.Config = deepCopyDict(v.Config, depth)
		c.ConfigKeys = append([]string(nil), v.ConfigKeys...)
		return &c
	}
	return v
}

func deepCopyDict(d *Dict, depth int) *Dict {
	c := &Dict{entries: make([]Entry, len(d.entries)), PotentialSchema: d.PotentialSchema}
	for i, e := range d.entries {
		e.Value = deepCopy(e.Value, depth+1)
		c.entries[i] = e
	}
	if d.AttrTypes != nil {
		c.AttrTypes = make(map[string]string, len(d.AttrTypes))
		for k, t := range d.AttrTypes {
			c.AttrTypes[k] = t
		}
	}
	c.reindex()
	return c
}
