// Schema checks: check blocks, required attributes, attribute types, the
// @deprecated decorator, and the official type strings in their messages.

package eval

import (
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

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
		if d.rule != nil {
			// A rule's parent rules check first (rule_check).
			for _, m := range d.mixins {
				if err := run(m); err != nil {
					return err
				}
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
		if l := f.params[d]; l != nil {
			ce.locals = l
		} else if params != nil {
			vars, err := in.bindParams(d.env, params, args, kwargs, pos, f.converted, false)
			if err != nil {
				return err
			}
			ce.locals = &locals{vars: vars, params: true}
		}
		for _, c := range checks {
			if err := in.runCheck(ce, c); err != nil {
				return err
			}
		}
		if d.rule == nil {
			for _, m := range d.mixins {
				if err := run(m); err != nil {
					return err
				}
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
	// The official engine points at its panic_info: the node evaluated
	// last, the message (or the test) unless a lambda it calls ran after.
	at := c.Pos()
	if c.Msg != nil {
		at = c.Msg.Pos()
	}
	at = in.panicPos(at)
	if !in.checkPos.IsValid() {
		// A called instance (`S()`): no config meta to point at.
		return errorAt(lineOnly(at), errkind.Evaluation, "%s", msg)
	}
	return &Error{Kind: errkind.Evaluation, Msg: "Instance check failed", Pos: in.checkPos,
		Labels: []Label{{Pos: lineOnly(at), Msg: msg}}, Detail: detail}
}

// checkRequired reports the first required attribute of s (or of a schema
// nested in it) that is None or Undefined, at the instance's origin (pos
// when it has none), or for a called instance at cur, where the runtime is.
func checkRequired(v value.Value, pos, cur syntax.Position) error {
	switch x := v.(type) {
	case *value.Schema:
		if def, ok := x.Def.(*schemaDef); ok {
			for _, name := range def.attrNames() {
				if def.attrDecls()[name].optional {
					continue
				}
				if av, ok := x.Config.Get(name); !ok || value.IsNoneOrUndefined(av) {
					at := pos
					if m, ok := x.Meta.(instanceMeta); ok && m.called && cur.IsValid() {
						at = cur
					} else if ok && m.pos.IsValid() {
						at = m.pos
					}
					return errorAt(lineOnly(at), errkind.Evaluation, "attribute '%s' of %s is required and can't be None or Undefined", name, def.name)
				}
			}
		}
		for _, ent := range x.Config.Entries() {
			if err := checkRequired(ent.Value, pos, cur); err != nil {
				return err
			}
		}
	case *value.Dict:
		for _, ent := range x.Entries() {
			if err := checkRequired(ent.Value, pos, cur); err != nil {
				return err
			}
		}
	case *value.List:
		for _, el := range x.Elems {
			if err := checkRequired(el, pos, cur); err != nil {
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
		_, kwargs, err := in.evalArgs(e, d.Args, d.Keywords)
		if err != nil {
			return err
		}
		// Only keyword arguments count, as in 0.12.1: @deprecated("1.2") reads
		// no version.
		version, reason, strict := "", "", true
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
			msg += "since version " + version
		}
		if reason != "" {
			msg += ", " + reason
		}
		return errorAt(lineOnly(pos), errkind.Evaluation, "%s", msg)
	}
	return nil
}

// attrTypeError reports a schema attribute of the wrong type: at the config
// entry that set it (as the official type checker does) when there is one.
func (in *Interp) attrTypeError(f *schemaFrame, a attrDecl, name string, v value.Value, pos syntax.Position) error {
	want := syntax.TypeString(a.ty)
	// A dict that does not fit a schema type is found at run time only (the
	// official checker lets any dict be a schema): an EvaluationError.
	details := in.conversionDetails(a.env, v, a.ty)
	return errorAt(lineOnly(in.panicPos(pos)), errkind.Evaluation, "expect %s, got %s%s", want, typeName(v), details)
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
