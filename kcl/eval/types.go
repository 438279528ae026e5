package eval

import (
	"fmt"
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

// convertType checks v against a type annotation, converting dicts into schema
// instances where the type names a schema, as the runtime's type_pack does.
func (in *Interp) convertType(e *env, v value.Value, ty syntax.Type, pos syntax.Position) (value.Value, error) {
	before := in.curPos
	r, ok, err := in.tryConvert(e, v, ty, true)
	if err != nil {
		return nil, err
	}
	if !ok {
		// A dict converted on the way (an earlier item of a list) ran its
		// schema's body, and the runtime reports the failure where that
		// left it: the body's last statement.
		if in.curPos != before && in.curPos.IsValid() {
			pos = lineOnly(in.curPos)
		}
		return nil, errorAt(pos, errkind.Evaluation, "expect %s, got %s%s", syntax.TypeString(ty), typeName(v), in.conversionDetails(e, v, ty))
	}
	return r, nil
}

// conversionDetails explains, as the runtime's type_pack_and_check does, why a
// dict or schema value is not of the one schema type ty: the keys the schema
// does not declare, then its required attributes the value lacks.
func (in *Interp) conversionDetails(e *env, v value.Value, ty syntax.Type) string {
	nt, ok := ty.(*syntax.NamedType)
	if !ok {
		return ""
	}
	d, ok := value.AsDict(v)
	if !ok {
		return ""
	}
	tv, err := in.evalTypeName(e, nt.Identifier)
	if err != nil {
		return ""
	}
	def, ok := schemaDefOf(tv)
	if !ok || def.rule != nil {
		return ""
	}
	var b strings.Builder
	for _, ent := range d.Entries() {
		if _, declared := def.attrDecls()[ent.Key]; !declared {
			fmt.Fprintf(&b, "\nSchema %s does not contain attribute %s", def.name, ent.Key)
		}
	}
	for _, name := range def.attrNames() {
		if _, has := d.Get(name); !has && !def.attrDecls()[name].optional {
			fmt.Fprintf(&b, "\nSchema %s's attribute %s is missing", def.name, name)
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return ". For details:" + b.String()
}

// typeName is the type of a value as type errors print it: a schema of
// another package than the main one with its package path (base.A).
func typeName(v value.Value) string {
	switch x := v.(type) {
	case *value.Schema:
		if x.PkgPath != "" && x.PkgPath != "__main__" {
			return x.PkgPath + "." + x.Name
		}
		return x.Name
	case *value.List:
		return "list"
	case *value.Dict:
		return "dict"
	}
	return v.Type()
}

func (in *Interp) tryConvert(e *env, v value.Value, ty syntax.Type, convert bool) (value.Value, bool, error) {
	if value.IsNoneOrUndefined(v) {
		return v, true, nil
	}
	switch t := ty.(type) {
	case nil, *syntax.AnyType:
		return v, true, nil
	case *syntax.BasicType:
		switch t.Kind {
		case syntax.TypeBool:
			_, ok := v.(value.Bool)
			return v, ok, nil
		case syntax.TypeInt:
			// A unit value (1G) is a number_multiplier, no int: the
			// runtime refuses it where int is declared.
			_, ok := v.(value.Int)
			return v, ok, nil
		case syntax.TypeFloat:
			switch x := v.(type) {
			case value.Float:
				return v, true, nil
			case value.Int:
				// int is accepted where float is declared and printed as is.
				_ = x
				return v, true, nil
			}
			return v, false, nil
		case syntax.TypeStr:
			_, ok := v.(value.Str)
			return v, ok, nil
		}
	case *syntax.ListType:
		l, ok := v.(*value.List)
		if !ok {
			return v, false, nil
		}
		if t.InnerType == nil {
			return v, true, nil
		}
		var out []value.Value
		for i, el := range l.Elems {
			r, ok, err := in.tryConvert(e, el, t.InnerType, convert)
			if err != nil || !ok {
				return v, ok, err
			}
			if r != el && out == nil {
				out = append([]value.Value(nil), l.Elems...)
			}
			if out != nil {
				out[i] = r
			}
		}
		if out != nil {
			return value.NewList(out), true, nil
		}
		return v, true, nil
	case *syntax.DictType:
		d, ok := v.(*value.Dict)
		if !ok {
			if s, isSchema := v.(*value.Schema); isSchema {
				d = s.Config
				if t.ValueType == nil {
					return v, true, nil
				}
			} else {
				return v, false, nil
			}
		}
		if t.ValueType == nil {
			return v, true, nil
		}
		var out *value.Dict
		for i, ent := range d.Entries() {
			r, ok, err := in.tryConvert(e, ent.Value, t.ValueType, convert)
			if err != nil || !ok {
				return v, ok, err
			}
			if r != ent.Value && out == nil {
				out = d.Copy()
			}
			if out != nil {
				ent := out.At(i)
				ent.Value = r
				out.SetEntry(ent)
			}
		}
		if out != nil {
			return out, true, nil
		}
		return v, true, nil
	case *syntax.UnionType:
		// The members in order, each converting a dict it fits (the
		// runtime's convert_collection_value_with_union_types): `{}` under
		// `A | {str:str}` becomes an A, and fails if A requires attributes.
		for _, el := range t.TypeElements {
			r, ok, err := in.tryConvert(e, v, el, convert)
			if err != nil {
				return v, false, err
			}
			if ok {
				return r, true, nil
			}
		}
		return v, false, nil
	case *syntax.LiteralType:
		switch t.Kind {
		case syntax.LitBool:
			b, ok := v.(value.Bool)
			return v, ok && bool(b) == t.Bool, nil
		case syntax.LitInt:
			if t.Suffix != "" {
				u, ok := v.(value.Unit)
				return v, ok && u.Raw == t.Int && u.Suffix == t.Suffix, nil
			}
			i, ok := v.(value.Int)
			return v, ok && int64(i) == t.Int, nil
		case syntax.LitFloat:
			f, ok := v.(value.Float)
			return v, ok && float64(f) == t.Float, nil
		case syntax.LitStr:
			s, ok := v.(value.Str)
			return v, ok && string(s) == t.Str, nil
		}
	case *syntax.FunctionType:
		_, ok := v.(value.Callable)
		return v, ok, nil
	case *syntax.NamedType:
		return in.convertNamed(e, v, t, convert)
	}
	return v, false, nil
}

// findAlias resolves a type alias name, possibly qualified by an import.
func (in *Interp) findAlias(e *env, id *syntax.Identifier) (*typeAlias, *env, bool) {
	if e == nil || e.pkg == nil {
		return nil, nil, false
	}
	if len(id.Names) == 1 {
		if a, ok := e.pkg.types[id.Names[0].Value]; ok {
			return a, &env{file: a.file, pkg: e.pkg}, true
		}
		return nil, nil, false
	}
	if len(id.Names) == 2 && e.file != nil {
		mv, ok := e.file.imports[id.Names[0].Value]
		if !ok {
			mv, ok, _ = in.lazyImport(e.file, id.Names[0].Value)
		}
		if m, isMod := mv.(*value.Module); ok && isMod {
			if p, ok := in.pkgs[m.Name]; ok {
				if a, ok := p.types[id.Names[1].Value]; ok {
					return a, &env{file: a.file, pkg: p}, true
				}
			}
		}
	}
	return nil, nil, false
}

func (in *Interp) convertNamed(e *env, v value.Value, t *syntax.NamedType, convert bool) (value.Value, bool, error) {
	if a, ae, ok := in.findAlias(e, t.Identifier); ok {
		return in.tryConvert(ae, v, a.ty, convert)
	}
	switch t.Identifier.Name() {
	case "any":
		return v, true, nil
	case "int":
		return in.tryConvert(e, v, &syntax.BasicType{Kind: syntax.TypeInt}, convert)
	case "float":
		return in.tryConvert(e, v, &syntax.BasicType{Kind: syntax.TypeFloat}, convert)
	case "str":
		return in.tryConvert(e, v, &syntax.BasicType{Kind: syntax.TypeStr}, convert)
	case "bool":
		return in.tryConvert(e, v, &syntax.BasicType{Kind: syntax.TypeBool}, convert)
	case "list":
		_, ok := v.(*value.List)
		return v, ok, nil
	case "dict":
		_, ok := value.AsDict(v)
		return v, ok, nil
	}
	if in.isNumberMultiplierType(e, t.Identifier) {
		_, ok := v.(value.Unit)
		return v, ok, nil
	}
	tv, err := in.evalTypeName(e, t.Identifier)
	if err != nil {
		return nil, false, err
	}
	def, ok := schemaDefOf(tv)
	if !ok {
		return v, false, nil
	}
	if def.rule != nil {
		// A rule is no schema for the runtime: no dict converts to it, and
		// any instance passes, unchecked as 0.12.1 leaves a user type
		// (a rule's own instances are of its protocol).
		_, ok := v.(*value.Schema)
		return v, ok, nil
	}
	switch x := v.(type) {
	case *value.Schema:
		if sd, ok := x.Def.(*schemaDef); ok && (sd.isSubOf(def) || implementsProtocol(sd, def) || sameDefinition(sd, def)) {
			return v, true, nil
		}
		// While a plain dict becomes a schema, its values have no static
		// type: the official runtime accepts any schema instance for a schema
		// type there (its static checker cannot see them), the way konfig
		// hands its own DeploymentStrategy or Affinity to the k8s module's
		// attributes of those names through a {str:} config.
		if _, isDef := x.Def.(*schemaDef); isDef && in.dictConversions > 0 {
			return v, true, nil
		}
		return v, false, nil
	case *value.Dict:
		if !convert {
			return v, false, nil
		}
		// A dict with a key the schema does not declare as an attribute (an
		// assignment in the body does not count) stays a dict, and so fails
		// the type, as the runtime's convert_collection_value.
		if def.indexSig == nil {
			for _, ent := range x.Entries() {
				if _, declared := def.attrDecls()[ent.Key]; !declared {
					return v, false, nil
				}
			}
		}
		in.dictConversions++
		at := t.Pos()
		if in.curPos.IsValid() {
			at = in.curPos
		}
		in.nextConverted = true
		r, err := in.instantiate(def, x, nil, nil, at, in.currentPkg)
		in.dictConversions--
		if err != nil {
			return nil, false, err
		}
		return r, true, nil
	}
	return v, false, nil
}

func implementsProtocol(sd, proto *schemaDef) bool {
	if !proto.isProtocol() {
		return false
	}
	for d := sd; d != nil; d = d.parent {
		for _, m := range d.mixins {
			if m.stmt != nil && m.stmt.ForHostName != nil && m.stmt.ForHostName.Name() == proto.name {
				return true
			}
		}
	}
	return false
}

// isNumberMultiplierType reports units.NumberMultiplier (the type of 1Gi-like
// literals), a type the units system module declares but has no value for.
func (in *Interp) isNumberMultiplierType(e *env, id *syntax.Identifier) bool {
	if len(id.Names) != 2 || id.Names[1].Value != "NumberMultiplier" || e == nil || e.file == nil {
		return false
	}
	mv, ok := e.file.imports[id.Names[0].Value]
	if !ok {
		mv, ok, _ = in.lazyImport(e.file, id.Names[0].Value)
	}
	m, isMod := mv.(*value.Module)
	return ok && isMod && m.Name == "units"
}

// sameDefinition reports a schema (or an ancestor) defined by the same
// statement as def: a file imported both as its directory's package and as a
// single-file package (konfig's frontend and frontend.server) defines each of
// its schemas once per package, and both are one type.
func sameDefinition(sd, def *schemaDef) bool {
	if def.stmt == nil {
		return false
	}
	for s := sd; s != nil; s = s.parent {
		if s.stmt == def.stmt {
			return true
		}
	}
	return false
}

// evalTypeName finds the schema a type annotation names. Types are resolved
// statically by the official engine: a schema attribute named as the import
// of its type (`affinity?: affinity.Affinity`) does not hide the import.
func (in *Interp) evalTypeName(e *env, id *syntax.Identifier) (value.Value, error) {
	saved := in.frameStack
	in.frameStack = nil
	defer func() { in.frameStack = saved }()
	return in.evalIdentifier(e, id)
}
