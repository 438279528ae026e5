package resolve

import (
	"fmt"
	"slices"
	"sort"
	"strconv"

	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
)

// attrDecl finds the declaration of a schema attribute: the schema's own,
// else its bases' and mixins'.
func (s *schemaInfo) attrDecl(name string) (*syntax.SchemaAttr, *schemaInfo) {
	n := 0
	for cur := s; cur != nil && n < 1000; cur, n = cur.parent, n+1 {
		if a := cur.declared[name]; a != nil {
			return a, cur
		}
		for _, m := range cur.mixins {
			if a := m.declared[name]; a != nil {
				return a, m
			}
		}
	}
	return nil, nil
}

// attrType is the declared type of a schema attribute, any when unknown.
func (r *resolver) attrType(s *schemaInfo, name string) (*typ, *syntax.SchemaAttr) {
	a, owner := s.attrDecl(name)
	if a == nil {
		return anyT, nil
	}
	return r.fromSyntax(r.infos[owner.pkg.Path], a.Ty, 0), a
}

// exprType is the type of an expression as far as it is certain.
func (r *resolver) exprType(e syntax.Expr, depth int) *typ {
	if depth > 100 {
		return anyT
	}
	switch e := e.(type) {
	case *syntax.NumberLit:
		if e.BinarySuffix != "" {
			if e.IsFloat {
				return anyT // a CompileError of its own
			}
			return &typ{kind: tNumMul, lit: strconv.FormatInt(e.Int, 10) + e.BinarySuffix}
		}
		if e.IsFloat {
			return &typ{kind: tLitFloat, lit: rustFloat(e.Float)}
		}
		return &typ{kind: tLitInt, lit: strconv.FormatInt(e.Int, 10)}
	case *syntax.StringLit:
		return &typ{kind: tLitStr, lit: e.Value}
	case *syntax.JoinedString:
		return strT
	case *syntax.NameConstantLit:
		switch e.Value {
		case syntax.True, syntax.False:
			return &typ{kind: tLitBool, lit: e.Value.Symbol()}
		}
		return noneT
	case *syntax.ParenExpr:
		return r.exprType(e.Expr, depth+1)
	case *syntax.SelectorExpr:
		// A member of a schema-typed value (`mk().a`) has its declared type.
		if e.HasQuestion || e.Attr == nil || len(e.Attr.Names) != 1 {
			return anyT
		}
		if t := r.exprType(e.Value, depth+1); t.kind == tSchema && t.schema.hasDeclared(e.Attr.Names[0].Value) {
			at, _ := r.attrType(t.schema, e.Attr.Names[0].Value)
			return at
		}
		return anyT
	case *syntax.ListExpr:
		// The official type is the list of the sup of its items: a
		// starred list gives its items, a conditional item its branches.
		var ts []*typ
		for _, el := range e.Elts {
			t := r.listItemType(el, depth+1)
			if t == nil {
				return anyT
			}
			ts = append(ts, t)
		}
		return &typ{kind: tList, elem: union(ts)}
	case *syntax.ConfigExpr:
		return r.configType(e.Items, depth)
	case *syntax.LambdaExpr:
		return r.lambdaType(e)
	case *syntax.Identifier:
		return r.identType(e)
	case *syntax.SchemaExpr:
		return r.instanceOf(e.Name)
	case *syntax.Compare:
		return boolT
	case *syntax.IfExpr:
		return union([]*typ{r.exprType(e.Body, depth+1), r.exprType(e.Orelse, depth+1)})
	case *syntax.Subscript:
		if e.HasQuestion {
			return anyT
		}
		t := r.exprType(e.Value, depth+1)
		switch {
		case t.isStrKind():
			return strT
		case t.kind == tList && e.Index == nil:
			return t
		case t.kind == tList:
			return t.elem
		case t.kind == tDict && e.Index != nil:
			if k, ok := e.Index.(*syntax.StringLit); ok && t.attrs[k.Value] != nil {
				return t.attrs[k.Value]
			}
			return t.elem
		}
	case *syntax.UnaryExpr:
		// The official resolver gives a unary operation its operand's
		// type: -2 is int(2), not 1 is int(1), not "a" is str(a).
		if t, ok := unaryResult(e.Op, r.exprType(e.Operand, depth+1)); ok {
			return t
		}
	case *syntax.ListComp:
		var el *typ
		r.withScope(func(sc *scope) {
			r.compTargets(e.Generators, sc)
			el = r.exprType(e.Elt, depth+1)
		})
		return &typ{kind: tList, elem: el}
	case *syntax.DictComp:
		if e.Entry == nil || e.Entry.Key == nil {
			return anyT
		}
		var kt, vt *typ
		r.withScope(func(sc *scope) {
			r.compTargets(e.Generators, sc)
			kt, vt = r.exprType(e.Entry.Key, depth+1), r.exprType(e.Entry.Value, depth+1)
		})
		return &typ{kind: tDict, key: kt, elem: vt}
	case *syntax.QuantExpr:
		switch e.Op {
		case syntax.QuantAll, syntax.QuantAny:
			return boolT
		case syntax.QuantFilter:
			return r.exprType(e.Target, depth+1)
		case syntax.QuantMap:
			var el *typ
			r.withScope(func(sc *scope) {
				r.compTargets([]*syntax.CompClause{{Targets: e.Variables, Iter: e.Target}}, sc)
				el = r.exprType(e.Test, depth+1)
			})
			return &typ{kind: tList, elem: el}
		}
	case *syntax.BinaryExpr:
		return arithmeticResult(e.Op, r.exprType(e.Left, depth+1), r.exprType(e.Right, depth+1))
	case *syntax.CallExpr:
		if id, ok := e.Func.(*syntax.Identifier); ok {
			if t := r.builtinResult(id); t != nil {
				return t
			}
			if n := len(id.Names); n >= 2 {
				recv := &syntax.Identifier{Names: id.Names[:n-1]}
				if r.identType(recv).isStrKind() {
					if t := strMethodResults[id.Names[n-1].Value]; t != nil {
						return t
					}
				}
			}
			if len(id.Names) == 2 && !r.shadowed(id) {
				// A lambda global of an imported package.
				if sym := r.pkg.globals[id.Names[0].Value]; sym != nil && sym.kind == symModule && sym.module != nil {
					if target := r.infos[sym.module.Path]; target != nil && target.lambdaResults[id.Names[1].Value] != nil {
						return target.lambdaResults[id.Names[1].Value]
					}
				}
			}
			if len(id.Names) == 1 && !r.shadowed(id) && r.lambdaResults[id.Names[0].Value] != nil {
				return r.lambdaResults[id.Names[0].Value]
			}
			if ft := r.identType(id); ft.kind == tFunc {
				return ft.elem
			}
			return r.instanceOf(id)
		}
		if ft := r.exprType(e.Func, depth+1); ft.kind == tFunc {
			return ft.elem
		}
		if sel, ok := e.Func.(*syntax.SelectorExpr); ok && sel.Attr != nil && len(sel.Attr.Names) == 1 &&
			r.exprType(sel.Value, depth+1).isStrKind() {
			if t := strMethodResults[sel.Attr.Names[0].Value]; t != nil {
				return t
			}
		}
	}
	return anyT
}

