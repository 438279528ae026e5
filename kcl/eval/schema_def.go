// Schema definition: a schema or rule statement becomes a schemaDef (its
// parent, mixins, attributes and checks resolved once), callable as a type.

package eval

import (
	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
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
	// host is a rule's protocol (`rule R for PProtocol`): an instance of
	// the rule is the protocol's instance, which the rule's checks read.
	host *schemaDef
	// attrs are the declared attributes of the whole chain, in order, and
	// attrTypes their declarations; both are built on first use (attrNames,
	// attrDecls): a package such as the k8s module defines hundreds of
	// schemas per run of which a program instantiates a few.
	attrs      []string
	attrTypes  map[string]attrDecl
	attrsBuilt bool
	indexSig   *syntax.SchemaIndexSignature
	indexEnv   *env
	fn         *value.Function
	instances  []instanceRecord
	// selfParent marks `schema S(S)`: 0.12.1 defines it and fails where it
	// (or a subclass) is instantiated.
	selfParent bool
	// defSeq orders the definitions of a run; known is the attribute order an
	// instance starts with (see knownAttrs), remade when the main pass
	// reaches the statement.
	defSeq int
	known  []string
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
	in.defSeq++
	def := &schemaDef{name: s.Name.Value, pkgPath: e.pkg.path, stmt: s, env: &env{file: e.file, pkg: e.pkg}, defSeq: in.defSeq}
	if p := s.ParentName; p != nil && len(p.Names) == 1 && p.Names[0].Value == s.Name.Value {
		def.selfParent = true
	} else if s.ParentName != nil {
		pv, err := in.evalIdentifier(e, s.ParentName)
		if err != nil {
			return nil, err
		}
		pdef, ok := schemaDefOf(pv)
		if !ok {
			return nil, errorAt(s.ParentName.Pos(), errkind.IllegalInherit, "invalid schema inherit object type, expect schema, got '%s'", pv.Type())
		}
		if pdef.stmt != nil && pdef.stmt.IsMixin {
			return nil, errorAt(s.ParentName.Pos(), errkind.IllegalInherit, "mixin inheritance %s is prohibited", pdef.name)
		}
		def.parent = pdef
		def.indexSig, def.indexEnv = pdef.indexSig, pdef.indexEnv
	}
	for _, m := range s.Mixins {
		mv, err := in.evalIdentifier(e, m)
		if err != nil {
			return nil, err
		}
		mdef, ok := schemaDefOf(mv)
		if !ok {
			return nil, errorAt(m.Pos(), errkind.IllegalInherit, "illegal schema mixin object type, expected mixin, got '%s'", mv.Type())
		}
		def.mixins = append(def.mixins, mdef)
	}
	if s.IndexSignature != nil {
		def.indexSig, def.indexEnv = s.IndexSignature, def.env
		if err := checkIndexSignature(s); err != nil {
			return nil, err
		}
	}
	def.known = def.knownAttrs(func(o *schemaDef) bool { return o.pkgPath != def.pkgPath || o.defSeq < def.defSeq })
	if in.schemaDefs == nil {
		in.schemaDefs = map[*syntax.SchemaStmt]*schemaDef{}
	}
	in.schemaDefs[s] = def
	def.fn = &value.Function{FuncName: def.name, IsType: true, Closure: def}
	def.fn.Impl = func(t *value.Thread, args []value.Value, kwargs []value.KV) (value.Value, error) {
		in.nextCalled = true
		return in.instantiate(def, value.NewDict(0), args, kwargs, s.Pos(), in.currentPkg)
	}
	return def, nil
}

