package eval

import (
	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

var configOps = [...]value.ConfigOp{syntax.OpUnion: value.OpUnion, syntax.OpOverride: value.OpOverride, syntax.OpInsert: value.OpInsert}

// evalConfig builds a config literal: entries merge into the dict according to
// their operation, as the runtime's dict_insert does.
func (in *Interp) evalConfig(e *env, x *syntax.ConfigExpr) (value.Value, error) {
	d := value.NewDict(len(x.Items))
	ce := *e
	ce.locals = &locals{config: d, parent: e.locals}
	if err := in.addConfigEntries(&ce, d, x.Items); err != nil {
		return nil, err
	}
	if err := in.thread.Alloc(d.Len() + 1); err != nil {
		return nil, locate(err, x.Pos())
	}
	return d, nil
}

func (in *Interp) addConfigEntries(e *env, d *value.Dict, items []*syntax.ConfigEntry) error {
	for _, it := range items {
		if err := in.addConfigEntry(e, d, it); err != nil {
			return err
		}
	}
	return nil
}

func (in *Interp) addConfigEntry(e *env, d *value.Dict, it *syntax.ConfigEntry) error {
	if it.Key == nil {
		if ife, ok := it.Value.(*syntax.ConfigIfEntryExpr); ok {
			return in.addConfigIf(e, d, ife)
		}
		// **unpacking
		v, err := in.eval(e, it.Value)
		if err != nil {
			return err
		}
		if value.IsNoneOrUndefined(v) {
			return nil
		}
		src, ok := value.AsDict(v)
		if !ok {
			return errUnpack(v, it.Pos())
		}
		// The runtime unpacks a deep copy: `{**base, val += [1]}` must not
		// change base.val.
		for _, ent := range src.Entries() {
			if err := in.mergeEntry(d, ent.Key, value.DeepCopy(ent.Value), ent.Op, ent.Index, it.Pos()); err != nil {
				return err
			}
		}
		return nil
	}
	in.curPos = it.Pos()
	v, err := in.eval(e, it.Value)
	if err != nil {
		return err
	}
	op := configOps[it.Operation]
	var path []string
	index := value.NoIndex
	switch k := it.Key.(type) {
	case *syntax.Identifier:
		for _, n := range k.Names {
			path = append(path, n.Value)
		}
		// A key naming a loop variable uses its value.
		if v, ok := e.locals.loopVar(path[0]); ok {
			path[0] = keyString(v)
		}
	case *syntax.StringLit:
		path = []string{k.Value}
	case *syntax.Subscript:
		// `a[0] = v` and `a[1] += [v]` index into an existing list attribute;
		// other subscripts are ordinary key expressions.
		base, isIdent := k.Value.(*syntax.Identifier)
		var n value.Int
		isIndex := false
		if isIdent && k.Index != nil {
			if lit, ok := k.Index.(*syntax.NumberLit); ok && !lit.IsFloat {
				n, isIndex = value.Int(lit.Int), true
			} else if u, ok := k.Index.(*syntax.UnaryExpr); ok && u.Op == syntax.USub {
				if lit, ok := u.Operand.(*syntax.NumberLit); ok && !lit.IsFloat {
					n, isIndex = value.Int(-lit.Int), true
				}
			}
		}
		if isIndex {
			index = int(n)
			for _, nm := range base.Names {
				path = append(path, nm.Value)
			}
			break
		}
		kv, err := in.eval(e, k)
		if err != nil {
			return err
		}
		if value.IsNoneOrUndefined(kv) {
			return nil
		}
		path = []string{kv.String()}
	case *syntax.NumberLit, *syntax.NameConstantLit:
		kv, err := in.eval(e, it.Key)
		if err != nil {
			return err
		}
		return errorAt(it.Key.Pos(), errkind.IllegalAttribute, "A attribute must be string type, got '%s(%s)'", kv.Type(), kv.String())
	default:
		kv, err := in.eval(e, it.Key)
		if err != nil {
			return err
		}
		if value.IsNoneOrUndefined(kv) {
			return nil
		}
		path = []string{kv.String()}
	}
	if l := e.locals; l != nil && l.config == d {
		switch it.Key.(type) {
		case *syntax.Identifier, *syntax.StringLit:
			if l.named == nil {
				l.named = map[string]bool{}
			}
			l.named[path[0]] = true
		}
	}
	// a.b.c: v is {a: {b: {c: v}}}, the operation applying to the last key.
	for i := len(path) - 1; i > 0; i-- {
		inner := value.NewDict(1)
		inner.SetEntry(value.Entry{Key: path[i], Value: v, Op: op, Index: index})
		v, op, index = inner, value.OpUnion, value.NoIndex
	}
	return in.mergeEntry(d, path[0], v, op, index, it.Pos())
}

func (in *Interp) addConfigIf(e *env, d *value.Dict, x *syntax.ConfigIfEntryExpr) error {
	c, err := in.eval(e, x.IfCond)
	if err != nil {
		return err
	}
	if c.Truth() {
		return in.addConfigEntries(e, d, x.Items)
	}
	switch o := x.Orelse.(type) {
	case nil:
		return nil
	case *syntax.ConfigIfEntryExpr:
		return in.addConfigIf(e, d, o)
	case *syntax.ConfigExpr:
		return in.addConfigEntries(e, d, o.Items)
	}
	return errorAt(x.Pos(), errkind.Compile, "invalid config if entry")
}

// mergeEntry inserts key into d, unioning with an existing value.
func (in *Interp) mergeEntry(d *value.Dict, key string, v value.Value, op value.ConfigOp, index int, pos syntax.Position) error {
	old, exists := d.Get(key)
	if !exists && index == value.NoIndex {
		d.SetEntry(value.Entry{Key: key, Value: v, Op: op, Index: index})
		return nil
	}
	if exists && op == value.OpUnion && index == value.NoIndex && isContainerValue(old) && isContainerValue(v) {
		d.Set(key, value.DeepCopy(old))
	}
	delta := value.NewDict(1)
	delta.SetEntry(value.Entry{Key: key, Value: v, Op: op, Index: index})
	// A config literal's entries are inserted with the runtime's idempotent
	// check (dict_insert): {a: 1, a: 2} is a conflict, {a: 1, a: 1} is not.
	opts := in.unionOptions()
	opts.IdempotentCheck = true
	if _, err := value.Union(in.thread, d, delta, opts); err != nil {
		return locate(err, lineOnly(pos))
	}
	return nil
}

func (in *Interp) unionOptions() value.UnionOptions {
	return value.UnionOptions{ConfigResolve: true, Resolve: in.resolveSchema}
}

// union merges b into a copy of a (unification statements, schema defaults).
func (in *Interp) union(a, b value.Value, pos syntax.Position) (value.Value, error) {
	if !isContainerValue(a) || !isContainerValue(b) {
		if value.IsNoneOrUndefined(b) {
			return a, nil
		}
		return b, nil
	}
	r, err := value.Union(in.thread, value.DeepCopy(a), b, in.unionOptions())
	if err != nil {
		return nil, locate(err, lineOnly(pos))
	}
	return r, nil
}

// unionOr is the `|` operator on containers.
func (in *Interp) unionOr(a, b value.Value, pos syntax.Position) (value.Value, error) {
	if !isContainerValue(a) || !isContainerValue(b) {
		return in.union(a, b, pos)
	}
	// `|` unions with the runtime's default options: the idempotent check on.
	opts := in.unionOptions()
	opts.IdempotentCheck = true
	r, err := value.Union(in.thread, value.DeepCopy(a), b, opts)
	if err != nil {
		return nil, locate(err, lineOnly(pos))
	}
	return r, nil
}

func (in *Interp) evalListComp(e *env, x *syntax.ListComp) (value.Value, error) {
	var out []value.Value
	err := in.comprehend(e, x.Generators, func(ce *env) error {
		if st, ok := x.Elt.(*syntax.StarredExpr); ok {
			v, err := in.eval(ce, st.Value)
			if err != nil {
				return err
			}
			items, err := unpackList(v, st.Pos())
			if err != nil {
				return err
			}
			out = append(out, items...)
			return nil
		}
		v, err := in.eval(ce, x.Elt)
		if err != nil {
			return err
		}
		out = append(out, v)
		return in.thread.Alloc(1)
	})
	if err != nil {
		return nil, locate(err, x.Pos())
	}
	return value.NewList(out), nil
}

func (in *Interp) evalDictComp(e *env, x *syntax.DictComp) (value.Value, error) {
	d := value.NewDict(4)
	err := in.comprehend(e, x.Generators, func(ce *env) error {
		entry := x.Entry
		if id, ok := entry.Key.(*syntax.Identifier); ok {
			// Dict comprehension keys are expressions.
			kv, err := in.evalIdentifier(ce, id)
			if err != nil {
				return err
			}
			ne := *entry
			ne.Key = &syntax.StringLit{Span: id.Span, Value: keyString(kv)}
			entry = &ne
		}
		if err := in.addConfigEntry(ce, d, entry); err != nil {
			return err
		}
		return in.thread.Alloc(1)
	})
	if err != nil {
		return nil, locate(err, x.Pos())
	}
	return d, nil
}

// comprehend runs body once per combination of the generators' variables.
func (in *Interp) comprehend(e *env, gens []*syntax.CompClause, body func(*env) error) error {
	if len(gens) == 0 {
		return body(e)
	}
	g := gens[0]
	if len(g.Targets) > 2 {
		return errorAt(g.Targets[2].Pos(), errkind.Compile, "the number of loop variables is %d, which can only be 1 or 2", len(g.Targets))
	}
	for _, t := range g.Targets {
		if len(t.Names) > 1 {
			return errorAt(t.Pos(), errkind.Compile, "loop variables can only be ordinary identifiers")
		}
	}
	it, err := in.eval(e, g.Iter)
	if err != nil {
		return err
	}
	return in.forEach(it, len(g.Targets), g.Pos(), func(a, b value.Value) error {
		vars := map[string]value.Value{}
		bindLoopVars(vars, g.Targets, a, b)
		ce := e.withLoopVars(vars)
		for _, cond := range g.Ifs {
			c, err := in.eval(ce, cond)
			if err != nil {
				return err
			}
			if !c.Truth() {
				return nil
			}
		}
		return in.comprehend(ce, gens[1:], body)
	})
}

func bindLoopVars(vars map[string]value.Value, targets []*syntax.Identifier, a, b value.Value) {
	if len(targets) == 1 {
		vars[targets[0].Name()] = a
		return
	}
	if len(targets) >= 2 {
		vars[targets[0].Name()] = a
		vars[targets[1].Name()] = b
	}
}

// forEach walks a collection: with one variable it yields elements (keys of a
// dict); with two, index and element (key and value).
func (in *Interp) forEach(it value.Value, nvars int, pos syntax.Position, fn func(a, b value.Value) error) error {
	switch c := it.(type) {
	case *value.List:
		elems := append([]value.Value(nil), c.Elems...)
		for i, el := range elems {
			if err := in.thread.Check(); err != nil {
				return err
			}
			var err error
			if nvars >= 2 {
				err = fn(value.Int(i), el)
			} else {
				err = fn(el, nil)
			}
			if err != nil {
				return err
			}
		}
		return nil
	case *value.Dict, *value.Schema:
		d, _ := value.AsDict(c)
		entries := append([]value.Entry(nil), d.Entries()...)
		for _, ent := range entries {
			if err := fn(value.Str(ent.Key), ent.Value); err != nil {
				return err
			}
		}
		return nil
	case value.Str:
		i := 0
		for _, r := range string(c) {
			var err error
			if nvars >= 2 {
				err = fn(value.Int(i), value.Str(string(r)))
			} else {
				err = fn(value.Str(string(r)), nil)
			}
			if err != nil {
				return err
			}
			i++
		}
		return nil
	}
	// None and Undefined are not iterable either: a comprehension over a
	// missing option("items") fails instead of yielding nothing.
	return errorAt(lineOnly(pos), errkind.Evaluation, "'%s' object is not iterable", it.Type())
}

func (in *Interp) evalQuant(e *env, x *syntax.QuantExpr) (value.Value, error) {
	target, err := in.eval(e, x.Target)
	if err != nil {
		return nil, err
	}
	// The official scope opens after the target is evaluated (see lazy.go).
	defer in.leaveScope(in.enterScope())
	var mapped []value.Value
	var filteredList []value.Value
	var filteredDict *value.Dict
	if _, ok := value.AsDict(target); ok {
		filteredDict = value.NewDict(4)
	}
	result := x.Op == syntax.QuantAll
	stop := errStop{}
	err = in.forEach(target, len(x.Variables), x.Pos(), func(a, b value.Value) error {
		vars := map[string]value.Value{}
		bindLoopVars(vars, x.Variables, a, b)
		ce := e.withLoopVars(vars)
		if x.IfCond != nil {
			c, err := in.eval(ce, x.IfCond)
			if err != nil {
				return err
			}
			if !c.Truth() {
				return nil
			}
		}
		t, err := in.eval(ce, x.Test)
		if err != nil {
			return err
		}
		switch x.Op {
		case syntax.QuantAll:
			if !t.Truth() {
				result = false
				return stop
			}
		case syntax.QuantAny:
			if t.Truth() {
				result = true
				return stop
			}
		case syntax.QuantMap:
			mapped = append(mapped, t)
		case syntax.QuantFilter:
			if _, isStr := target.(value.Str); isStr && !t.Truth() {
				// The official filter removes what fails from a copy of
				// its target: a str has no items to remove.
				return errorAt(lineOnly(x.Pos()), errkind.Evaluation, "only list, dict and schema can be removed item")
			}
			if t.Truth() {
				if filteredDict != nil {
					filteredDict.Set(a.String(), b)
				} else if len(x.Variables) >= 2 {
					filteredList = append(filteredList, b)
				} else {
					filteredList = append(filteredList, a)
				}
			}
		}
		return nil
	})
	if err != nil && err != error(stop) {
		return nil, err
	}
	switch x.Op {
	case syntax.QuantMap:
		return value.NewList(mapped), nil
	case syntax.QuantFilter:
		if filteredDict != nil {
			return filteredDict, nil
		}
		if s, isStr := target.(value.Str); isStr {
			return s, nil
		}
		return value.NewList(filteredList), nil
	}
	return value.Bool(result), nil
}

type errStop struct{}

func (errStop) Error() string { return "stop" }

func keyString(v value.Value) string {
	if s, ok := v.(value.Str); ok {
		return string(s)
	}
	return v.String()
}
