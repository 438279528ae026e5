package gen

import (
	"fmt"
	"strings"
)

// Names local to a body. The official resolver types a local of a lambda or
// schema body by its first assignment (widened: `q = 1` makes q int); later
// assignments, annotated locals fed from it and `q op= v` must fit. A
// schema's undeclared body names are not visible in a child's body, its
// declared attributes are. A str has only its methods as members.

// localKinds are the kinds a body's locals are made of.
var localKinds = []kind{tInt, tStr, tListInt, tListStr, tBool, tDictInt, tFloat}

// otherKind is a kind whose values do not fit a name of kind k (an int fits
// a float, so a float is never given one).
func (g *generator) otherKind(k kind) kind {
	for {
		o := localKinds[g.pick(len(localKinds))]
		if o != k && !(k == tFloat && o == tInt) {
			return o
		}
	}
}

func pickFrom(g *generator, vs []variable, ok func(variable) bool) (variable, bool) {
	var c []variable
	for _, v := range vs {
		if ok == nil || ok(v) {
			c = append(c, v)
		}
	}
	if len(c) == 0 {
		return variable{}, false
	}
	return c[g.pick(len(c))], true
}

func augmentable(v variable) bool {
	switch v.k {
	case tInt, tFloat, tStr, tListInt, tListStr:
		return true
	}
	return false
}

// hide drops the variables named name from g.vars (a copy: the caller's
// slice is restored later).
func (g *generator) hide(name string) {
	var out []variable
	for _, v := range g.vars {
		if v.name != name {
			out = append(out, v)
		}
	}
	g.vars = out
}

// firstValue is the first value of a new local of kind k: the official
// resolver types int / int as int, so a float local starts from float().
func (g *generator) firstValue(k kind) string {
	if k == tFloat {
		return "float(" + g.expr(tFloat) + ")"
	}
	return g.expr(k)
}

// breakLocal makes e, an expression of kind k in a body, slightly wrong.
func (g *generator) breakLocal(k kind, e string) string {
	if g.chance(0.5) {
		return g.badMember()
	}
	return g.breakExpr(k, e)
}

// lambdaBody writes the statements of a lambda body at indent ind and its
// value, an expression of kind ret. own are the names the body may assign
// (its parameters); nest allows a nested lambda.
func (g *generator) lambdaBody(ind string, ret kind, own []variable, nest bool) {
	lambdas := len(g.lambdas)
	own = append([]variable(nil), own...)
	n := g.pick(6)
	for i := 0; i < n; i++ {
		g.bodyStmt(ind, &own, nest)
	}
	e := g.expr(ret)
	if g.broken() {
		e = g.breakLocal(ret, e)
	}
	switch {
	case g.broken() && g.chance(0.2):
		// The last statement of a body cannot be an if statement.
		g.line("%sif %s:", ind, g.expr(tBool))
		g.line("%s    %s = %s", ind, g.fresh("t"), e)
	case g.chance(0.1):
		// A body ending in an assignment has the assigned value.
		g.line("%s%s = %s", ind, g.fresh("t"), e)
	case strings.HasPrefix(e, "-"):
		// After a statement a line cannot start with a unary minus.
		g.line("%s(%s)", ind, e)
	default:
		g.line("%s%s", ind, e)
	}
	// A nested lambda is a local of this body.
	g.lambdas = g.lambdas[:lambdas]
}

func (g *generator) newLocal(own *[]variable, name string, k kind) {
	v := variable{name: name, k: k}
	g.vars = append(g.vars, v)
	*own = append(*own, v)
}