// lambdaType is a lambda's function type: its annotated parameter and
// result types, any where there is no annotation.
func (r *resolver) lambdaType(e *syntax.LambdaExpr) *typ {
	t := &typ{kind: tFunc, elem: anyT}
	if e.Args != nil {
		for i := range e.Args.Args {
			pt := anyT
			if i < len(e.Args.TyList) && e.Args.TyList[i] != nil {
				pt = r.fromSyntax(r.pkg, e.Args.TyList[i], 0)
			}
			t.elems = append(t.elems, pt)
		}
	}
	if e.ReturnTy != nil {
		t.elem = r.fromSyntax(r.pkg, e.ReturnTy, 0)
	} else if bt := r.lambdaBodyTypes[e]; bt != nil {
		t.elem = bt
	}
	return t
}

// unitConstants are the int members of the units module.
var unitConstants = map[string]bool{"n": true, "u": true, "m": true, "k": true, "K": true, "M": true, "G": true,
	"T": true, "P": true, "Ki": true, "Mi": true, "Gi": true, "Ti": true, "Pi": true}

// builtinResults are the official return types of the builtins that have
// one other than any.
var builtinResults = map[string]*typ{
	"len": intT, "ord": intT, "int": intT,
	"str": strT, "hex": strT, "bin": strT, "oct": strT, "typeof": strT,
	"float": floatT,
	"bool":  boolT, "isunique": boolT, "multiplyof": boolT, "isnullish": boolT, "all_true": boolT, "any_true": boolT,
	"sorted": {kind: tList, elem: anyT}, "range": {kind: tList, elem: intT},
}

// builtinResult is the result type of a call of a builtin that no name of
// the program shadows; nil otherwise.
func (r *resolver) builtinResult(id *syntax.Identifier) *typ {
	if len(id.Names) != 1 || r.shadowed(id) {
		return nil
	}
	name := id.Names[0].Value
	if r.pkg != nil && r.pkg.globals[name] != nil {
		return nil
	}
	return builtinResults[name]
}

// instanceOf is the type of an instance of the schema a name denotes.
func (r *resolver) instanceOf(id *syntax.Identifier) *typ {
	if id == nil || r.shadowed(id) {
		return anyT
	}
	if si := r.schemaByIdent(r.pkg, id); si != nil && si.stmt != nil {
		return &typ{kind: tSchema, schema: si, instance: true}
	}
	return anyT
}

// identType types a loaded name: a typed schema attribute, or a global of
// the package assigned once.
func (r *resolver) identType(id *syntax.Identifier) *typ {
	if len(id.Names) == 0 {
		return anyT
	}
	if len(id.Names) == 2 && !r.shadowed(id) {
		if sym := r.pkg.globals[id.Names[0].Value]; sym != nil && sym.kind == symModule && sym.system == "units" && unitConstants[id.Names[1].Value] {
			return intT
		}
		if sym := r.pkg.globals[id.Names[0].Value]; sym != nil && sym.kind == symModule && sym.module != nil {
			if target := r.infos[sym.module.Path]; target != nil {
				if t := target.varTypes[id.Names[1].Value]; t != nil {
					return t
				}
			}
			return anyT
		}
	}
	return r.attrPath(r.nameType(id.Names[0].Value), id, false)
}

// nameType types a single loaded name.
func (r *resolver) nameType(first string) *typ {
	for sc := r.local; sc != nil; sc = sc.parent {
		if sc.binds(first) {
			if sc != r.schemaScope {
				if t := sc.types[first]; t != nil {
					return t
				}
				return anyT
			}
			break
		}
	}
	switch {
	case r.schema != nil && r.schema.hasAttr(first):
		if r.schema.isRule {
			return anyT
		}
		t, decl := r.attrType(r.schema, first)
		if decl == nil && r.schemaScope != nil && r.schemaScope.types[first] != nil {
			return r.schemaScope.types[first] // an undeclared local of the body
		}
		return t
	case r.localBinds(first):
		if t := r.paramTypes[first]; t != nil && r.schemaScope != nil && r.schemaScope.names[first] {
			return t
		}
		return anyT
	}
	if t := r.varTypes[first]; t != nil {
		return t
	}
	if sym := r.pkg.globals[first]; sym != nil && sym.kind == symSchema && sym.schema.stmt != nil {
		return &typ{kind: tSchema, schema: sym.schema}
	}
	return anyT
}

