package check

import (
	"strconv"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
)

// attrDecl finds the declaration of a schema attribute: the schema's own,
// else its bases', mixins' and, for a rule or mixin, its protocol's.
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
	// A rule's (or mixin's) attributes are its protocol's, as the official
	// SchemaType.get_obj_of_attr falls back to the protocol.
	for p, k := s.protocol, 0; p != nil && k < 1000; p, k = p.parent, k+1 {
		if a := p.declared[name]; a != nil {
			return a, p
		}
	}
	return nil, nil
}

// attrType is the declared type of a schema attribute, any when unknown.
func (r *checker) attrType(s *schemaInfo, name string) (*typ, *syntax.SchemaAttr) {
	a, owner := s.attrDecl(name)
	if a == nil {
		return anyT, nil
	}
	return r.fromSyntax(r.infos[owner.pkg.Path], a.Ty, 0), a
}

// exprType is the type of an expression as far as it is certain.
func (r *checker) exprType(e syntax.Expr, depth int) *typ {
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
func (r *checker) lambdaType(e *syntax.LambdaExpr) *typ {
	t := &typ{kind: tFunc, elem: anyT, fnLambda: e, fnPkg: r.pkg}
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
func (r *checker) builtinResult(id *syntax.Identifier) *typ {
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
func (r *checker) instanceOf(id *syntax.Identifier) *typ {
	if id == nil || r.shadowed(id) {
		return anyT
	}
	if si := r.schemaByIdent(r.pkg, id); si != nil {
		return &typ{kind: tSchema, schema: si, instance: true}
	}
	return anyT
}

// identType types a loaded name: a typed schema attribute, or a global of
// the package assigned once.
func (r *checker) identType(id *syntax.Identifier) *typ {
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
	if len(id.Names) > 1 && !r.shadowed(id) {
		if sym := r.pkg.globals[id.Names[0].Value]; sym != nil && sym.kind == symModule {
			return anyT // a member: the module's own checks judge it
		}
	}
	return r.attrPath(r.nameType(id.Names[0].Value), id, false)
}

// nameType types a single loaded name.
func (r *checker) nameType(first string) *typ {
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
	if sym := r.pkg.globals[first]; sym != nil && sym.kind == symModule {
		name := sym.system
		if sym.module != nil {
			name = sym.module.Path
		}
		if name != "" {
			return &typ{kind: tModule, lit: name}
		}
	}
	return anyT
}

// localBinds is localHas by scope.binds.
func (r *checker) localBinds(name string) bool {
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
func (r *checker) attrPath(t *typ, id *syntax.Identifier, report bool) *typ {
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
				r.report(errkind.Type, id.Pos(), "attribute '%s' not found in '%s'%s", n.Value, s.name, suggestionText(suggestions(n.Value, cands)))
			}
			return anyT
		case tStr, tLitStr:
			// A str's members are its methods.
			if strMethodResults[n.Value] == nil && report {
				r.report(errkind.Type, id.Pos(), "attribute '%s' not found in '%s'", n.Value, t)
			}
			return anyT
		case tNumMul, tBool, tInt, tFloat, tLitBool, tLitInt, tLitFloat, tList, tFunc:
			// The official load_attr finds no member on these.
			if report {
				r.report(errkind.Type, id.Pos(), "attribute '%s' not found in '%s'", n.Value, t)
			}
			return anyT
		default:
			return anyT
		}
	}
	return t
}

// listItemType is the type a list literal's item adds to the element
// type; nil when it is not known.
func (r *checker) listItemType(el syntax.Expr, depth int) *typ {
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
func (r *checker) configType(items []*syntax.ConfigEntry, depth int) *typ {
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
				// The parser makes `a.b = v` `a: {b = v}`.
				for i := len(k.Names) - 1; i >= 1; i-- {
					vt = nestedKey(k.Names[i].Value, k.Names[i].Pos(), vt, vt)
				}
				name := k.Names[0].Value
				switch {
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
					// An instance adds str keys, the index signature's
					// values (any without one) and the schema's own
					// attributes (its mixins' too), each at its declaration.
					ks = append(ks, strT)
					vs = append(vs, r.indexValueType(vt.schema))
					for _, s := range append([]*schemaInfo{vt.schema}, vt.schema.mixins...) {
						for n, decl := range s.declared {
							if t, d := r.attrType(vt.schema, n); d == decl {
								attrs[n], attrPos[n] = t, decl.Pos()
							}
						}
					}
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
// strMethodType is a str method's function type, as the official resolver
// prints it: `(str, int, int) -> int` for count.
func strMethodType(name string) *typ {
	params := strMethods[name]
	f := &typ{kind: tFunc, elems: make([]*typ, len(params)), elem: strMethodResults[name]}
	for i, p := range params {
		f.elems[i] = p.t
		if p.t == nil {
			f.elems[i] = anyT
		}
	}
	if f.elem == nil {
		f.elem = anyT
	}
	return f
}

var strMethodResults = map[string]*typ{
	"startswith": boolT, "endswith": boolT, "isalnum": boolT, "isalpha": boolT, "isdigit": boolT,
	"islower": boolT, "isspace": boolT, "istitle": boolT, "isupper": boolT,
	"count": intT, "find": intT, "index": intT, "rfind": intT, "rindex": intT,
	"capitalize": strT, "format": strT, "join": strT, "lower": strT, "upper": strT, "lstrip": strT,
	"rstrip": strT, "strip": strT, "replace": strT, "title": strT, "removeprefix": strT, "removesuffix": strT,
	"split": {kind: tList, elem: strT}, "chars": {kind: tList, elem: strT}, "rsplit": {kind: tList, elem: strT}, "splitlines": {kind: tList, elem: strT},
}