// bodyStmt writes one statement of a lambda body.
func (g *generator) bodyStmt(ind string, own *[]variable, nest bool) {
	switch g.pick(9) {
	case 0, 1:
		// A new local, typed by its first assignment.
		k := localKinds[g.pick(len(localKinds))]
		name := g.fresh("t")
		if g.chance(0.2) {
			name = "_" + name
		}
		e := g.firstValue(k)
		if g.broken() {
			e = g.breakLocal(k, e)
		}
		switch {
		case g.chance(0.1):
			// None first leaves the type to the next assignment.
			g.line("%s%s = None", ind, name)
			g.line("%s%s = %s", ind, name, e)
		case g.chance(0.25):
			ann := k.annotation()
			if g.broken() {
				ann = g.otherKind(k).annotation()
			}
			g.line("%s%s: %s = %s", ind, name, ann, e)
		default:
			g.line("%s%s = %s", ind, name, e)
		}
		g.newLocal(own, name, k)
	case 2:
		// A local or a parameter assigned again.
		if v, ok := pickFrom(g, *own, nil); ok {
			k := v.k
			if g.broken() {
				k = g.otherKind(k)
			}
			g.line("%s%s = %s", ind, v.name, g.expr(k))
		}
	case 3:
		if v, ok := pickFrom(g, *own, augmentable); ok {
			g.line("%s%s", ind, g.augment(v))
		}
	case 4:
		// An annotated local fed from a parameter or a local.
		v, ok := pickFrom(g, g.vars, func(v variable) bool { return v.k != tSchema && v.k != tNone })
		if !ok {
			return
		}
		ann := v.k.annotation()
		if g.broken() {
			ann = g.otherKind(v.k).annotation()
		}
		name := g.fresh("t")
		g.line("%s%s: %s = %s", ind, name, ann, v.name)
		g.newLocal(own, name, v.k)
	case 5:
		g.ifLocals(ind, own)
	case 6:
		if nest {
			g.nestedLambda(ind, own)
			return
		}
		fallthrough
	default:
		// A local made by a method of a str.
		k := []kind{tInt, tBool, tStr, tListStr}[g.pick(4)]
		e := g.strMethod(k)
		if g.broken() {
			e = g.badMember()
		}
		name := g.fresh("t")
		g.line("%s%s = %s", ind, name, e)
		g.newLocal(own, name, k)
	}
}

// augment is `v op= e` with e fitting v (or, broken, not).
func (g *generator) augment(v variable) string {
	op, rhs := "+=", ""
	switch {
	case v.k == tInt && g.chance(0.3):
		op, rhs = []string{"-=", "*="}[g.pick(2)], fmt.Sprint(g.pick(5))
	case v.k == tStr && g.chance(0.2):
		op, rhs = "*=", fmt.Sprint(g.pick(3))
	case v.k == tFloat && g.chance(0.3):
		// An int fits a float.
		rhs = g.expr(tInt)
	default:
		rhs = g.expr(v.k)
	}
	if g.broken() {
		op, rhs = "+=", g.expr(g.otherKind(v.k))
	}
	return fmt.Sprintf("%s %s %s", v.name, op, rhs)
}

// ifLocals writes an if statement whose branches assign names of the body:
// ones it has (their kind, or broken another) and perhaps a new one, which
// is defined after the statement when every branch assigns it.
func (g *generator) ifLocals(ind string, own *[]variable) {
	newName, newK := "", localKinds[g.pick(len(localKinds))]
	if g.chance(0.4) {
		newName = g.fresh("t")
	}
	branch := func() {
		wrote := false
		if v, ok := pickFrom(g, *own, nil); ok && g.chance(0.7) {
			k := v.k
			if g.broken() {
				k = g.otherKind(k)
			}
			g.line("%s    %s = %s", ind, v.name, g.expr(k))
			wrote = true
		}
		if newName != "" {
			g.line("%s    %s = %s", ind, newName, g.firstValue(newK))
			wrote = true
		}
		if !wrote {
			g.line("%s    %s = %s", ind, g.fresh("_u"), g.expr(tInt))
		}
	}
	g.line("%sif %s:", ind, g.expr(tBool))
	branch()
	if g.chance(0.3) {
		g.line("%selif %s:", ind, g.expr(tBool))
		branch()
	}
	hasElse := g.chance(0.6)
	if hasElse {
		g.line("%selse:", ind)
		branch()
	}
	// Without an else the name may be unassigned: then it is Undefined.
	if newName != "" && (hasElse || g.chance(0.2)) {
		g.newLocal(own, newName, newK)
	}
}