// localBinds is localHas by scope.binds.
func (r *resolver) localBinds(name string) bool {
	for sc := r.local; sc != nil; sc = sc.parent {
		if sc.binds(name) {
			return true
		}
	}
	return false
}

// attrPath follows id.Names[1:] from the type t of the first name; with
// report, a member a schema does not declare is an error, as the official
// load_attr has it.
func (r *resolver) attrPath(t *typ, id *syntax.Identifier, report bool) *typ {
	for _, n := range id.Names[1:] {
		switch t.kind {
		case tDict:
			if a := t.attrs[n.Value]; a != nil {
				t = a
			} else {
				t = t.elem
			}
		case tSchema:
			s := t.schema
			if s.hasDeclared(n.Value) {
				t, _ = r.attrType(s, n.Value)
				continue
			}
			if s.isMixin || s.open() {
				return anyT
			}
			if !t.instance && n.Value == "instances" {
				return anyT
			}
			if report {
				cands := []string{"instances"}
				if t.instance {
					cands = nil
					if !t.annotated {
						cands = s.attrNames()
					}
				}
				r.report(KindType, id.Pos(), "attribute '%s' not found in '%s'%s", n.Value, s.name, suggestionText(suggestions(n.Value, cands)))
			}
			return anyT
		case tStr, tLitStr:
			// A str's members are its methods.
			if strMethodResults[n.Value] == nil && report {
				r.report(KindType, id.Pos(), "attribute '%s' not found in '%s'", n.Value, t)
			}
			return anyT
		case tNumMul, tBool, tInt, tFloat, tLitBool, tLitInt, tLitFloat, tList, tFunc:
			// The official load_attr finds no member on these.
			if report {
				r.report(KindType, id.Pos(), "attribute '%s' not found in '%s'", n.Value, t)
			}
			return anyT
		default:
			return anyT
		}
	}
	return t
}

// mustAssign reports a value of type got stored where want is expected.
func (r *resolver) mustAssign(got, want *typ, pos syntax.Position, decl *syntax.SchemaAttr) {
	if decl != nil {
		p := decl.Pos()
		r.mustAssignAt(got, want, pos, &p)
		return
	}
	r.mustAssignAt(got, want, pos, nil)
}

// mustAssignAt is mustAssign with the declaration's position, if any.
func (r *resolver) mustAssignAt(got, want *typ, pos syntax.Position, declPos *syntax.Position) {
	r.dictIntoSchema(got, want, pos, 0)
	if assignable(got, want) {
		return
	}
	d := &Diagnostic{Kind: KindType, Messages: []Message{{Pos: pos, Msg: fmt.Sprintf("expected %s, got %s", want, got)}}}
	if declPos != nil {
		d.Messages = append(d.Messages, Message{Pos: *declPos, Msg: fmt.Sprintf("variable is defined here, its type is %s, but got %s", want, got)})
	}
	r.diag(d)
}

// dictIntoSchema reports what the official check_type meets on its way
// when a dict is stored where a schema is expected: a dict literal of one key
// has its value judged against that attribute (dict_assignable_to_schema),
// through list items, dict values and unions. It returns check_type's answer.
func (r *resolver) dictIntoSchema(got, want *typ, pos syntax.Position, depth int) bool {
	if got == nil || want == nil || depth > 50 {
		return true
	}
	switch {
	case got.isAny() || want.isAny():
		return true
	case got.kind == tList && want.kind == tList:
		return r.dictIntoSchema(got.elem, want.elem, pos, depth+1)
	case got.kind == tDict && want.kind == tDict:
		return r.dictIntoSchema(got.key, want.key, pos, depth+1) && r.dictIntoSchema(got.elem, want.elem, pos, depth+1)
	case got.kind == tDict && want.kind == tSchema:
		if want.schema.stmt == nil || want.schema.stmt.IndexSignature != nil {
			return true
		}
		key, ok := singleLitKey(got.key)
		if !ok || got.attrs[key] == nil {
			return true
		}
		// Only the schema's own attributes (its mixins' included): the
		// official SchemaType.attrs hold no base's.
		_, owner := want.schema.attrDecl(key)
		if owner == nil || (owner != want.schema && !slices.Contains(want.schema.mixins, owner)) {
			return true
		}
		if t, decl := r.attrType(want.schema, key); decl != nil {
			r.mustAssign(got.attrs[key], t, pos, decl)
		}
		return true
	case got.kind == tUnion:
		for _, e := range got.elems {
			if !r.dictIntoSchema(e, want, pos, depth+1) {
				return false
			}
		}
		return true
	case want.kind == tUnion:
		for _, e := range want.elems {
			if r.dictIntoSchema(got, e, pos, depth+1) {
				return true
			}
		}
		return false
	}
	return assignable(got, want)
}

// singleLitKey is the key of a dict type whose keys are all one literal.
func singleLitKey(k *typ) (string, bool) {
	if k == nil {
		return "", false
	}
	switch k.kind {
	case tLitStr:
		return k.lit, true
	case tUnion:
		if len(k.elems) == 0 {
			return "", false
		}
		for _, e := range k.elems {
			if e.kind != tLitStr || e.lit != k.elems[0].lit {
				return "", false
			}
		}
		return k.elems[0].lit, true
	}
	return "", false
}

