package eval

import (
	"fmt"
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

// schemaDef is a schema (or rule) type: its statement, the environment it was
// defined in, and its resolved parent and mixins.
type schemaDef struct {
	name    string
	pkgPath string
	stmt    *syntax.SchemaStmt
	rule    *syntax.RuleStmt
	env     *env // defining environment (file, package)
	parent  *schemaDef
	mixins  []*schemaDef
	// attrs are the declared attributes of the whole chain, in order.
	attrs     []string
	attrTypes map[string]attrDecl
	indexSig  *syntax.SchemaIndexSignature
	indexEnv  *env
	fn        *value.Function
	instances []instanceRecord
}

type instanceRecord struct {
	v   value.Value
	pkg string
}

type attrDecl struct {
	pos        syntax.Position
	ty         syntax.Type
	optional   bool
	env        *env
	decorators []*syntax.CallExpr
}

func (d *schemaDef) typeValue() *value.Function { return d.fn }

func (d *schemaDef) isProtocol() bool { return d.stmt != nil && d.stmt.IsProtocol }

// chain lists the schema and its ancestors, root first.
func (d *schemaDef) chain() []*schemaDef {
	var c []*schemaDef
	for s := d; s != nil; s = s.parent {
		c = append([]*schemaDef{s}, c...)
	}
	return c
}

func (d *schemaDef) isSubOf(o *schemaDef) bool {
	for s := d; s != nil; s = s.parent {
		if s == o || (s.name == o.name && s.pkgPath == o.pkgPath) {
			return true
		}
	}
	return false
}

func (in *Interp) defineSchema(e *env, s *syntax.SchemaStmt) (*schemaDef, error) {
	if err := checkParams(s.Args); err != nil {
		return nil, err
	}
	def := &schemaDef{name: s.Name.Value, pkgPath: e.pkg.path, stmt: s, env: &env{file: e.file, pkg: e.pkg}, attrTypes: map[string]attrDecl{}}
	if s.ParentName != nil {
		pv, err := in.evalIdentifier(e, s.ParentName)
		if err != nil {
			return nil, err
		}
		pdef, ok := schemaDefOf(pv)
		if !ok {
			return nil, errorAt(s.ParentName.Pos(), KindIllegalInherit, "invalid schema inherit object type, expect schema, got '%s'", pv.Type())
		}
		if pdef.stmt != nil && pdef.stmt.IsMixin {
			return nil, errorAt(s.ParentName.Pos(), KindIllegalInherit, "mixin inheritance %s is prohibited", pdef.name)
		}
		def.parent = pdef
		def.attrs = append(def.attrs, pdef.attrs...)
		for k, v := range pdef.attrTypes {
			def.attrTypes[k] = v
		}
		def.indexSig, def.indexEnv = pdef.indexSig, pdef.indexEnv
	}
	for _, m := range s.Mixins {
		mv, err := in.evalIdentifier(e, m)
		if err != nil {
			return nil, err
		}
		mdef, ok := schemaDefOf(mv)
		if !ok {
			return nil, errorAt(m.Pos(), KindIllegalInherit, "illegal schema mixin object type, expected mixin, got '%s'", mv.Type())
		}
		def.mixins = append(def.mixins, mdef)
	}
	addAttrs := func(body []syntax.Stmt, de *env) {
		var walk func([]syntax.Stmt)
		walk = func(stmts []syntax.Stmt) {
			for _, st := range stmts {
				switch a := st.(type) {
				case *syntax.SchemaAttr:
					name := a.Name.Value
					if _, ok := def.attrTypes[name]; !ok {
						def.attrs = append(def.attrs, name)
					}
					prev, had := def.attrTypes[name]
					decl := attrDecl{pos: a.Pos(), ty: a.Ty, optional: a.IsOptional, env: de, decorators: a.Decorators}
					if had && a.Ty == nil {
						decl.ty, decl.env, decl.pos = prev.ty, prev.env, prev.pos
					}
					def.attrTypes[name] = decl
				case *syntax.IfStmt:
					walk(a.Body)
					walk(a.Orelse)
				}
			}
		}
		walk(body)
	}
	addAttrs(s.Body, def.env)
	for _, m := range def.mixins {
		if m.stmt != nil {
			addAttrs(m.stmt.Body, m.env)
		}
	}
	if s.IndexSignature != nil {
		def.indexSig, def.indexEnv = s.IndexSignature, def.env
		if err := checkIndexSignature(s); err != nil {
			return nil, err
		}
	}
	def.fn = &value.Function{FuncName: def.name, IsType: true, Closure: def}
	def.fn.Impl = func(t *value.Thread, args []value.Value, kwargs []value.KV) (value.Value, error) {
		return in.instantiate(def, value.NewDict(0), args, kwargs, s.Pos(), in.currentPkg)
	}
	return def, nil
}

func (in *Interp) defineRule(e *env, s *syntax.RuleStmt) (*schemaDef, error) {
	def := &schemaDef{name: s.Name.Value, pkgPath: e.pkg.path, rule: s, env: &env{file: e.file, pkg: e.pkg}, attrTypes: map[string]attrDecl{}}
	for _, p := range s.ParentRules {
		pv, err := in.evalIdentifier(e, p)
		if err != nil {
			return nil, err
		}
		if pdef, ok := schemaDefOf(pv); ok {
			def.mixins = append(def.mixins, pdef)
		}
	}
	def.fn = &value.Function{FuncName: def.name, IsType: true, Closure: def}
	def.fn.Impl = func(t *value.Thread, args []value.Value, kwargs []value.KV) (value.Value, error) {
		return in.instantiate(def, value.NewDict(0), args, kwargs, s.Pos(), in.currentPkg)
	}
	return def, nil
}

func schemaDefOf(v value.Value) (*schemaDef, bool) {
	f, ok := v.(*value.Function)
	if !ok {
		return nil, false
	}
	d, ok := f.Closure.(*schemaDef)
	return d, ok
}

// schemaFrame is one schema instance under construction.
type schemaFrame struct {
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
}

func (in *Interp) evalSchemaExpr(e *env, x *syntax.SchemaExpr) (value.Value, error) {
	in.exprStack++
	defer func() { in.exprStack-- }()
	tv, err := in.evalIdentifier(e, x.Name)
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
		// `value {config}` unions config into a copy of a dict or instance.
		if isContainerValue(tv) {
			return in.union(tv, cfg, x.Pos())
		}
		return nil, errorAt(x.Name.Pos(), value.KindEvaluation, "'%s' is not a schema type", x.Name.Name())
	}
	d, ok := value.AsDict(cfg)
	if !ok {
		return nil, errorAt(x.Pos(), value.KindType, "schema config must be a dict, got %s", cfg.Type())
	}
	in.nextCfgExpr, _ = x.Config.(*syntax.ConfigExpr)
	return in.instantiate(def, d, args, kwargs, x.Pos(), e.pkg.path)
}