// knownAttrs is the attribute order 0.12.1 gives an instance before its body
// runs: the parent's known order, then the names the schema's own body assigns
// or declares, then its mixins', where a parent or mixin counts only if its
// statement had run when this one ran (existed). 0.12.1 runs every schema
// statement first in source order and again when its main pass reaches it,
// each run capturing the parent as it then is: so an instance made before
// the main pass reaches `schema C(B)` written above `schema B` lists C's
// attributes before B's (schema/stmt_block/stmt_block_28). The attributes left
// out come after these, in the chain's order.
func (d *schemaDef) knownAttrs(existed func(*schemaDef) bool) []string {
	var out []string
	seen := map[string]bool{}
	add := func(names ...string) {
		for _, n := range names {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	if d.parent != nil && existed(d.parent) {
		add(d.parent.known...)
	}
	ownNames := func(body []syntax.Stmt) {
		for _, st := range body {
			if is, ok := st.(*syntax.IfStmt); ok {
				for _, b := range branchAssignments([]syntax.Stmt{is}, nil) {
					add(b.name)
				}
				continue
			}
			add(assignedNames(st, nil)...)
		}
	}
	ownNames(d.stmt.Body)
	for _, m := range d.mixins {
		if m.stmt != nil && existed(m) {
			ownNames(m.stmt.Body)
		}
	}
	return out
}

// attrNames returns the declared attributes of the schema's chain, in order.
func (d *schemaDef) attrNames() []string {
	d.buildAttrs()
	return d.attrs
}

// attrDecls returns the declarations of the schema's attributes by name.
func (d *schemaDef) attrDecls() map[string]attrDecl {
	d.buildAttrs()
	return d.attrTypes
}

// buildAttrs lists the attributes of the parent, then of the schema's body,
// then of its mixins; a later declaration without a type keeps the earlier
// one's type.
func (d *schemaDef) buildAttrs() {
	if d.attrsBuilt {
		return
	}
	d.attrsBuilt = true
	d.attrTypes = map[string]attrDecl{}
	if d.parent != nil {
		d.attrs = append(d.attrs, d.parent.attrNames()...)
		for k, v := range d.parent.attrDecls() {
			d.attrTypes[k] = v
		}
	}
	if d.stmt == nil {
		return
	}
	addAttrs := func(body []syntax.Stmt, de *env) {
		var walk func([]syntax.Stmt)
		walk = func(stmts []syntax.Stmt) {
			for _, st := range stmts {
				switch a := st.(type) {
				case *syntax.SchemaAttr:
					name := a.Name.Value
					prev, had := d.attrTypes[name]
					if !had {
						d.attrs = append(d.attrs, name)
					}
					decl := attrDecl{pos: a.Pos(), ty: a.Ty, optional: a.IsOptional, env: de, decorators: a.Decorators}
					if had && a.Ty == nil {
						decl.ty, decl.env, decl.pos = prev.ty, prev.env, prev.pos
					}
					d.attrTypes[name] = decl
				case *syntax.IfStmt:
					walk(a.Body)
					walk(a.Orelse)
				}
			}
		}
		walk(body)
	}
	addAttrs(d.stmt.Body, d.env)
	for _, m := range d.mixins {
		if m.stmt != nil {
			addAttrs(m.stmt.Body, m.env)
		}
	}
}

func (in *Interp) defineRule(e *env, s *syntax.RuleStmt) (*schemaDef, error) {
	def := &schemaDef{name: s.Name.Value, pkgPath: e.pkg.path, rule: s, env: &env{file: e.file, pkg: e.pkg}}
	if s.ForHostName != nil {
		hv, err := in.evalIdentifier(e, s.ForHostName)
		if err != nil {
			return nil, err
		}
		// Another host than a protocol is the static pass's error.
		if hdef, ok := schemaDefOf(hv); ok && hdef.isProtocol() {
			def.host = hdef
		}
	}
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
		in.nextCalled = true
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
					v := r.v
					if s, ok := v.(*value.Schema); ok && in.snapshots {
						v = s.Copy() // a re-run of it leaves the record
					}
					out = append(out, v)
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
			return &Error{Kind: errkind.IllegalParameter, Msg: "non-default argument follows default argument", Pos: lastDefault.Pos(),
				Note: "A default argument value must be followed by other default arguments"}
		}
	}
	return nil
}

// checkIndexSignature reports a schema attribute named as the index
// signature's key (an attribute's type against the signature's value type is
// the static pass's, kcl/check).
func checkIndexSignature(s *syntax.SchemaStmt) error {
	sig := s.IndexSignature
	for _, st := range s.Body {
		a, ok := st.(*syntax.SchemaAttr)
		if !ok {
			continue
		}
		if sig.KeyName != nil && sig.KeyName.Value == a.Name.Value {
			return errorAt(sig.Pos(), errkind.IndexSignature, "index signature attribute name '%s' cannot have the same name as schema attributes", a.Name.Value)
		}
	}
	return nil
}