// checkSchemaConfig checks the values of `Schema {attr = value}` against
// the attributes' declared types, into nested dict literals and
// conditional entries.
func (r *resolver) checkSchemaConfig(e *syntax.SchemaExpr) {
	cfg, ok := e.Config.(*syntax.ConfigExpr)
	if !ok || e.Name == nil || r.shadowed(e.Name) {
		return
	}
	si := r.schemaByIdent(r.pkg, e.Name)
	if si == nil || si.isRule {
		return
	}
	r.configTypes(si, cfg.Items, nil, 0)
}

// configTypes checks config entries whose target is schema s; parent is the
// declaration of the attribute holding the config, if any.
func (r *resolver) configTypes(s *schemaInfo, items []*syntax.ConfigEntry, parent *syntax.SchemaAttr, depth int) {
	if depth > 100 {
		return
	}
	for _, it := range items {
		if it == nil {
			continue
		}
		if it.Operation == syntax.OpInsert {
			// `k += v` has v itself judged against the attribute's type
			// (the official check_config_entry), a list included; a
			// union value is left to the evaluation.
			if t := r.exprType(it.Value, 0); t.isAny() || t.kind == tUnion {
				continue
			}
		}
		if it.Key == nil {
			var attrs []litAttr
			var at syntax.Position
			if ie, ok := it.Value.(*syntax.ConfigIfEntryExpr); ok {
				r.pushOrder(entryPos(it), phaseValue)
				for items := range ifBranches(ie) {
					r.configTypes(s, items, parent, depth+1)
				}
				r.popOrder()
				// An `if` with no other branch has the type of its
				// entries' literal (one with branches has none).
				if ie.Orelse == nil {
					attrs, at = r.literalAttrs(ie.Items, 0), ie.Pos()
				}
			} else if cfg, ok := it.Value.(*syntax.ConfigExpr); ok {
				// `**{...}` is walked in the same context.
				r.pushOrder(entryPos(it), phaseValue)
				r.configTypes(s, cfg.Items, parent, depth+1)
				r.popOrder()
				attrs, at = r.literalAttrs(cfg.Items, 0), cfg.Pos()
			} else if vt := r.exprType(it.Value, 0); vt.kind == tSchema && vt.instance {
				// `**instance`: its schema's own attributes, each at its
				// declaration.
				for _, name := range vt.schema.attrNames() {
					if t, decl := r.attrType(vt.schema, name); decl != nil {
						attrs = append(attrs, litAttr{name: name, ty: t, pos: decl.Pos()})
					}
				}
				at = it.Value.Pos()
			} else if vt.kind == tDict && len(vt.attrs) > 0 {
				// `**d` of a dict the static pass knows the keys of.
				attrs, at = typeAttrs(vt, 0), it.Value.Pos()
			}
			if len(attrs) > 0 {
				var decl *syntax.Position
				if parent != nil {
					p := parent.Pos()
					decl = &p
				}
				r.pushOrder(entryPos(it), phaseType)
				r.attrsInto(&typ{kind: tSchema, schema: s}, decl, attrs, at, 0)
				r.popOrder()
			}
			continue
		}
		names := entryKeyNames(it.Key, true)
		if len(names) == 0 {
			continue
		}
		r.pushOrder(entryPos(it), phaseType)
		r.checkConfigPath(s, names, it.Value, parent, depth)
		r.popOrder()
	}
}

// checkConfigPath checks `a.b.c = value` in a config of schema s.
func (r *resolver) checkConfigPath(s *schemaInfo, names []*syntax.Name, value syntax.Expr, parent *syntax.SchemaAttr, depth int) {
	levels := r.configPath(s, names, value, parent, depth)
	if len(levels) == 0 {
		return
	}
	// The parser nests `t.a = v` as `t: {a = v}`: each schema on the way
	// then judges a dict of one key, innermost first.
	// Each level gets the dict of all the names after it (`t.m.l.a = v`
	// gives t the dict {m: {l: {a: v}}}).
	value0 := r.exprType(value, 0)
	for k := len(levels) - 1; k >= 0; k-- {
		lv := levels[k]
		got := value0
		for j := len(names) - 1; j > lv.at; j-- {
			key := names[j].Value
			got = &typ{kind: tDict, key: &typ{kind: tLitStr, lit: key}, elem: widen(got), attrs: map[string]*typ{key: widen(got)}}
		}
		r.dictIntoSchema(got, lv.want, names[lv.at].Pos(), 0)
	}
}

// typeAttrs are the attributes of a dict type, in the order given (by
// where they were given), nested dicts' too.
func typeAttrs(t *typ, depth int) []litAttr {
	if depth > 50 {
		return nil
	}
	out := make([]litAttr, 0, len(t.attrs))
	for n, a := range t.attrs {
		la := litAttr{name: n, ty: a, pos: t.attrPos[n]}
		if a.kind == tDict && len(a.attrs) > 0 {
			la.sub = typeAttrs(a, depth+1)
		}
		out = append(out, la)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].pos != out[j].pos {
			return out[i].pos.Line < out[j].pos.Line || out[i].pos.Line == out[j].pos.Line && out[i].pos.Col < out[j].pos.Col
		}
		return out[i].name < out[j].name
	})
	return out
}

// pathLevel is a name of a dotted key whose attribute is a schema.
type pathLevel struct {
	at   int
	want *typ
}