// resolveSchema re-runs a schema after a union changed its config.
func (in *Interp) resolveSchema(s *value.Schema, keys []string) (value.Value, error) {
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
	return in.instantiate(def, cfg, s.Args, s.Kwargs, syntax.Position{}, "")
}

// instantiate builds an instance of def from a config.
// instantiate builds an instance; recordPkg is the package creating it, for
// instances(), or "" when a union re-runs an existing instance.
func (in *Interp) instantiate(def *schemaDef, config *value.Dict, args []value.Value, kwargs []value.KV, pos syntax.Position, recordPkg string) (value.Value, error) {
	cfgExpr := in.nextCfgExpr
	in.nextCfgExpr = nil
	if def.isProtocol() {
		return nil, errorAt(pos, value.KindEvaluation, "Protocol %s can't be instantiated", def.name)
	}
	if def.stmt != nil && def.stmt.IsMixin {
		return nil, errorAt(pos, value.KindEvaluation, "Mixin %s can't be instantiated", def.name)
	}
	if err := in.thread.Enter(); err != nil {
		return nil, locate(err, pos)
	}
	defer in.thread.Leave()
	if def.stmt != nil {
		if err := in.checkDeprecated(def.env, def.stmt.Decorators, def.name, pos); err != nil {
			return nil, err
		}
	}
	for _, ent := range config.Entries() {
		if a, ok := def.attrTypes[ent.Key]; ok && len(a.decorators) > 0 && !value.IsNoneOrUndefined(ent.Value) {
			if err := in.checkDeprecated(a.env, a.decorators, ent.Key, pos); err != nil {
				return nil, err
			}
		}
	}
	if len(args) > 0 || len(kwargs) > 0 {
		hasParams := false
		for _, d := range def.chain() {
			if (d.stmt != nil && d.stmt.Args != nil && len(d.stmt.Args.Args) > 0) || (d.rule != nil && d.rule.Args != nil && len(d.rule.Args.Args) > 0) {
				hasParams = true
			}
		}
		if !hasParams {
			if len(kwargs) > 0 {
				return nil, errorAt(pos, KindCompile, "\"%s\" got an unexpected keyword argument '%s'", def.name, kwargs[0].Key)
			}
			return nil, errorAt(pos, KindCompile, "\"%s\" takes 0 positional argument but %d were given", def.name, len(args))
		}
	}
	in.schemaStack++
	defer func() { in.schemaStack-- }()
	f := &schemaFrame{def: def, inst: value.NewDict(len(def.attrs) + config.Len()), config: config, cfgExpr: cfgExpr}
	// Combined bodies: ancestors first, each followed by its mixins.
	var refs []stmtRef
	var envs []*env
	addBody := func(d *schemaDef, body []syntax.Stmt, params *syntax.Arguments) error {
		be := &env{file: d.env.file, pkg: d.env.pkg, schema: f}
		if params != nil {
			vars, err := in.bindParams(d.env, params, args, kwargs, pos)
			if err != nil {
				return err
			}
			be.locals = &locals{vars: vars}
		}
		for _, st := range body {
			refs = append(refs, stmtRef{stmt: st, file: d.env.file})
			envs = append(envs, be)
		}
		return nil
	}
	for _, d := range def.chain() {
		if d.stmt != nil {
			if err := addBody(d, d.stmt.Body, d.stmt.Args); err != nil {
				return nil, err
			}
		}
		for _, m := range d.mixins {
			if m.stmt != nil {
				if err := addBody(m, m.stmt.Body, nil); err != nil {
					return nil, err
				}
			}
		}
	}
	f.ls = newLazyScope(refs)
	f.stmtEnv = envs
	for _, name := range f.ls.order {
		f.inst.Set(name, value.Undefined)
	}
	for i := range refs {
		if err := in.runFrameStmt(f, i); err != nil {
			return nil, err
		}
	}
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
		if def.indexSig == nil && def.rule == nil {
			at := pos
			if cfgExpr != nil {
				for _, it := range cfgExpr.Items {
					if it.Key != nil && entryKey(it) == ent.Key {
						at = it.Key.Pos()
						break
					}
				}
			}
			return nil, errorAt(at, KindCompile, "Cannot add member '%s' to schema '%s'", ent.Key, def.name)
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
			if err := in.runChecks(def, f, args, kwargs, pos); err != nil {
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
	inst := &value.Schema{Name: def.name, PkgPath: def.pkgPath, Config: f.inst, Def: def, Meta: instanceMeta{config: config, pos: pos}, Args: args, Kwargs: kwargs}
	for _, ent := range config.Entries() {
		inst.ConfigKeys = append(inst.ConfigKeys, ent.Key)
	}
	inst.Optional = map[string]bool{}
	for name, a := range def.attrTypes {
		inst.Optional[name] = a.optional
	}
	// Required attributes are checked on top-level instances only (nested ones
	// may still be completed by a union), recursively.
	if in.schemaStack <= 1 && in.exprStack <= 1 {
		if err := checkRequired(inst, pos); err != nil {
			return nil, err
		}
	}
	if !checked {
		if err := in.runChecks(def, f, args, kwargs, pos); err != nil {
			return nil, err
		}
	}
	if def.rule != nil {
		return value.True, nil
	}
	if recordPkg != "" {
		for _, d := range def.chain() {
			d.instances = append(d.instances, instanceRecord{v: inst, pkg: recordPkg})
		}
	}
	if err := in.thread.Alloc(f.inst.Len() + 1); err != nil {
		return nil, locate(err, pos)
	}
	return inst, nil
}

func (in *Interp) runFrameStmt(f *schemaFrame, i int) error {
	if f.ls.done[i] {
		return nil
	}
	f.ls.done[i] = true
	// Inside a statement that assigns an attribute, reading that attribute
	// gives its value so far without running its later setters (the
	// runtime's in-place rule): a mixin reading `kubernetes` while adding to
	// it must not pull in the mixins after it.
	var marked []string
	for _, n := range stmtTargets(f.ls.stmts[i].stmt, nil) {
		if !f.ls.running[n] {
			f.ls.running[n] = true
			marked = append(marked, n)
		}
	}
	defer func() {
		for _, n := range marked {
			delete(f.ls.running, n)
		}
	}()
	return in.execStmt(f.stmtEnv[i], f.ls.stmts[i].stmt)
}

func (in *Interp) runChecks(def *schemaDef, f *schemaFrame, args []value.Value, kwargs []value.KV, pos syntax.Position) error {
	prev := in.checkPos
	in.checkPos = pos
	defer func() { in.checkPos = prev }()
	var run func(d *schemaDef) error
	run = func(d *schemaDef) error {
		if d.parent != nil {
			if err := run(d.parent); err != nil {
				return err
			}
		}
		var checks []*syntax.CheckExpr
		var params *syntax.Arguments
		if d.stmt != nil {
			checks, params = d.stmt.Checks, d.stmt.Args
		} else if d.rule != nil {
			checks, params = d.rule.Checks, d.rule.Args
		}
		ce := &env{file: d.env.file, pkg: d.env.pkg, schema: f}
		if params != nil {
			vars, err := in.bindParams(d.env, params, args, kwargs, pos)
			if err != nil {
				return err
			}
			ce.locals = &locals{vars: vars}
		}
		for _, c := range checks {
			if err := in.runCheck(ce, c); err != nil {
				return err
			}
		}
		for _, m := range d.mixins {
			if err := run(m); err != nil {
				return err
			}
		}
		return nil
	}
	return run(def)
}

func (in *Interp) runCheck(e *env, c *syntax.CheckExpr) error {
	if c.IfCond != nil {
		v, err := in.eval(e, c.IfCond)
		if err != nil {
			return err
		}
		if !v.Truth() {
			return nil
		}
	}
	v, err := in.eval(e, c.Test)
	if err != nil {
		return err
	}
	if v.Truth() {
		return nil
	}
	msg, detail := "Check failed on the condition", ""
	if c.Msg != nil {
		m, err := in.eval(e, c.Msg)
		if err != nil {
			return err
		}
		if s := m.String(); s != "" {
			msg += ": " + s
			detail = s
		}
	}
	if detail == "" {
		detail = msg
	}
	// The official engine points at the line holding the message.
	at := c.Pos()
	if c.Msg != nil {
		at = c.Msg.Pos()
	}
	return &Error{Kind: value.KindEvaluation, Msg: "Instance check failed", Pos: in.checkPos,
		Labels: []Label{{Pos: lineOnly(at), Msg: msg}}, Detail: detail}
}

// frameLookup reads an attribute of the instance under construction.
func (in *Interp) frameLookup(f *schemaFrame, name string) (value.Value, bool, error) {
	ls := f.ls
	if idxs, ok := ls.setters[name]; ok && !ls.running[name] {
		ls.running[name] = true
		for _, i := range idxs {
			if !ls.done[i] {
				if err := in.runFrameStmt(f, i); err != nil {
					delete(ls.running, name)
					return nil, false, err
				}
			}
		}
		delete(ls.running, name)
	}
	if v, ok := f.inst.Get(name); ok {
		return v, true, nil
	}
	if v, ok := f.config.Get(name); ok {
		return v, true, nil
	}
	if _, ok := f.def.attrTypes[name]; ok {
		return value.Undefined, true, nil
	}
	return nil, false, nil
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
			if isContainerValue(v) && isContainerValue(ent.Value) {
				v, err = in.applyEntry(v, ent, pos)
			} else if !value.IsUndefined(ent.Value) {
				v = ent.Value
			}
		}
		if err != nil {
			return err
		}
	}
	if a, ok := f.def.attrTypes[name]; ok && a.ty != nil {
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
	if !isContainerValue(cur) || !isContainerValue(ent.Value) {
		return nil
	}
	v, err := in.applyEntry(cur, value.Entry{Key: name, Value: ent.Value, Op: value.OpUnion, Index: value.NoIndex}, pos)
	if err != nil {
		return err
	}
	f.inst.Set(name, v)
	return nil
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
		return errorAt(s.Pos(), KindCompile, "schema attribute outside a schema")
	}
	var v value.Value = value.Undefined
	if s.Value == nil {
		if lt, ok := s.Ty.(*syntax.LiteralType); ok {
			v = literalTypeValue(lt)
		}
	}
	if s.Value != nil {
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
			v, err = in.binary(op, old, v, s.Pos())
			if err != nil {
				return err
			}
		}
	} else if old, ok := e.schema.inst.Get(s.Name.Value); ok {
		v = old
	}
	if err := in.frameSet(e.schema, e, s.Name.Value, v, s.Pos()); err != nil {
		return err
	}
	// An attribute's own value (no config entry) is kept with the override
	// operation, as the runtime's schema_dict_merge does: unifying a later
	// instance of the schema replaces the key instead of merging into it.
	if _, inConfig := e.schema.config.Entry(s.Name.Value); s.Value != nil && !inConfig {
		if cur, ok := e.schema.inst.Get(s.Name.Value); ok {
			e.schema.inst.SetEntry(value.Entry{Key: s.Name.Value, Value: cur, Op: value.OpOverride, Index: value.NoIndex})
		}
	}
	return nil
}

