// Schema instantiation: a call or `Name {...}` runs the schema body of each
// type in the inheritance chain over a frame (the instance under construction)
// with the config merged in, then the checks.

package eval

import (
	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

// schemaFrame is one schema instance under construction.
type schemaFrame struct {
	// converted: see instanceMeta.converted.
	converted bool
	// cfgExpr is the config literal the instance was written with, if any,
	// to locate type errors at the offending entry.
	cfgExpr *syntax.ConfigExpr
	def     *schemaDef
	inst    *value.Dict
	config  *value.Dict
	ls      *lazyScope
	envs    map[*fileUnit]*env
	// stmtEnv gives each statement of the combined bodies its environment.
	stmtEnv []*env
	// output is the instance made, while its checks run.
	output *value.Schema
	// params are the parameters of each schema of the chain, bound once
	// for the body and the checks (a default runs once per instance).
	params map[*schemaDef]*locals
}

// schemaExprType is the type of `Name {...}`: a schema (or a value to union
// into), or a type alias naming a schema (`type PO = Person; PO {}`, also
// pkg.PO from another package).
func (in *Interp) schemaExprType(e *env, name *syntax.Identifier) (value.Value, error) {
	// An alias of an alias is followed a few times; a cycle ends as a name.
	for range 16 {
		a, ae, ok := in.findAlias(e, name)
		if !ok {
			break
		}
		nt, ok := a.ty.(*syntax.NamedType)
		if !ok {
			// An alias of another type (a dict, any) names no value at
			// run time: 0.12.1 unions the config into nothing.
			return value.Undefined, nil
		}
		e, name = ae, nt.Identifier
	}
	return in.evalIdentifier(e, name)
}

func (in *Interp) evalSchemaExpr(e *env, x *syntax.SchemaExpr) (value.Value, error) {
	in.exprStack++
	defer func() { in.exprStack-- }()
	tv, err := in.schemaExprType(e, x.Name)
	if err != nil {
		return nil, err
	}
	var cfg value.Value = value.NewDict(0)
	if x.Config != nil {
		cfg, err = in.eval(e, x.Config)
		if err != nil {
			return nil, err
		}
	}
	args, kwargs, err := in.evalArgs(e, x.Args, x.Kwargs)
	if err != nil {
		return nil, err
	}
	def, ok := schemaDefOf(tv)
	if !ok {
		// `value {config}` unions config into a copy of what the name
		// holds, as 0.12.1 does for a name the static pass lets through
		// (an any): a dict or instance, None or nothing; a function gives
		// nothing, any other value cannot be or-ed with a dict.
		// A failure is located where the runtime is then: the last
		// config entry evaluated, else the expression.
		at := x.Pos()
		if c := in.curPos; c.File == at.File && c.Offset > at.Offset {
			at = c
		}
		switch {
		case isContainerValue(tv), value.IsNoneOrUndefined(tv):
			return in.union(tv, cfg, at)
		case tv.Type() == value.TypeFunction:
			return value.Undefined, nil
		}
		return nil, errorAt(lineOnly(at), errkind.Evaluation, "unsupported operand type(s) for |: '%q' and '%q'", tv.Type(), cfg.Type())
	}
	d, ok := value.AsDict(cfg)
	if !ok {
		return nil, errorAt(x.Pos(), errkind.Type, "schema config must be a dict, got %s", cfg.Type())
	}
	in.nextCfgExpr, _ = x.Config.(*syntax.ConfigExpr)
	return in.instantiate(def, d, args, kwargs, x.Pos(), e.pkg.path)
}

// resolveSchema re-runs a schema after a union changed its config.
// A union re-runs an instance where the official runtime is at that moment:
// the line of the statement or config entry, at its first column (so a failed
// check shows a caret there).
func (in *Interp) resolveSchema(s *value.Schema, keys []string) (value.Value, error) {
	pos := in.curPos
	if pos.IsValid() {
		pos.Col = 1
	}
	return in.resolveSchemaAt(s, keys, pos)
}

// resolveSchemaAt is resolveSchema with errors located at pos.
func (in *Interp) resolveSchemaAt(s *value.Schema, keys []string, pos syntax.Position) (value.Value, error) {
	def, ok := s.Def.(*schemaDef)
	if !ok {
		return s, nil
	}
	cfg := value.NewDict(len(keys))
	seen := map[string]bool{}
	for _, k := range keys {
		if seen[k] {
			continue
		}
		seen[k] = true
		if v, ok := s.Config.Get(k); ok {
			cfg.SetEntry(value.Entry{Key: k, Value: v, Op: value.OpOverride, Index: value.NoIndex})
		}
	}
	if m, ok := s.Meta.(instanceMeta); ok {
		in.nextOrigin = m.pos
		in.nextConverted = m.converted
		in.nextCalledOrigin = m.called
	}
	recordPkg := ""
	if in.snapshots {
		recordPkg = s.PkgPath // a re-run is an instance of its own
	}
	return in.instantiate(def, cfg, s.Args, s.Kwargs, pos, recordPkg)
}

// instantiate builds an instance of def from a config.
// instantiate builds an instance; recordPkg is the package creating it, for
// instances(), or "" when a union re-runs an existing instance.
func (in *Interp) instantiate(def *schemaDef, config *value.Dict, args []value.Value, kwargs []value.KV, pos syntax.Position, recordPkg string) (value.Value, error) {
	if def.rule != nil {
		return in.instantiateRule(def, config, args, kwargs, pos, recordPkg)
	}
	cfgExpr := in.nextCfgExpr
	in.nextCfgExpr = nil
	origin := pos
	if in.nextOrigin.IsValid() {
		origin = in.nextOrigin
	}
	in.nextOrigin = syntax.Position{}
	converted := in.nextConverted
	in.nextConverted = false
	checkAt := pos
	called := in.nextCalled || in.nextCalledOrigin
	if in.nextCalled {
		checkAt = syntax.Position{}
	}
	in.nextCalled, in.nextCalledOrigin = false, false
	for d := def; d != nil; d = d.parent {
		if d.selfParent {
			// The official engine's own failure, word for word.
			return nil, errorAt(lineOnly(pos), errkind.Evaluation, "RefCell already borrowed")
		}
	}
	// Protocols and mixins are instantiated like schemas, as in 0.12.1.
	if err := in.thread.Enter(); err != nil {
		return nil, locate(err, pos)
	}
	defer in.thread.Leave()
	// A deprecated base schema makes its subclasses deprecated; the base is
	// reported first, as in 0.12.1.
	for _, d := range def.chain() {
		if d.stmt != nil {
			if err := in.checkDeprecated(d.env, d.stmt.Decorators, d.name, pos); err != nil {
				return nil, err
			}
		}
	}
	for _, ent := range config.Entries() {
		if a, ok := def.attrDecls()[ent.Key]; ok && len(a.decorators) > 0 && !value.IsNoneOrUndefined(ent.Value) {
			if err := in.checkDeprecated(a.env, a.decorators, ent.Key, pos); err != nil {
				return nil, err
			}
		}
	}
	if len(args) > 0 || len(kwargs) > 0 {
		hasParams := false
		for _, d := range def.chain() {
			if d.stmt != nil && d.stmt.Args != nil && len(d.stmt.Args.Args) > 0 {
				hasParams = true
			}
		}
		if !hasParams {
			if len(kwargs) > 0 {
				return nil, errorAt(pos, errkind.Compile, "\"%s\" got an unexpected keyword argument '%s'", def.name, kwargs[0].Key)
			}
			return nil, errorAt(pos, errkind.Compile, "\"%s\" takes 0 positional argument but %d were given", def.name, len(args))
		}
	}
	in.schemaStack++
	defer func() { in.schemaStack-- }()
	f := &schemaFrame{def: def, inst: value.NewDict(len(def.attrNames()) + config.Len()), config: config, cfgExpr: cfgExpr, converted: converted}
	// Combined bodies: ancestors first, each followed by its mixins.
	var refs []stmtRef
	var envs []*env
	var segs []bodySegment
	addBody := func(d *schemaDef, body []syntax.Stmt, params *syntax.Arguments, mixin bool) error {
		be := &env{file: d.env.file, pkg: d.env.pkg, schema: f}
		if params != nil {
			vars, err := in.bindParams(d.env, params, args, kwargs, pos, f.converted, false)
			if err != nil {
				return err
			}
			be.locals = &locals{vars: vars, params: true}
			if f.params == nil {
				f.params = map[*schemaDef]*locals{}
			}
			f.params[d] = be.locals
		}
		segs = append(segs, bodySegment{start: len(refs), end: len(refs) + len(body), mixin: mixin})
		for _, st := range body {
			refs = append(refs, stmtRef{stmt: st, file: d.env.file})
			envs = append(envs, be)
		}
		return nil
	}
	for _, d := range def.chain() {
		if d.stmt != nil {
			if err := addBody(d, d.stmt.Body, d.stmt.Args, false); err != nil {
				return nil, err
			}
		}
		for _, m := range d.mixins {
			if m.stmt != nil {
				if err := addBody(m, m.stmt.Body, nil, true); err != nil {
					return nil, err
				}
			}
		}
	}
	f.ls = newLazyScope(refs)
	f.stmtEnv = envs
	for _, name := range def.known {
		f.inst.Set(name, value.Undefined)
	}
	for _, name := range f.ls.order {
		f.inst.Set(name, value.Undefined)
	}
	in.frameStack = append(in.frameStack, frameRef{f: f, lazy: true})
	defer func(n int) { in.frameStack = in.frameStack[:n] }(len(in.frameStack) - 1)
	defer in.leaveScope(in.enterScope())
	// Each body of the chain runs with a fresh backtracking state, each mixin
	// with a copy of its host's (see lazy.go).
	owner := f.ls.st
	for k, sg := range segs {
		switch {
		case sg.mixin:
			f.ls.st = owner.clone()
		case k > 0:
			f.ls.st = newLazyState(len(f.ls.lay.names))
			owner = f.ls.st
		}
		for i := sg.start; i < sg.end; i++ {
			if err := in.execStmt(f.stmtEnv[i], f.ls.stmts[i].stmt); err != nil {
				return nil, err
			}
		}
	}
	f.ls.st = owner
	// Config keys the body did not assign: placeholders of attributes take the
	// config value; other keys need an index signature.
	var relaxedKeys []string
	for _, ent := range config.Entries() {
		if v, ok := f.inst.Get(ent.Key); ok {
			if value.IsUndefined(v) {
				f.inst.SetEntry(value.Entry{Key: ent.Key, Value: ent.Value, Op: ent.Op, Index: ent.Index})
			}
			continue
		}
		if def.indexSig == nil {
			// A key of a literal config is the static pass's CompileError;
			// one that arrives at run time (inst | {...}) is the official
			// EvaluationError at the schema body's first line.
			at := lineOnly(pos)
			if def.stmt != nil && len(def.stmt.Body) > 0 {
				at = lineOnly(def.stmt.Body[0].Pos())
			}
			return nil, errorAt(at, errkind.Evaluation, "No attribute named '%s' in the schema '%s'", ent.Key, def.name)
		}
		relaxedKeys = append(relaxedKeys, ent.Key)
	}
	checked := false
	if def.indexSig != nil && def.indexSig.KeyName != nil {
		// As the runtime does: bind the key name as an attribute while each
		// relaxed key is added and checked, then swap-remove it.
		keyName := def.indexSig.KeyName.Value
		for _, k := range relaxedKeys {
			f.inst.Set(keyName, value.Str(k))
			if err := in.addRelaxed(f, k, pos); err != nil {
				return nil, err
			}
			if err := in.runChecks(def, f, args, kwargs, checkAt); err != nil {
				return nil, err
			}
		}
		f.inst.Delete(keyName)
		checked = true
	} else {
		for _, k := range relaxedKeys {
			if err := in.addRelaxed(f, k, pos); err != nil {
				return nil, err
			}
		}
	}
	inst := &value.Schema{Name: def.name, PkgPath: def.pkgPath, Config: f.inst, Def: def, Meta: instanceMeta{config: config, pos: origin, converted: converted, called: called}, Args: args, Kwargs: kwargs}
	for _, ent := range config.Entries() {
		inst.ConfigKeys = append(inst.ConfigKeys, ent.Key)
	}
	inst.Optional = map[string]bool{}
	for name, a := range def.attrDecls() {
		inst.Optional[name] = a.optional
	}
	// Required attributes are checked on top-level instances only (nested ones
	// may still be completed by a union), recursively.
	if in.schemaStack <= 1 && in.exprStack <= 1 {
		if err := checkRequired(inst, pos, in.curPos); err != nil {
			return nil, err
		}
	}
	if !checked {
		// The official instance is made before its checks run: what a check's
		// read runs by backtracking changes the scope's values, not the
		// instance's (see runFrameSetter).
		f.output = inst
		if err := in.runChecks(def, f, args, kwargs, checkAt); err != nil {
			return nil, err
		}
		f.output = nil
	}
	if recordPkg != "" {
		var rec value.Value = inst
		if in.snapshots {
			// A copy with a config of its own: an edit of a nested value
			// still reaches it, a re-run (a new config) does not.
			c := inst.Copy()
			// Its arguments are lost: a re-run binds no arguments.
			c.Args, c.Kwargs = nil, nil
			if m, ok := c.Meta.(instanceMeta); ok {
				m.converted = true
				c.Meta = m
			}
			rec = c
		}
		for _, d := range def.chain() {
			d.instances = append(d.instances, instanceRecord{v: rec, pkg: recordPkg})
		}
	}
	if err := in.thread.Alloc(f.inst.Len() + 1); err != nil {
		return nil, locate(err, pos)
	}
	return inst, nil
}

// instantiateRule evaluates a rule as 0.12.1's rule_body does: a rule with
// a protocol host is the protocol's instance made from the config (its
// defaults, types and order; a protocol takes no arguments); one without is
// an empty dict and reads no config.
// The rule's decorators, then the checks of its parent rules and its own,
// run over that value's attributes.
func (in *Interp) instantiateRule(def *schemaDef, config *value.Dict, args []value.Value, kwargs []value.KV, pos syntax.Position, recordPkg string) (value.Value, error) {
	checkAt := pos
	if in.nextCalled {
		checkAt = syntax.Position{}
	}
	if len(args) > 0 || len(kwargs) > 0 {
		if a := def.rule.Args; a == nil || len(a.Args) == 0 {
			if len(kwargs) > 0 {
				return nil, errorAt(pos, errkind.Compile, "\"%s\" got an unexpected keyword argument '%s'", def.name, kwargs[0].Key)
			}
			return nil, errorAt(pos, errkind.Compile, "\"%s\" takes 0 positional argument but %d were given", def.name, len(args))
		}
	}
	var out value.Value
	attrs := value.NewDict(0)
	if def.host != nil {
		v, err := in.instantiate(def.host, config, nil, nil, pos, recordPkg)
		if err != nil {
			return nil, err
		}
		out = v
		if s, ok := v.(*value.Schema); ok {
			attrs = s.Config
		}
	} else {
		in.nextCfgExpr, in.nextOrigin = nil, syntax.Position{}
		in.nextConverted, in.nextCalled, in.nextCalledOrigin = false, false, false
		out = attrs
	}
	if err := in.checkDeprecated(def.env, def.rule.Decorators, def.name, pos); err != nil {
		return nil, err
	}
	f := &schemaFrame{def: def, inst: attrs, config: value.NewDict(0), ls: newLazyScope(nil)}
	in.frameStack = append(in.frameStack, frameRef{f: f})
	defer func(n int) { in.frameStack = in.frameStack[:n] }(len(in.frameStack) - 1)
	if err := in.runChecks(def, f, args, kwargs, checkAt); err != nil {
		return nil, err
	}
	return out, nil
}

// bodySegment is one body of a schema's combined bodies.
type bodySegment struct {
	start, end int
	mixin      bool
}

// frameRef is an entry of the official schema stack: an instance being
// built, or (lazy false) the instance a lambda written in its body was made
// in, whose attributes the lambda reads as they are, without backtracking.
type frameRef struct {
	f    *schemaFrame
	lazy bool
}

// topFrame is the schema being built or read by the running code, if any.
func (in *Interp) topFrame() (frameRef, bool) {
	if n := len(in.frameStack); n > 0 {
		return in.frameStack[n-1], true
	}
	return frameRef{}, false
}

// frameLookup reads an attribute of a schema instance (the official
// get_value): its value, backtracked through the bodies' setters when the
// instance is being built (see lazy.go).
func (in *Interp) frameLookup(fr frameRef, name string) (value.Value, bool, error) {
	f := fr.f
	v, ok := f.inst.Get(name)
	if ok && fr.lazy {
		if id, has := f.ls.lay.ids[name]; has {
			v, err := in.lazyGet(f.ls, id, name, v, func(s setter) error {
				return in.runFrameSetter(f, s)
			}, func() value.Value {
				if v, ok := f.inst.Get(name); ok {
					return v
				}
				return value.Undefined
			})
			return v, true, err
		}
	}
	if ok {
		return v, true, nil
	}
	if v, ok := f.config.Get(name); ok {
		return v, true, nil
	}
	if _, ok := f.def.attrDecls()[name]; ok {
		return value.Undefined, true, nil
	}
	return nil, false, nil
}

// runFrameSetter runs a setter of a schema instance by backtracking. While a
// lambda call is under way, the official evaluator runs it in a scope frame
// of its own, so that a plain assignment there binds a variable of that frame
// and leaves the attribute as it is.
func (in *Interp) runFrameSetter(f *schemaFrame, s setter) error {
	if f.output != nil && f.output.Config == f.inst {
		f.output.Config = f.inst.Copy()
	}
	in.pushBacktrack(s)
	defer in.popBacktrack()
	e := f.stmtEnv[s.stmt]
	if in.lambdaDepth > 0 {
		c := *e
		c.locals = &locals{vars: map[string]value.Value{}, parent: e.locals}
		c.lambda = c.locals
		e = &c
	}
	return in.execStmt(e, f.ls.stmts[s.stmt].stmt)
}

// frameAssigned records an assignment of an attribute (the official set_value).
func (in *Interp) frameAssigned(f *schemaFrame, name string) {
	in.lazySet(f.ls, f.ls.id(name), func() value.Value {
		if v, ok := f.inst.Get(name); ok {
			return v
		}
		return value.Undefined
	})
}

// hasAttr tells whether name is an attribute of the schema: declared (own or
// inherited) or assigned in a body.
func (f *schemaFrame) hasAttr(name string) bool {
	if _, ok := f.def.attrDecls()[name]; ok {
		return true
	}
	_, ok := f.ls.lay.ids[name]
	return ok
}

// frameSet assigns an attribute: the instance's config takes precedence over
// the schema body, combined by the config entry's operation.
func (in *Interp) frameSet(f *schemaFrame, e *env, name string, v value.Value, pos syntax.Position) error {
	if ent, ok := f.config.Entry(name); ok {
		var err error
		switch ent.Op {
		case value.OpOverride:
			if ent.Index == value.NoIndex {
				v = ent.Value
			} else {
				v, err = in.applyEntry(v, ent, pos)
			}
		case value.OpInsert:
			v, err = in.applyEntry(v, ent, pos)
		default:
			// A union with None or Undefined keeps the body's value
			// (`S {f: None}` keeps f's default; `S {f = None}` replaces it).
			if isContainerValue(v) && isContainerValue(ent.Value) {
				v, err = in.applyEntry(v, ent, pos)
			} else if !value.IsNoneOrUndefined(ent.Value) {
				v = ent.Value
			}
		}
		if err != nil {
			return err
		}
	}
	if a, ok := f.def.attrDecls()[name]; ok && a.ty != nil {
		r, ok, err := in.tryConvert(a.env, v, a.ty, true)
		if err != nil {
			return err
		}
		if !ok {
			return in.attrTypeError(f, a, name, v, pos)
		}
		v = r
	}
	// Keep the config's operation on the key: a later union of this instance
	// (e.g. `env += [...]`) honours it, as the runtime's dict ops do.
	if ent, ok := f.config.Entry(name); ok {
		f.inst.SetEntry(value.Entry{Key: name, Value: v, Op: ent.Op, Index: ent.Index})
		return nil
	}
	f.inst.Set(name, v)
	return nil
}

// reapplyConfig lets the config win over a schema body's nested assignment
// such as `metadata.env = "dev"`.
func (in *Interp) reapplyConfig(f *schemaFrame, name string, pos syntax.Position) error {
	ent, ok := f.config.Entry(name)
	if !ok {
		return nil
	}
	cur, _ := f.inst.Get(name)
	if !isContainerValue(cur) || !isContainerValue(ent.Value) || sameContainer(cur, ent.Value) {
		// A body edit of the config's own value (`leaf.v = 7` with
		// `leaf = shared`) keeps it shared: the official union of a value
		// into itself changes nothing, and edits through either name
		// reach both.
		return nil
	}
	v, err := in.applyEntry(cur, value.Entry{Key: name, Value: ent.Value, Op: value.OpUnion, Index: value.NoIndex}, pos)
	if err != nil {
		return err
	}
	f.inst.Set(name, v)
	return nil
}

// sameContainer reports whether a and b are the same dict, list or instance.
func sameContainer(a, b value.Value) bool {
	switch x := a.(type) {
	case *value.Dict:
		y, ok := b.(*value.Dict)
		return ok && x == y
	case *value.List:
		y, ok := b.(*value.List)
		return ok && x == y
	case *value.Schema:
		y, ok := b.(*value.Schema)
		return ok && x == y
	}
	return false
}

// applyEntry merges one config entry into a value via a one-key union.
func (in *Interp) applyEntry(v value.Value, ent value.Entry, pos syntax.Position) (value.Value, error) {
	holder := value.NewDict(1)
	if !value.IsUndefined(v) {
		holder.Set(ent.Key, value.DeepCopy(v))
	}
	delta := value.NewDict(1)
	delta.SetEntry(ent)
	if _, err := value.Union(in.thread, holder, delta, in.unionOptions()); err != nil {
		return nil, locate(err, lineOnly(pos))
	}
	r, _ := holder.Get(ent.Key)
	return r, nil
}

func (in *Interp) execSchemaAttr(e *env, s *syntax.SchemaAttr) error {
	if e.schema == nil {
		return errorAt(s.Pos(), errkind.Compile, "schema attribute outside a schema")
	}
	var v value.Value = value.Undefined
	if s.Value == nil && !s.IsOptional {
		if lt, ok := s.Ty.(*syntax.LiteralType); ok {
			v = literalTypeValue(lt)
		}
	}
	// A default that the config replaces (`S {f = v}`, no index) is not
	// evaluated, as in 0.12.1.
	ent, inConfig := e.schema.config.Entry(s.Name.Value)
	overridden := inConfig && ent.Op == value.OpOverride && ent.Index == value.NoIndex
	if s.Value != nil && !overridden {
		var err error
		v, err = in.eval(e, s.Value)
		if err != nil {
			return err
		}
		if op, ok := s.Op.BinOp(); ok {
			old, _ := e.schema.inst.Get(s.Name.Value)
			if old == nil {
				old = value.Undefined
			}
			v, err = in.binary(op, old, v, in.panicPos(s.Pos()))
			if err != nil {
				return err
			}
		}
		// A default the config is merged into is checked against the
		// attribute's type first, as the official schema_dict_merge does.
		if inConfig {
			if a, ok := e.schema.def.attrDecls()[s.Name.Value]; ok && a.ty != nil {
				if _, fits, err := in.tryConvert(a.env, v, a.ty, true); err != nil {
					return err
				} else if !fits {
					return in.attrTypeError(e.schema, a, s.Name.Value, v, s.Pos())
				}
			}
		}
	} else if old, ok := e.schema.inst.Get(s.Name.Value); ok && !(value.IsUndefined(old) && !value.IsUndefined(v)) {
		// A declaration without a value keeps what a parent set; an attribute
		// typed by one literal (`kind: "Pod"`) defaults to it.
		v = old
	}
	if err := in.frameSet(e.schema, e, s.Name.Value, v, s.Pos()); err != nil {
		return err
	}
	// An attribute's own value (no config entry) is kept with the override
	// operation, as the runtime's schema_dict_merge does: unifying a later
	// instance of the schema replaces the key instead of merging into it.
	if s.Value != nil && !inConfig {
		if cur, ok := e.schema.inst.Get(s.Name.Value); ok {
			e.schema.inst.SetEntry(value.Entry{Key: s.Name.Value, Value: cur, Op: value.OpOverride, Index: value.NoIndex})
		}
	}
	in.frameAssigned(e.schema, s.Name.Value)
	return nil
}

// addRelaxed adds a config key that is not an attribute through the index
// signature: its default (if any) combined with the config entry, checked
// against the value type.
func (in *Interp) addRelaxed(f *schemaFrame, key string, pos syntax.Position) error {
	ent, _ := f.config.Entry(key)
	sig := f.def.indexSig
	if sig == nil {
		f.inst.SetEntry(ent)
		return nil
	}
	var dv value.Value = value.Undefined
	if sig.Value != nil {
		ie := &env{file: f.def.indexEnv.file, pkg: f.def.indexEnv.pkg, schema: f}
		var err error
		if dv, err = in.eval(ie, sig.Value); err != nil {
			return err
		}
	}
	v, err := in.applyEntry(dv, ent, pos)
	if err != nil {
		return err
	}
	if sig.ValueTy != nil {
		if v, err = in.convertType(f.def.indexEnv, v, sig.ValueTy, lineOnly(pos)); err != nil {
			return err
		}
	}
	f.inst.SetEntry(value.Entry{Key: key, Value: v, Op: ent.Op, Index: ent.Index})
	return nil
}

// instanceMeta is what an instance remembers of its making (value.Schema.Meta).
type instanceMeta struct {
	config *value.Dict
	pos    syntax.Position
	// converted marks an instance made from a dict by a type conversion,
	// which binds no arguments: its parameters without default are None.
	converted bool
	// called marks an instance made by a call (`S()`), which has no config
	// to point at: its missing required attribute is reported where the
	// runtime is when it checks (the last statement run).
	called bool
}