// configPath checks the value of `a.b.c = value` against the type of its
// last name; it returns the schema levels it passed.
func (r *resolver) configPath(s *schemaInfo, names []*syntax.Name, value syntax.Expr, parent *syntax.SchemaAttr, depth int) []pathLevel {
	var levels []pathLevel
	for i, n := range names {
		want, decl := r.attrType(s, n.Value)
		if decl == nil {
			// A key of the index signature takes its value type.
			if i == len(names)-1 && !s.hasAttr(n.Value) {
				if vt := r.indexValueType(s); !vt.isAny() {
					r.mustAssign(r.exprType(value, 0), vt, n.Pos(), parent)
				}
			}
			return levels
		}
		if want.isAny() {
			return levels
		}
		if i == len(names)-1 {
			// A nested literal's entries are met in the walk of the value.
			if cfg, ok := value.(*syntax.ConfigExpr); ok && want.kind == tSchema {
				r.asValue(func() { r.configTypes(want.schema, cfg.Items, decl, depth+1) })
				r.dictIntoSchema(r.exprType(value, 0), want, n.Pos(), 0)
				return levels
			}
			if cfg, ok := value.(*syntax.ConfigExpr); ok && want.kind == tDict {
				r.asValue(func() { r.dictEntries(want, cfg, decl, depth+1) })
			} else {
				// Config literals met in the value (list items,
				// comprehensions, operands) are walked under the type.
				p := decl.Pos()
				r.asValue(func() { r.ctxCheck(want, value, &p, depth+1) })
			}
			r.mustAssign(r.exprType(value, 0), want, n.Pos(), decl)
			return levels
		}
		if want.kind == tSchema {
			levels = append(levels, pathLevel{i, want})
			s, parent = want.schema, decl
			continue
		}
		// `a.b.c = v` on a dict attribute: the official check follows the
		// names through the dict's value types, and judges the dict of the
		// names left ({c: v}) at the first one whose type is no dict.
		at := i
		for want.kind == tDict && at+1 < len(names) {
			at++
			want = want.elem
			if want == nil || want.isAny() {
				return levels
			}
		}
		if cfg, ok := value.(*syntax.ConfigExpr); ok && at == len(names)-1 && want.kind == tSchema {
			// `d.k = {...}` into a {str:S}: a config of S.
			r.asValue(func() { r.configTypes(want.schema, cfg.Items, decl, depth+1) })
			r.dictIntoSchema(r.exprType(value, 0), want, names[at].Pos(), 0)
			return levels
		}
		if want.kind == tSchema && at < len(names)-1 {
			// `d.k.a = v` into a {str:S}: the rest of the path is S's.
			r.configPath(want.schema, names[at+1:], value, decl, depth+1)
			return levels
		}
		got := r.exprType(value, 0)
		for j := len(names) - 1; j > at; j-- {
			if got.isAny() {
				return levels
			}
			got = &typ{kind: tDict, key: &typ{kind: tLitStr, lit: names[j].Value}, elem: got}
		}
		r.mustAssign(got, want, names[at].Pos(), decl)
		return levels
	}
	return levels
}

// indexValueType is the value type of a schema's own index signature.
func (r *resolver) indexValueType(s *schemaInfo) *typ {
	if s.stmt == nil || s.stmt.IndexSignature == nil {
		return anyT
	}
	return r.fromSyntax(r.infos[s.pkg.Path], s.stmt.IndexSignature.ValueTy, 0)
}

// assignTypes checks an assignment against the declared type of its target
// and records the types of globals.
func (r *resolver) assignTypes(s *syntax.AssignStmt) {
	if len(s.Targets) != 1 || s.Targets[0] == nil || s.Targets[0].Name == nil || len(s.Targets[0].Paths) != 0 {
		return
	}
	t := s.Targets[0]
	name := t.Name.Value
	switch {
	case r.local == nil && r.schema == nil:
		if l, ok := s.Value.(*syntax.LambdaExpr); ok && l.ReturnTy != nil && r.lambdaResults[name] == nil {
			r.lambdaResults[name] = r.fromSyntax(r.pkg, l.ReturnTy, 0)
		}
		r.flowAssign(s, func(n string) *typ { return r.varTypes[n] }, func(n string, t *typ) { r.varTypes[n] = t })
	case r.local != nil && r.local.lambda:
		sc := r.local
		r.flowAssign(s, func(n string) *typ { return sc.types[n] }, sc.setType)
	case r.schema != nil && r.local == r.schemaScope && s.Ty == nil:
		want, decl := r.attrType(r.schema, name)
		if decl == nil {
			// An undeclared name is a local of the body.
			sc := r.schemaScope
			r.flowAssign(s, func(n string) *typ { return sc.types[n] }, sc.setType)
			return
		}
		if want.isAny() {
			return
		}
		// A schema-typed attribute's literal is a config of its schema.
		pos := t.Pos()
		r.ctxCheck(want, s.Value, &pos, 0)
		r.assignLast(r.exprType(s.Value, 0), want, t.Pos(), nil)
	}
}

// annotatedConfig checks a config literal (or `v | {...}`) stored under a
// schema annotation: its keys, and its values against the attributes.
func (r *resolver) annotatedConfig(ty syntax.Type, value syntax.Expr) {
	if cfg, ok := value.(*syntax.ConfigExpr); ok {
		if si := r.schemaOf(r.pkg, ty); si != nil {
			r.configKeys(si, cfg, 0)
			r.configTypes(si, cfg.Items, nil, 0)
		}
	} else if want := r.fromSyntax(r.pkg, ty, 0); want.kind == tSchema {
		// The config literals met in the value (through parentheses,
		// both branches of `if` and both operands) are walked under it.
		r.ctxCheck(want, value, nil, 0)
	}
}