// schemaTypeAttr serves members of a schema type such as S.instances().
func (in *Interp) schemaTypeAttr(def *schemaDef, name string) (value.Value, bool) {
	switch name {
	case "instances":
		return value.NewBuiltin("instances", func(t *value.Thread, b *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
			full := len(args) > 0 && args[0].Truth()
			for _, kw := range kwargs {
				if kw.Key == "full_pkg" {
					full = kw.Value.Truth()
				}
			}
			var out []value.Value
			for _, r := range def.instances {
				if full || r.pkg == value.MainPkg {
					out = append(out, r.v)
				}
			}
			return value.NewList(out), nil
		}), true
	}
	return nil, false
}

func schemaTypeName(def *schemaDef) string {
	if def.pkgPath == "" || def.pkgPath == value.MainPkg {
		return def.name
	}
	return def.pkgPath + "." + def.name
}

var _ = fmt.Sprintf
var _ = strings.HasPrefix

// checkRequired reports the first required attribute of s (or of a schema
// nested in it) that is None or Undefined.
func checkRequired(v value.Value, pos syntax.Position) error {
	switch x := v.(type) {
	case *value.Schema:
		if def, ok := x.Def.(*schemaDef); ok {
			for _, name := range def.attrs {
				if def.attrTypes[name].optional {
					continue
				}
				if av, ok := x.Config.Get(name); !ok || value.IsNoneOrUndefined(av) {
					at := pos
					if m, ok := x.Meta.(instanceMeta); ok && m.pos.IsValid() {
						at = m.pos
					}
					return errorAt(lineOnly(at), value.KindEvaluation, "attribute '%s' of %s is required and can't be None or Undefined", name, def.name)
				}
			}
		}
		for _, ent := range x.Config.Entries() {
			if err := checkRequired(ent.Value, pos); err != nil {
				return err
			}
		}
	case *value.Dict:
		for _, ent := range x.Entries() {
			if err := checkRequired(ent.Value, pos); err != nil {
				return err
			}
		}
	case *value.List:
		for _, el := range x.Elems {
			if err := checkRequired(el, pos); err != nil {
				return err
			}
		}
	}
	return nil
}