// nestedLambda writes a lambda local to a body, reading the body's names; it
// may assign one of them first, which makes a local of its own (of any kind).
func (g *generator) nestedLambda(ind string, own *[]variable) {
	ret := []kind{tInt, tStr, tBool, tListInt}[g.pick(4)]
	name := g.fresh("h")
	saved := g.vars
	g.vars = append([]variable(nil), g.vars...)
	var params []variable
	var ps []string
	for i := g.pick(3); i > 0; i-- {
		p := variable{name: g.fresh("y"), k: []kind{tInt, tStr, tListInt}[g.pick(3)]}
		params = append(params, p)
		ps = append(ps, p.name+": "+p.k.annotation())
	}
	switch {
	case len(ps) == 0 && g.chance(0.5):
		g.line("%s%s = lambda {", ind, name)
	case len(ps) == 0:
		g.line("%s%s = lambda -> %s {", ind, name, ret.annotation())
	default:
		g.line("%s%s = lambda %s -> %s {", ind, name, strings.Join(ps, ", "), ret.annotation())
	}
	g.vars = append(g.vars, params...)
	inner := append([]variable(nil), params...)
	if v, ok := pickFrom(g, *own, nil); ok && g.chance(0.3) {
		k := v.k
		if g.chance(0.5) {
			k = g.otherKind(k)
		}
		g.line("%s    %s = %s", ind, v.name, g.firstValue(k))
		g.hide(v.name)
		g.vars = append(g.vars, variable{name: v.name, k: k})
		inner = append(inner, variable{name: v.name, k: k})
	}
	g.lambdaBody(ind+"    ", ret, inner, false)
	g.line("%s}", ind)
	g.vars = saved
	l := lambda{name: name, ret: ret}
	for _, p := range params {
		l.params = append(l.params, p.k)
	}
	g.lambdas = append(g.lambdas, l)
	if g.chance(0.5) {
		var as []string
		for _, p := range l.params {
			as = append(as, g.expr(p))
		}
		t := g.fresh("t")
		g.line("%s%s = %s(%s)", ind, t, name, strings.Join(as, ", "))
		g.newLocal(own, t, ret)
	}
}

// readable is whether the body of a schema may read attribute a: it has a
// value whenever an instance is made.
func readable(a attr) bool { return (a.def != "" || !a.optional) && a.k != tSchema }

// schemaBody writes undeclared names of a schema body (public ones are
// output, private ones not), assigned again, op=, in if statements,
// annotated attributes fed from them, a child's reads of its parents'
// attributes (and, broken, of their undeclared names); it returns check
// expressions over them.
func (g *generator) schemaBody(s *schema) []string {
	saved := g.vars
	g.vars = append([]variable(nil), g.vars...)
	defer func() { g.vars = saved }()
	for _, a := range s.allAttrs() {
		if readable(a) {
			g.vars = append(g.vars, variable{name: a.name, k: a.k})
		}
	}
	var own []variable // names this body may assign: its locals and attributes
	for _, a := range s.attrs {
		own = append(own, variable{name: a.name, k: a.k})
	}
	var inherited []variable // the parents' undeclared names
	for p := s.parent; p != nil; p = p.parent {
		inherited = append(inherited, p.locals...)
	}
	if len(inherited) > 0 && g.chance(0.3) {
		// Assigning a parent's undeclared name makes it the child's.
		v := inherited[g.pick(len(inherited))]
		k := v.k
		if g.broken() {
			k = g.otherKind(k)
		}
		g.line("    %s = %s", v.name, g.firstValue(k))
		g.newLocal(&own, v.name, k)
		s.locals = append(s.locals, variable{name: v.name, k: k})
	}
	for i := 1 + g.pick(3); i > 0; i-- {
		switch g.pick(6) {
		case 0, 1, 2:
			k := localKinds[g.pick(len(localKinds))]
			name := g.fresh("q")
			if g.chance(0.4) {
				name = "_" + name
			}
			e := g.firstValue(k)
			if g.broken() {
				e = g.breakLocal(k, e)
			}
			g.line("    %s = %s", name, e)
			g.newLocal(&own, name, k)
			s.locals = append(s.locals, variable{name: name, k: k})
		case 3:
			if v, ok := pickFrom(g, own, nil); ok {
				k := v.k
				if g.broken() {
					k = g.otherKind(k)
				}
				g.line("    %s = %s", v.name, g.expr(k))
			}
		case 4:
			if v, ok := pickFrom(g, own, augmentable); ok {
				g.line("    %s", g.augment(v))
			}
		default:
			before := len(own)
			g.ifLocals("    ", &own)
			for _, v := range own[before:] {
				s.locals = append(s.locals, v)
			}
		}
	}
	// Annotated attributes fed from the locals, or from a parent's attributes.
	for i := g.pick(3); i > 0; i-- {
		var from []variable
		if s.parent != nil && g.chance(0.5) {
			for _, a := range s.parent.allAttrs() {
				if readable(a) {
					from = append(from, variable{name: a.name, k: a.k})
				}
			}
		} else {
			from = s.locals
		}
		v, ok := pickFrom(g, from, nil)
		if !ok {
			continue
		}
		e := v.name
		if g.chance(0.4) {
			e = g.expr(v.k)
		}
		if len(inherited) > 0 && g.broken() {
			// Not visible in a child.
			e = inherited[g.pick(len(inherited))].name
		}
		ann := v.k.annotation()
		if g.broken() {
			ann = g.otherKind(v.k).annotation()
		}
		a := attr{name: g.fresh("f"), k: v.k, def: e}
		g.line("    %s: %s = %s", a.name, ann, e)
		s.attrs = append(s.attrs, a)
		g.vars = append(g.vars, variable{name: a.name, k: a.k})
	}
	var checks []string
	for i := g.pick(3); i > 0; i-- {
		v, ok := pickFrom(g, s.locals, nil)
		if !ok {
			break
		}
		var c string
		switch v.k {
		case tInt, tFloat:
			c = fmt.Sprintf("%s >= %d", v.name, g.r.Intn(5)-2)
		case tBool:
			c = fmt.Sprintf("%s or not %s", v.name, v.name)
		case tStr, tListInt, tListStr, tDictInt:
			c = fmt.Sprintf("len(%s) >= 0", v.name)
		}
		if g.chance(0.3) {
			c = g.expr(tBool)
		}
		if g.broken() {
			if len(inherited) > 0 && g.chance(0.5) {
				c = fmt.Sprintf("%s == %s", inherited[g.pick(len(inherited))].name, v.name)
			} else {
				c = fmt.Sprintf("%s.%s", v.name, g.fresh("nope"))
			}
		}
		if g.chance(0.3) {
			c += fmt.Sprintf(", \"%s\"", v.name)
		}
		checks = append(checks, c)
	}
	return checks
}