// flowAssign checks an assignment of a name whose type its first
// assignment sets (the package's globals, a lambda's locals): an annotation
// or the first value walked types the name, later values must fit it.
func (r *resolver) flowAssign(s *syntax.AssignStmt, typeOf func(string) *typ, setType func(string, *typ)) {
	t := s.Targets[0]
	name := t.Name.Value
	got := r.exprType(s.Value, 0)
	if s.Ty != nil {
		r.annotatedConfig(s.Ty, s.Value)
		want := r.fromSyntax(r.pkg, s.Ty, 0)
		if want.kind != tSchema {
			pos := t.Pos()
			r.ctxCheck(want, s.Value, &pos, 0)
		}
		r.assignLast(got, want, t.Pos(), nil)
		if typeOf(name) == nil && !want.isAny() {
			setType(name, want)
		}
		return
	}
	// The first assignment walked types the name; later ones must
	// fit that type, as in the official resolver.
	if want := typeOf(name); want != nil {
		pos := t.Pos()
		if want.kind != tSchema {
			r.ctxCheck(want, s.Value, &pos, 0)
		} else if cfg := unionedConfig(s.Value); cfg != nil && want.kind == tSchema {
			// The name's schema type is the context of the literal:
			// its keys must be the schema's.
			r.configKeys(want.schema, cfg, 0)
			r.configTypes(want.schema, cfg.Items, nil, 0)
		}
		r.assignLast(got, want, pos, nil)
		return
	}
	if w := widen(got); !w.isAny() {
		setType(name, w)
	}
}

// listItemType is the type a list literal's item adds to the element
// type; nil when it is not known.
func (r *resolver) listItemType(el syntax.Expr, depth int) *typ {
	switch el := el.(type) {
	case *syntax.StarredExpr:
		switch t := r.exprType(el.Value, depth); t.kind {
		case tAny, tNone:
			return t
		case tList:
			return t.elem
		case tDict:
			return t.key
		}
		return nil
	case *syntax.ListIfItemExpr:
		var ts []*typ
		for _, x := range el.Exprs {
			t := r.listItemType(x, depth+1)
			if t == nil {
				return nil
			}
			ts = append(ts, t)
		}
		if el.Orelse != nil {
			t := r.exprType(el.Orelse, depth+1)
			if t.kind == tList {
				t = t.elem
			}
			ts = append(ts, t)
		} else {
			ts = append(ts, anyT)
		}
		return union(ts)
	}
	return r.exprType(el, depth)
}

// configType is the official type of a config literal: keys and values
// collected entry by entry (a dotted key nests its value in {str:...}, a
// ** unpacked dict adds its own), with the widened type of each literal key
// as an attribute. nil-safe: anything it cannot follow is any.
func (r *resolver) configType(items []*syntax.ConfigEntry, depth int) *typ {
	var ks, vs []*typ
	attrs := map[string]*typ{}
	attrPos := map[string]syntax.Position{}
	addAttr := func(name string, vt *typ, pos syntax.Position) {
		t := vt
		if prev := attrs[name]; prev != nil {
			t = union([]*typ{prev, vt})
		}
		attrs[name] = widen(t)
		attrPos[name] = pos
	}
	var collect func(items []*syntax.ConfigEntry, depth int) bool
	collect = func(items []*syntax.ConfigEntry, depth int) bool {
		if depth > 100 {
			return false
		}
		for _, it := range items {
			if it == nil {
				return false
			}
			switch k := it.Key.(type) {
			case *syntax.Identifier:
				if len(k.Names) == 0 {
					return false
				}
				vt := r.exprType(it.Value, depth+1)
				for i := 1; i < len(k.Names); i++ {
					vt = &typ{kind: tDict, key: strT, elem: vt}
				}
				name := k.Names[0].Value
				switch {
				case len(k.Names) > 1:
					ks = append(ks, strT)
				case r.loopVar(name):
					ks = append(ks, r.nameType(name))
				default:
					ks = append(ks, &typ{kind: tLitStr, lit: name})
				}
				// 0.12.1 makes the first name of a dotted key an
				// attribute too, of the nested type.
				addAttr(name, vt, k.Pos())
				vs = append(vs, vt)
			case *syntax.StringLit:
				vt := r.exprType(it.Value, depth+1)
				ks = append(ks, &typ{kind: tLitStr, lit: k.Value})
				addAttr(k.Value, vt, k.Pos())
				vs = append(vs, vt)
			case *syntax.Subscript:
				if _, ok := k.Value.(*syntax.Identifier); !ok || !numberIndex(k.Index) {
					return false
				}
				vt := r.exprType(it.Value, depth+1)
				ks = append(ks, strT)
				if it.Operation == syntax.OpInsert {
					vs = append(vs, vt)
				} else {
					vs = append(vs, &typ{kind: tList, elem: vt})
				}
			case nil:
				if ie, ok := it.Value.(*syntax.ConfigIfEntryExpr); ok {
					// The entries of every branch, as flattenEntries.
					for items := range ifBranches(ie) {
						if !collect(items, depth+1) {
							return false
						}
					}
					continue
				}
				switch vt := r.exprType(it.Value, depth+1); vt.kind {
				case tAny, tNone:
					vs = append(vs, vt)
				case tDict:
					ks = append(ks, vt.key)
					vs = append(vs, vt.elem)
					for n, a := range vt.attrs {
						attrs[n] = a
						if p, ok := vt.attrPos[n]; ok {
							attrPos[n] = p
						}
					}
				case tUnion:
					// A union of configs (`**(a if c else b)`) adds the sup
					// of its members' keys and of their values, no attrs.
					// A union with another member is refused (entryValue)
					// and adds nothing.
					var uks, uvs []*typ
					refused := false
					for _, m := range vt.elems {
						switch m.kind {
						case tDict:
							uks, uvs = append(uks, m.key), append(uvs, m.elem)
						case tSchema:
							uks, uvs = append(uks, strT), append(uvs, r.indexValueType(m.schema))
						case tAny:
							return false
						default:
							refused = true
						}
					}
					if !refused {
						ks = append(ks, union(uks))
						vs = append(vs, union(uvs))
					}
				case tSchema:
					return false
				default:
					// `**1`, refused by entryValue, adds nothing to the
					// literal's type (the official walk_config_entries).
				}
			default:
				ks = append(ks, r.exprType(k, depth+1))
				vs = append(vs, r.exprType(it.Value, depth+1))
			}
		}
		return true
	}
	if !collect(items, depth) {
		return anyT
	}
	return &typ{kind: tDict, key: union(ks), elem: union(vs), attrs: attrs, attrPos: attrPos}
}