func literalTypeValue(t *syntax.LiteralType) value.Value {
	switch t.Kind {
	case syntax.LitBool:
		return value.Bool(t.Bool)
	case syntax.LitInt:
		if t.Suffix != "" {
			return value.Unit{Real: float64(t.Int) * unitMultiplier(t.Suffix), Raw: t.Int, Suffix: t.Suffix}
		}
		return value.Int(t.Int)
	case syntax.LitFloat:
		return value.Float(t.Float)
	}
	return value.Str(t.Str)
}

// checkDeprecated applies @deprecated(version, reason, strict=True): a strict
// deprecation is an error where the schema or attribute is used.
func (in *Interp) checkDeprecated(e *env, decorators []*syntax.CallExpr, name string, pos syntax.Position) error {
	for _, d := range decorators {
		id, ok := d.Func.(*syntax.Identifier)
		if !ok || id.Name() != "deprecated" {
			continue
		}
		args, kwargs, err := in.evalArgs(e, d.Args, d.Keywords)
		if err != nil {
			return err
		}
		version, reason, strict := "", "", true
		if len(args) > 0 {
			version = args[0].String()
		}
		if len(args) > 1 {
			reason = args[1].String()
		}
		if len(args) > 2 {
			strict = args[2].Truth()
		}
		for _, kw := range kwargs {
			switch kw.Key {
			case "version":
				version = kw.Value.String()
			case "reason":
				reason = kw.Value.String()
			case "strict":
				strict = kw.Value.Truth()
			}
		}
		if !strict {
			continue
		}
		msg := name + " was deprecated "
		if version != "" {
			msg += "since version " + version + ", "
		}
		msg += reason
		return errorAt(lineOnly(pos), value.KindEvaluation, "%s", msg)
	}
	return nil
}