// strOperand is a str to call a method on: mostly a variable (a parameter,
// a local, an attribute), else an expression.
func (g *generator) strOperand() string {
	if v, ok := g.varOf(tStr); ok && g.chance(0.7) {
		return v
	}
	e := g.expr(tStr)
	if strings.HasPrefix(e, "(") || !strings.ContainsAny(e, " +") {
		return e
	}
	return "(" + e + ")"
}

// strMethod is a call of a method of a str that returns kind k.
func (g *generator) strMethod(k kind) string {
	s := g.strOperand()
	lit := func() string {
		return fmt.Sprintf("%q", strings.ReplaceAll(strings.ReplaceAll(g.word(), "\\", ""), "\"", ""))
	}
	switch k {
	case tInt:
		return fmt.Sprintf("%s.%s(%s)", s, []string{"find", "rfind", "count"}[g.pick(3)], lit())
	case tBool:
		if g.chance(0.4) {
			return fmt.Sprintf("%s.%s(%s)", s, []string{"startswith", "endswith"}[g.pick(2)], lit())
		}
		return fmt.Sprintf("%s.%s()", s, []string{"isdigit", "isalpha", "isalnum", "islower", "isupper", "isspace", "istitle"}[g.pick(7)])
	case tListStr:
		switch g.pick(4) {
		case 0:
			return s + ".chars()"
		case 1:
			return s + ".splitlines()"
		case 2:
			return s + ".split()"
		default:
			return fmt.Sprintf("%s.rsplit(%s)", s, lit())
		}
	default:
		switch g.pick(3) {
		case 0:
			return fmt.Sprintf("%s.%s(%s)", s, []string{"removeprefix", "removesuffix"}[g.pick(2)], lit())
		case 1:
			return fmt.Sprintf("%s.replace(%s, %s)", s, lit(), lit())
		default:
			return fmt.Sprintf("%s.%s()", s, []string{"upper", "lower", "title", "capitalize", "strip", "lstrip", "rstrip"}[g.pick(7)])
		}
	}
}

// badMember is a member a str does not have.
func (g *generator) badMember() string {
	s := g.strOperand()
	switch g.pick(4) {
	case 0:
		return s + "." + g.fresh("nope")
	case 1:
		return s + "." + g.fresh("nope") + "()"
	case 2:
		return s + "." + []string{"length", "real", "size", "keys"}[g.pick(4)]
	default:
		return s + "." + []string{"len()", "append(\"x\")", "items()", "upper().nope"}[g.pick(4)]
	}
}