// flattenEntries lists a config's entries with those of its conditional
// entries (every branch), as the official dict type collects them.
func flattenEntries(items []*syntax.ConfigEntry, out []*syntax.ConfigEntry, depth int) []*syntax.ConfigEntry {
	if depth > 100 {
		return append(out, nil)
	}
	for _, it := range items {
		if it != nil && it.Key == nil {
			ie, ok := it.Value.(*syntax.ConfigIfEntryExpr)
			if !ok {
				return append(out, nil) // **unpacking: unknown keys
			}
			for items := range ifBranches(ie) {
				out = flattenEntries(items, out, depth+1)
			}
			continue
		}
		out = append(out, it)
	}
	return out
}

// dictEntries checks the values of a dict literal stored where the dict
// type want is expected, innermost first, each at its key.
func (r *resolver) dictEntries(want *typ, cfg *syntax.ConfigExpr, decl *syntax.SchemaAttr, depth int) {
	var at *syntax.Position
	if decl != nil {
		p := decl.Pos()
		at = &p
	}
	r.dictEntriesAt(want, cfg, decl, at, depth)
}

func (r *resolver) dictEntriesAt(want *typ, cfg *syntax.ConfigExpr, decl *syntax.SchemaAttr, at *syntax.Position, depth int) {
	if depth > 100 || want.elem.isAny() {
		return
	}
	for _, it := range cfg.Items {
		if it == nil || it.Key == nil || it.Operation == syntax.OpInsert {
			continue
		}
		// The value of `a.b.c = v` is the value type nested as deep as
		// the path; `l[0] = v` is judged against the type of l (0.12.1).
		elem, pos := want.elem, it.Key.Pos()
		switch k := it.Key.(type) {
		case *syntax.StringLit:
		case *syntax.Identifier:
			for j, n := range k.Names[1:] {
				if elem.kind != tDict {
					// Deeper than the dict type: the rest of the path
					// nests the value, judged at the last name that fit.
					got := r.exprType(it.Value, 0)
					for m := len(k.Names) - 1; m > j && !got.isAny(); m-- {
						got = &typ{kind: tDict, key: &typ{kind: tLitStr, lit: k.Names[m].Value}, elem: got}
					}
					if !elem.isAny() {
						r.pushOrder(entryPos(it), phaseType)
						r.mustAssignAt(got, elem, pos, at)
						r.popOrder()
					}
					elem = anyT
					break
				}
				elem, pos = elem.elem, n.Pos()
			}
		case *syntax.Subscript:
			if _, ok := k.Value.(*syntax.Identifier); !ok || !numberIndex(k.Index) {
				continue
			}
		default:
			continue
		}
		if elem.isAny() {
			continue
		}
		if _, ok := it.Value.(*syntax.ConfigExpr); !ok && elem.kind != tSchema {
			// Config literals met in the value are walked under the type.
			r.pushOrder(entryPos(it), phaseValue)
			r.ctxCheck(elem, it.Value, at, depth+1)
			r.popOrder()
		}
		if inner, ok := it.Value.(*syntax.ConfigExpr); ok {
			r.pushOrder(entryPos(it), phaseValue)
			switch elem.kind {
			case tDict:
				r.dictEntriesAt(elem, inner, decl, at, depth+1)
			case tSchema:
				r.configItems(elem.schema, inner.Items, depth+1)
				r.configTypes(elem.schema, inner.Items, decl, depth+1)
				r.popOrder()
				r.pushOrder(entryPos(it), phaseType)
				r.dictIntoSchema(r.exprType(it.Value, 0), elem, pos, 0)
				r.popOrder()
				continue
			}
			r.popOrder()
		}
		r.pushOrder(entryPos(it), phaseType)
		r.mustAssignAt(r.exprType(it.Value, 0), elem, pos, at)
		r.popOrder()
	}
}

// schemaValue checks a dict literal stored where schema type want is
// expected: its keys and values.
func (r *resolver) schemaValue(want *typ, v syntax.Expr) {
	cfg, ok := v.(*syntax.ConfigExpr)
	if !ok || want.kind != tSchema {
		return
	}
	r.configKeys(want.schema, cfg, 0)
	r.configTypes(want.schema, cfg.Items, nil, 0)
}

// unionedConfig is the dict literal of `value | {...}`: stored where a
// schema is expected, the official resolver checks its entries' values
// against the schema's attributes, as those of a plain literal.
func unionedConfig(v syntax.Expr) *syntax.ConfigExpr {
	b, ok := v.(*syntax.BinaryExpr)
	if !ok || b.Op != syntax.BitOr {
		return nil
	}
	cfg, _ := b.Right.(*syntax.ConfigExpr)
	return cfg
}