// checkParams rejects a parameter without default after one with a default.
func checkParams(a *syntax.Arguments) error {
	if a == nil {
		return nil
	}
	var lastDefault syntax.Expr
	for i := range a.Args {
		if i < len(a.Defaults) && a.Defaults[i] != nil {
			lastDefault = a.Defaults[i]
		} else if lastDefault != nil {
			return &Error{Kind: KindIllegalParameter, Msg: "non-default argument follows default argument", Pos: lastDefault.Pos(),
				Note: "A default argument value must be followed by other default arguments"}
		}
	}
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

// attrTypeError reports a schema attribute of the wrong type: at the config
// entry that set it (as the official type checker does) when there is one.
func (in *Interp) attrTypeError(f *schemaFrame, a attrDecl, name string, v value.Value, pos syntax.Position) error {
	want := syntax.TypeString(a.ty)
	if f.cfgExpr != nil {
		for _, it := range f.cfgExpr.Items {
			if it.Key != nil && entryKey(it) == name {
				got := literalTypeString(v)
				return &Error{Kind: value.KindType, Pos: it.Key.Pos(),
					Msg:    fmt.Sprintf("expected %s, got %s", want, got),
					Labels: []Label{{Pos: a.pos, Msg: fmt.Sprintf("variable is defined here, its type is %s, but got %s", want, got)}}}
			}
		}
	}
	return errorAt(lineOnly(pos), value.KindEvaluation, "expect %s, got %s", want, typeName(v))
}

// literalTypeString is the type the official checker infers for a literal
// value: int(1), str(a), [int(1) | str(2)], {str(k):int(1)}, a schema name.
func literalTypeString(v value.Value) string {
	switch x := v.(type) {
	case value.Int:
		return "int(" + x.String() + ")"
	case value.Float:
		return "float(" + x.String() + ")"
	case value.Str:
		return "str(" + string(x) + ")"
	case value.Bool:
		return "bool(" + x.String() + ")"
	case value.NoneType:
		return "NoneType"
	case *value.Schema:
		return x.Name
	case *value.List:
		return "[" + unionOfTypes(x.Elems) + "]"
	case *value.Dict:
		var keys, vals []value.Value
		for _, e := range x.Entries() {
			keys = append(keys, value.Str(e.Key))
			vals = append(vals, e.Value)
		}
		return "{" + unionOfTypes(keys) + ":" + unionOfTypes(vals) + "}"
	}
	return v.Type()
}

func unionOfTypes(vs []value.Value) string {
	var parts []string
	seen := map[string]bool{}
	for _, e := range vs {
		t := literalTypeString(e)
		if !seen[t] {
			seen[t] = true
			parts = append(parts, t)
		}
	}
	if len(parts) == 0 {
		return "any"
	}
	return strings.Join(parts, " | ")
}

// instanceMeta is what an instance remembers of its making (value.Schema.Meta).
type instanceMeta struct {
	config *value.Dict
	pos    syntax.Position
}

// checkIndexSignature applies the official checker's rules to a schema's own
// attributes: each type must meet the index signature's value type, and the
// signature's key name must not be an attribute.
func checkIndexSignature(s *syntax.SchemaStmt) error {
	sig := s.IndexSignature
	valueTy := syntax.TypeString(sig.ValueTy)
	for _, st := range s.Body {
		a, ok := st.(*syntax.SchemaAttr)
		if !ok {
			continue
		}
		if sig.KeyName != nil && sig.KeyName.Value == a.Name.Value {
			return errorAt(sig.Pos(), KindIndexSignature, "index signature attribute name '%s' cannot have the same name as schema attributes", a.Name.Value)
		}
		if sig.AnyOther || a.Ty == nil || sig.ValueTy == nil || valueTy == "any" {
			continue
		}
		attrTy := syntax.TypeString(a.Ty)
		if attrTy == valueTy {
			continue
		}
		if u, ok := sig.ValueTy.(*syntax.UnionType); ok {
			fits := false
			for _, el := range u.TypeElements {
				if syntax.TypeString(el) == attrTy {
					fits = true
				}
			}
			if fits {
				continue
			}
		}
		if _, basic := a.Ty.(*syntax.BasicType); !basic {
			continue // only clear mismatches of basic types are rejected here
		}
		if _, basic := sig.ValueTy.(*syntax.BasicType); !basic {
			continue
		}
		keyTy := syntax.TypeString(sig.KeyTy)
		return errorAt(a.Pos(), KindIndexSignature, "the type '%s' of schema attribute '%s' does not meet the index signature definition [%s]: %s", attrTy, a.Name.Value, keyTy, valueTy)
	}
	return nil
}