// arithmeticResult is the official static type of a binary operation
// (the official calculation table): ints give int (`/` included: 1 / 2 is
// typed int, though it evaluates to 0.5), a float operand gives float, +
// and | of lists a list, | of dicts a dict, `and` bool, `or` the sup of
// both; an operation the table refuses (reported by binaryCheck) is any.
func arithmeticResult(op syntax.BinOp, l, rt *typ) *typ {
	l, rt = variableUnion(l), variableUnion(rt)
	if l.isAny() || rt.isAny() {
		return anyT
	}
	number := func() *typ {
		if l.isFloatKind() || rt.isFloatKind() {
			return floatT
		}
		return intT
	}
	nums := l.isNumber() && rt.isNumber()
	switch op {
	case syntax.Add:
		switch {
		case nums:
			return number()
		case l.isStrKind() && rt.isStrKind():
			return strT
		case l.kind == tList && rt.kind == tList:
			return &typ{kind: tList, elem: union([]*typ{l.elem, rt.elem})}
		}
	case syntax.Sub, syntax.Pow, syntax.Div, syntax.FloorDiv:
		if nums {
			return number()
		}
	case syntax.Mul:
		switch {
		case nums:
			return number()
		case l.isIntKind() && rt.isMulValue():
			return rt
		case l.isMulValue() && rt.isIntKind():
			return l
		}
	case syntax.Mod:
		if nums {
			return intT
		}
	case syntax.LShift, syntax.RShift, syntax.BitXor, syntax.BitAnd:
		if l.isIntKind() && rt.isIntKind() {
			return intT
		}
	case syntax.BitOr:
		switch {
		case l.isIntKind() && rt.isIntKind():
			return intT
		case l.kind == tNone:
			return rt
		case rt.kind == tNone:
			return l
		case l.kind == tList && rt.kind == tList:
			return &typ{kind: tList, elem: union([]*typ{l.elem, rt.elem})}
		case l.kind == tDict && rt.kind == tDict:
			attrs := map[string]*typ{}
			for _, d := range []*typ{l, rt} {
				for n, a := range d.attrs {
					attrs[n] = a
				}
			}
			return &typ{kind: tDict, key: union([]*typ{l.key, rt.key}), elem: union([]*typ{l.elem, rt.elem}), attrs: attrs}
		case l.kind == tSchema && (rt.kind == tSchema || rt.kind == tDict):
			return l
		}
	case syntax.And:
		return boolT
	case syntax.Or:
		return union([]*typ{l, rt})
	}
	return anyT
}

func (t *typ) isFloatKind() bool { return t.kind == tFloat || t.kind == tLitFloat }

// isMulValue is what an int may multiply: a number, a str or a list, or
// a union of those.
func (t *typ) isMulValue() bool {
	if t.kind == tUnion {
		for _, e := range t.elems {
			if !e.isMulValue() {
				return false
			}
		}
		return true
	}
	return t.isNumber() || t.isStrKind() || t.kind == tList
}

// variableUnion is the official literal_union_type_to_variable_type: a
// union of literals is widened to its base types (1 | 2 is int).
func variableUnion(t *typ) *typ {
	if t != nil && t.kind == tUnion {
		return widen(t)
	}
	return t
}

// strMethodResults are the official return types of string methods.
var strMethodResults = map[string]*typ{
	"startswith": boolT, "endswith": boolT, "isalnum": boolT, "isalpha": boolT, "isdigit": boolT,
	"islower": boolT, "isspace": boolT, "istitle": boolT, "isupper": boolT,
	"count": intT, "find": intT, "index": intT, "rfind": intT, "rindex": intT,
	"capitalize": strT, "format": strT, "join": strT, "lower": strT, "upper": strT, "lstrip": strT,
	"rstrip": strT, "strip": strT, "replace": strT, "title": strT, "removeprefix": strT, "removesuffix": strT,
	"split": {kind: tList, elem: strT}, "chars": {kind: tList, elem: strT}, "rsplit": {kind: tList, elem: strT}, "splitlines": {kind: tList, elem: strT},
}

// compTargets declares a comprehension's loop variables, typed by what
// they iterate as the official resolver types them: a list's (widened)
// element (after its index), a str, a dict's key (and value); any otherwise.
func (r *resolver) compTargets(gens []*syntax.CompClause, sc *scope) {
	sc.loop = true
	for _, g := range gens {
		r.compClauseTargets(g, sc)
	}
}

// compClauseTargets declares and types the loop variables of one clause.
func (r *resolver) compClauseTargets(g *syntax.CompClause, sc *scope) {
	if g == nil {
		return
	}
	// As the official do_loop_type_check: each member of a union
	// iterable adds its key (and value) types to the variables'.
	it := r.exprType(g.Iter, 0)
	members := []*typ{it}
	if it.kind == tUnion {
		members = it.elems
	}
	var first, second *typ
	add := func(prev, t *typ) *typ {
		if prev == nil {
			return t
		}
		return union([]*typ{t, prev})
	}
	two := len(g.Targets) == 2
	for _, m := range members {
		switch {
		case m.isAny():
			first, second = anyT, anyT
		case m.kind == tList && two:
			first, second = add(first, intT), add(second, m.elem)
		case m.kind == tList:
			first = add(first, m.elem)
		case m.kind == tDict:
			first, second = add(first, m.key), add(second, m.elem)
		case m.kind == tSchema:
			first, second = add(first, strT), add(second, r.indexValueType(m.schema))
		case m.isStrKind() && two:
			first, second = add(first, intT), add(second, strT)
		case m.isStrKind():
			first = add(first, strT)
		}
	}
	var ts []*typ
	for _, t := range []*typ{first, second} {
		if t == nil {
			t = anyT
		}
		ts = append(ts, widen(t))
	}
	for i, t := range g.Targets {
		if t == nil || len(t.Names) == 0 {
			continue
		}
		sc.define(t.Names[0].Value)
		if i < len(ts) && !ts[i].isAny() {
			if sc.types == nil {
				sc.types = map[string]*typ{}
			}
			sc.types[t.Names[0].Value] = ts[i]
		}
	}
}
