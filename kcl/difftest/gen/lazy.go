package gen

import (
	"fmt"
	"math/rand"
	"strings"
)

// Shapes for the lazy scope (eval/lazy.go): names with several setters
// (re-assigned, op=, assigned in nested if branches) read before, between
// and after them, at top level, in schema bodies and in lambdas; reads
// before assignment (a global read by a schema instantiated before the
// global is assigned, forward references in schema bodies); lambdas called
// from schema bodies, in if conditions and branches; schemas instantiated
// in lambdas and comprehensions; parents and mixins setting the child's
// attributes; calls of names still Undefined.
//
// They are written with a random source of their own and names of their own
// (tag z), and what they define is visible only to other lazy shapes: the
// statements the main source writes stay those of the seed without them.

type lazyState struct {
	r     *rand.Rand
	on    bool
	focus bool   // few statements but the shapes
	any   bool   // a shape was written
	tag   string // in fresh names while a shape is written
	n     int    // names handed out to shapes

	vars    []variable
	schemas []*schema
	lambdas []lambda
}

// maybeLazy writes a lazy shape now and then; last makes sure a program
// with the shapes on holds at least one.
func (g *generator) maybeLazy(last bool) {
	if !g.lz.on {
		return
	}
	if g.lz.r.Float64() < 0.25 || (last && !g.lz.any) {
		g.withLazy(g.lazyShape)
		g.lz.any = true
	}
}

// withLazy runs f with the shapes' source, names and definitions, and puts
// the main ones back after.
func (g *generator) withLazy(f func()) {
	r, n, vars, schemas, lambdas, broken := g.r, g.n, g.vars, g.schemas, g.lambdas, g.opts.Broken
	g.r, g.n, g.lz.tag = g.lz.r, g.lz.n, "z"
	// A shape makes many more choices than a statement: at the statements'
	// rate hardly one would be well-formed.
	g.opts.Broken = broken / 4
	g.vars = append(append([]variable(nil), vars...), g.lz.vars...)
	g.schemas = append(append([]*schema(nil), schemas...), g.lz.schemas...)
	g.lambdas = append(append([]lambda(nil), lambdas...), g.lz.lambdas...)
	f()
	g.lz.n = g.n
	g.r, g.n, g.lz.tag, g.vars, g.schemas, g.lambdas, g.opts.Broken = r, n, "", vars, schemas, lambdas, broken
}

func (g *generator) lazyShape() {
	switch g.pick(7) {
	case 0, 1:
		g.lazyTopSetters()
	case 2:
		g.lazyLambda()
	case 3, 4:
		g.lazySchema()
	case 5:
		g.lazyInherit()
	default:
		g.lazyIfCall()
	}
}

// lazyVar makes v visible to the shapes written later (and to this one).
func (g *generator) lazyVar(v variable) {
	g.lz.vars = append(g.lz.vars, v)
	g.vars = append(g.vars, v)
}

var setterKinds = []kind{tInt, tInt, tInt, tStr, tListInt}

// cmpOf is a condition over name, of kind k.
func (g *generator) cmpOf(name string, k kind) string {
	if g.chance(0.3) {
		return g.expr(tBool)
	}
	x := name
	if g.chance(0.9) {
		x = "(" + name + " or " + map[kind]string{tInt: "0", tStr: `""`, tListInt: "[]"}[k] + ")"
	}
	switch k {
	case tInt:
		return fmt.Sprintf("%s %s %d", x, []string{">", "<", "==", "!=", ">="}[g.pick(5)], g.r.Intn(12)-2)
	default:
		return fmt.Sprintf("len(%s) %s %d", x, []string{">", "<", "=="}[g.pick(3)], g.r.Intn(6))
	}
}

// early is a read of name that may come before its value: mostly the bare
// name (Undefined then), which cannot fail.
func (g *generator) early(name string, k kind) string {
	if g.chance(0.85) {
		return name
	}
	return g.using(name, k)
}

// using is an expression of kind k reading name. Mostly it takes
// Undefined for the kind's zero (a read while a name is backtracked may see
// Undefined), and it adds no more than a small int: several setters of
// `x = x * 2` would overflow.
func (g *generator) using(name string, k kind) string {
	if g.chance(0.3) {
		return name
	}
	x := name
	if g.chance(0.9) {
		x = "(" + name + " or " + map[kind]string{tInt: "0", tStr: `""`, tListInt: "[]"}[k] + ")"
	}
	switch k {
	case tInt:
		return fmt.Sprintf("%s %s %d", x, []string{"+", "-"}[g.pick(2)], g.r.Intn(7))
	case tStr:
		return fmt.Sprintf("%s + %s", x, g.literal(tStr))
	default:
		return fmt.Sprintf("%s + [%d]", x, g.pick(10))
	}
}

// grow is `v op= e` for a name of the shapes: a small value, or broken one
// of another kind.
func (g *generator) grow(v variable) string {
	if g.broken() {
		return fmt.Sprintf("%s += %s", v.name, g.expr(g.otherKind(v.k)))
	}
	switch v.k {
	case tInt:
		return fmt.Sprintf("%s %s %d", v.name, []string{"+=", "-="}[g.pick(2)], g.r.Intn(9))
	case tStr:
		return fmt.Sprintf("%s += %s", v.name, g.literal(tStr))
	default:
		return fmt.Sprintf("%s += [%d]", v.name, g.pick(10))
	}
}

// setters writes, at indent ind, the assignments of name (of kind k): the
// first, then re-assignments, op= and if statements (nested ones too)
// assigning it, with reads between them; read writes one read of it (an
// expression) and pre allows a read before the first assignment.
func (g *generator) setters(ind, name string, k kind, pre bool, read func(ind, e string)) {
	if pre && g.chance(0.5) {
		read(ind, g.early(name, k))
	}
	first := g.firstValue(k)
	if g.broken() {
		first = g.breakLocal(k, first)
	}
	g.line("%s%s = %s", ind, name, first)
	saved := g.vars
	g.vars = append(append([]variable(nil), g.vars...), variable{name: name, k: k})
	v := variable{name: name, k: k}
	for i := 1 + g.pick(4); i > 0; i-- {
		switch g.pick(6) {
		case 0:
			read(ind, g.using(name, k))
		case 1:
			kk := k
			if g.broken() {
				kk = g.otherKind(k)
			}
			g.line("%s%s = %s", ind, name, g.using(name, kk))
		case 2:
			g.line("%s%s", ind, g.grow(v))
		default:
			g.setterIf(ind, v, 0, read)
		}
	}
	read(ind, g.using(name, k))
	g.vars = saved
}

// setterIf is an if statement whose branches assign v (or not), perhaps
// with nested if statements and reads.
func (g *generator) setterIf(ind string, v variable, depth int, read func(ind, e string)) {
	branch := func() {
		in := ind + "    "
		wrote := false
		for i := 1 + g.pick(2); i > 0; i-- {
			switch g.pick(5) {
			case 0:
				g.line("%s%s", in, g.grow(v))
			case 1:
				if depth < 2 {
					g.setterIf(in, v, depth+1, read)
					break
				}
				fallthrough
			case 2:
				if g.chance(0.5) {
					read(in, g.using(v.name, v.k))
					break
				}
				fallthrough
			default:
				g.line("%s%s = %s", in, v.name, g.using(v.name, v.k))
			}
			wrote = true
		}
		if !wrote {
			g.line("%s%s = %s", in, v.name, g.expr(v.k))
		}
	}
	g.line("%sif %s:", ind, g.cmpOf(v.name, v.k))
	branch()
	for g.chance(0.35) {
		g.line("%selif %s:", ind, g.cmpOf(v.name, v.k))
		branch()
	}
	if g.chance(0.6) {
		g.line("%selse:", ind)
		branch()
	}
}

// topRead is a read at top level: a new public name (a name assigned in
// one branch only is left unused).
func (g *generator) topRead(k kind) func(ind, e string) {
	return func(ind, e string) {
		name := g.fresh("r")
		g.line("%s%s = %s", ind, name, e)
		if ind == "" {
			g.lazyVar(variable{name: name, k: k})
		}
	}
}

// lazyTopSetters: a private global with several setters, read before,
// between and after them.
func (g *generator) lazyTopSetters() {
	k := setterKinds[g.pick(len(setterKinds))]
	name := g.fresh("_s")
	g.setters("", name, k, true, g.topRead(k))
	if g.broken() && g.chance(0.3) {
		// A public name has one setter: a second is an ImmutableError.
		pub := g.fresh("p")
		g.line("%s = %s", pub, g.literal(k))
		g.line("if %s:", g.expr(tBool))
		g.line("    %s = %s", pub, g.literal(k))
	}
}

// lambdaSetters writes a lambda of int parameters returning int whose body
// has a local with several setters; it reads the globals (and perhaps
// shared, a name a schema has as an attribute too).
func (g *generator) lambdaSetters(ind, name string, np int, shared string) lambda {
	l := lambda{name: name, ret: tInt}
	saved := g.vars
	g.vars = append([]variable(nil), g.vars...)
	var ps []string
	for i := 0; i < np; i++ {
		p := g.fresh("p")
		ps = append(ps, p+": int")
		l.params = append(l.params, tInt)
		g.vars = append(g.vars, variable{name: p, k: tInt})
	}
	if len(ps) == 0 {
		g.line("%s%s = lambda -> int {", ind, name)
	} else {
		g.line("%s%s = lambda %s -> int {", ind, name, strings.Join(ps, ", "))
	}
	in := ind + "    "
	t := g.fresh("t")
	var reads []string
	read := func(ind, e string) {
		r := g.fresh("t")
		g.line("%s%s = %s", ind, r, e)
		if ind == in {
			reads = append(reads, r)
		}
	}
	if shared != "" {
		sh := "(" + shared + " or 0)"
		if g.chance(0.05) {
			sh = shared
		}
		g.line("%s%s = %s + %d", in, g.fresh("t"), sh, g.r.Intn(9))
		shared = sh
	}
	g.setters(in, t, tInt, false, read)
	e := t
	if len(reads) > 0 && g.chance(0.5) {
		e = t + " + " + reads[g.pick(len(reads))]
	}
	if shared != "" && g.chance(0.5) {
		e += " + " + shared
	}
	g.line("%s%s", in, e)
	g.line("%s}", ind)
	g.vars = saved
	return l
}

func (g *generator) call(l lambda) string {
	var as []string
	for _, k := range l.params {
		as = append(as, g.expr(k))
	}
	return fmt.Sprintf("%s(%s)", l.name, strings.Join(as, ", "))
}

// lazyLambda: a top-level lambda with setters in its body, called now and
// then by the expressions of later shapes.
func (g *generator) lazyLambda() {
	l := g.lambdaSetters("", g.fresh("fn"), g.pick(3), "")
	g.lz.lambdas = append(g.lz.lambdas, l)
	g.lambdas = append(g.lambdas, l)
	if g.chance(0.6) {
		r := g.fresh("r")
		g.line("%s = %s", r, g.call(l))
		g.lazyVar(variable{name: r, k: tInt})
	}
}

// lazyIfCall: a name read before a top-level if statement whose condition
// and branches call lambdas and assign it.
func (g *generator) lazyIfCall() {
	var ints []lambda
	for _, l := range g.lambdas {
		if l.ret == tInt {
			ints = append(ints, l)
		}
	}
	if len(ints) == 0 || g.chance(0.3) {
		l := g.lambdaSetters("", g.fresh("fn"), 1+g.pick(2), "")
		g.lz.lambdas = append(g.lz.lambdas, l)
		g.lambdas = append(g.lambdas, l)
		ints = append(ints, l)
	}
	callOne := func() string { return g.call(ints[g.pick(len(ints))]) }
	name := g.fresh("_c")
	r := g.fresh("r")
	g.line("%s = %s", r, g.early(name, tInt))
	g.line("if %s %s %d:", callOne(), []string{">", "<", "!="}[g.pick(3)], g.r.Intn(20))
	g.line("    %s = %s", name, callOne())
	if g.chance(0.5) {
		g.line("elif %s:", g.cmpOf(callOne(), tInt))
		g.line("    %s = %s + %s", name, callOne(), g.small())
	}
	if g.chance(0.8) {
		g.line("else:")
		g.line("    %s = %s", name, g.expr(tInt))
		if g.chance(0.5) {
			g.line("    %s += %s", name, callOne())
		}
	} else {
		g.line("%s = 0", name)
	}
	r2 := g.fresh("r")
	g.line("%s = %s", r2, g.using(name, tInt))
	g.lazyVar(variable{name: r, k: tInt})
	g.lazyVar(variable{name: r2, k: tInt})
}

// lazySchema: a schema whose body has forward references, setters, calls of
// a top-level lambda reading a global it shares a name with, a lambda of its
// own reading attributes assigned after the call, reads of a global
// assigned after an instance is made (in a check too) and perhaps a call of
// a lambda not assigned yet; instances before and after the global, in a
// lambda, a comprehension, a nested schema.
func (g *generator) lazySchema() {
	s := &schema{name: g.fresh("Schema")}
	later := g.fresh("g")       // a global assigned after the first instance
	shared := g.fresh("_w")     // a global and an attribute
	undef := g.fresh("fnLater") // a lambda assigned after the first instance
	useUndef := g.chance(0.2)
	var caller lambda
	hasCaller := g.chance(0.6)
	sharedLater := false // the global is assigned after the first instance
	if hasCaller {
		if sharedLater = g.chance(0.5); !sharedLater {
			g.line("%s = %s", shared, g.small())
		}
		caller = g.lambdaSetters("", g.fresh("fn"), 1, shared)
		g.lz.lambdas = append(g.lz.lambdas, caller)
		g.lambdas = append(g.lambdas, caller)
	}
	if g.chance(0.3) {
		// A top-level read of the later global, before its assignment.
		r := g.fresh("r")
		g.line("%s = %s", r, later)
		g.lazyVar(variable{name: r, k: tInt})
	}
	g.line("schema %s:", s.name)
	saved := g.vars
	g.vars = append([]variable(nil), g.vars...)
	in := g.fresh("in")
	s.attrs = append(s.attrs, attr{name: in, k: tInt, def: g.small()})
	g.line("    %s: int = %s", in, s.attrs[0].def)
	g.vars = append(g.vars, variable{name: in, k: tInt})
	var body []variable // int attributes readable in checks
	if g.chance(0.6) {
		// a = b before b = ...
		a, b := g.fresh("a"), g.fresh("b")
		g.line("    %s = %s", a, g.early(b, tInt))
		g.line("    %s = %s", b, g.expr(tInt))
		body = append(body, variable{name: a, k: tInt}, variable{name: b, k: tInt})
	}
	if g.chance(0.6) {
		// Typed: c: int = d before d: int = ...
		c, d := g.fresh("c"), g.fresh("d")
		dd := fmt.Sprint(g.r.Intn(20))
		g.line("    %s: int = %s", c, g.early(d, tInt))
		g.line("    %s: int = %s", d, dd)
		s.attrs = append(s.attrs, attr{name: c, k: tInt, def: d}, attr{name: d, k: tInt, def: dd})
		body = append(body, variable{name: c, k: tInt}, variable{name: d, k: tInt})
	}
	if hasCaller {
		if g.chance(0.7) {
			g.line("    %s = %s", shared, g.small())
		}
		r := g.fresh("v")
		g.line("    %s = %s", r, g.call(caller))
		body = append(body, variable{name: r, k: tInt})
	}
	if g.chance(0.5) {
		// A lambda of the body reading an attribute assigned after its call.
		h, e := g.fresh("_h"), g.fresh("e")
		rd := "(" + e + " or 0)"
		if g.chance(0.1) {
			rd = e
		}
		g.line("    %s = lambda -> int {", h)
		g.line("        %s + %s", rd, g.small())
		g.line("    }")
		r := g.fresh("v")
		g.line("    %s = %s()", r, h)
		g.line("    %s = %s", e, g.expr(tInt))
	}
	if g.chance(0.5) {
		r := g.fresh("v")
		if g.chance(0.6) {
			g.line("    %s = %s or %s", r, later, g.small())
		} else {
			g.line("    %s = %s", r, later)
		}
	}
	if useUndef {
		r := g.fresh("v")
		if g.chance(0.5) {
			g.line("    %s = %s(1) if %s else 0", r, undef, undef)
		} else {
			g.line("    %s = %s(1)", r, undef)
		}
	}
	// A name of the body with several setters.
	k := setterKinds[g.pick(len(setterKinds))]
	name := g.fresh("_x")
	if g.chance(0.4) {
		name = g.fresh("x")
	}
	g.setters("    ", name, k, true, func(ind, e string) {
		g.line("%s%s = %s", ind, g.fresh("r"), e)
	})
	var checks []string
	if g.chance(0.4) {
		checks = append(checks, fmt.Sprintf("not %s or %s > -1000", later, later))
	}
	if v, ok := pickFrom(g, body, nil); ok && g.chance(0.4) {
		checks = append(checks, fmt.Sprintf("%s >= %d", v.name, g.r.Intn(4)-10))
	}
	g.checkBlock(checks)
	g.line("")
	g.vars = saved
	g.lz.schemas = append(g.lz.schemas, s)
	g.schemas = append(g.schemas, s)

	readC := func(inst string) string {
		a := s.attrs[g.pick(len(s.attrs))]
		return inst + "." + a.name
	}
	i1 := g.fresh("inst")
	g.line("%s = %s", i1, g.instance(s))
	g.line("%s = %s", later, g.expr(tInt))
	g.lazyVar(variable{name: later, k: tInt})
	if sharedLater {
		g.line("%s = %s", shared, g.expr(tInt))
	}
	if useUndef || g.chance(0.2) {
		g.line("%s = lambda x: int -> int {", undef)
		g.line("    x + %s", g.small())
		g.line("}")
	}
	if g.chance(0.5) {
		g.line("%s = %s", g.fresh("inst"), g.instance(s))
	}
	switch g.pick(4) {
	case 0:
		mk := g.fresh("mk")
		p := g.fresh("n")
		g.line("%s = lambda %s: int {", mk, p)
		if g.chance(0.5) {
			g.line("    %s = %s + 1", p, p)
		}
		g.line("    %s {%s = %s}", s.name, in, p)
		g.line("}")
		r := g.fresh("r")
		g.line("%s = %s", r, readC(mk+"("+g.expr(tInt)+")"))
		g.lazyVar(variable{name: r, k: tInt})
	case 1:
		g.line("%s = [%s {%s = i} for i in range(%d)]", g.fresh("insts"), s.name, in, g.pick(4))
	case 2:
		o := &schema{name: g.fresh("Schema")}
		inner := g.fresh("inner")
		g.line("schema %s:", o.name)
		g.line("    %s: %s = %s {}", inner, s.name, s.name)
		r := g.fresh("f")
		g.line("    %s: int = %s", r, readC(inner))
		g.line("    %s = [%s {%s = j}.%s for j in range(2)]", g.fresh("l"), s.name, in, in)
		g.line("")
		o.attrs = []attr{{name: r, k: tInt, def: "1"}}
		g.line("%s = %s {%s = %s {%s = %s}}", g.fresh("inst"), o.name, inner, s.name, in, g.expr(tInt))
	}
}

// lazyInherit: a parent, a mixin and a child assigning and op='ing the same
// attributes and reading them.
func (g *generator) lazyInherit() {
	p := &schema{name: g.fresh("Schema")}
	c := &schema{name: g.fresh("Schema"), parent: p}
	mix := g.fresh("Lazy") + "Mixin"
	a, l := g.fresh("a"), g.fresh("l")
	ad := fmt.Sprint(g.r.Intn(20))
	p.attrs = []attr{{name: a, k: tInt, def: ad}, {name: l, k: tListInt, def: "[1]"}}
	saved := g.vars
	g.vars = append(append([]variable(nil), g.vars...), variable{name: a, k: tInt}, variable{name: l, k: tListInt})
	av, lv := variable{name: a, k: tInt}, variable{name: l, k: tListInt}
	read := func(ind, e string) { g.line("%s%s = %s", ind, g.fresh("r"), e) }
	mixinOnParent := g.chance(0.3)
	mixinBody := func() {
		g.line("mixin %s:", mix)
		for i := 1 + g.pick(3); i > 0; i-- {
			switch g.pick(4) {
			case 0:
				g.line("    %s = %s", a, g.using(a, tInt))
			case 1:
				g.line("    %s", g.grow(av))
			case 2:
				g.line("    %s += [%d]", l, g.pick(10))
			default:
				read("    ", g.using(a, tInt))
			}
		}
		g.line("")
	}
	if mixinOnParent {
		mixinBody()
	}
	g.line("schema %s:", p.name)
	if mixinOnParent {
		g.line("    mixin [%s]", mix)
	}
	g.line("    %s: int = %s", a, ad)
	g.line("    %s: [int] = [1]", l)
	if g.chance(0.5) {
		read("    ", g.using(a, tInt))
	}
	if g.chance(0.5) {
		g.setterIf("    ", av, 1, read)
	}
	if g.chance(0.5) {
		g.line("    %s += [%d]", l, g.pick(10))
	}
	g.line("")
	if !mixinOnParent {
		mixinBody()
	}
	g.line("schema %s(%s):", c.name, p.name)
	if !mixinOnParent {
		g.line("    mixin [%s]", mix)
	}
	if g.chance(0.3) {
		g.line("    %s: int = %s", a, g.small())
	}
	for i := 1 + g.pick(4); i > 0; i-- {
		switch g.pick(5) {
		case 0:
			g.line("    %s = %s", a, g.using(a, tInt))
		case 1:
			g.line("    %s", g.grow(av))
		case 2:
			g.line("    %s", g.grow(lv))
		case 3:
			g.setterIf("    ", av, 1, read)
		default:
			read("    ", g.using(a, tInt)+" + len("+l+")")
		}
	}
	g.line("")
	g.vars = saved
	c.attrs = nil
	g.lz.schemas = append(g.lz.schemas, p, c)
	g.schemas = append(g.schemas, p, c)
	inst := g.fresh("inst")
	g.line("%s = %s", inst, g.instance(c))
	if g.chance(0.5) {
		r := g.fresh("r")
		g.line("%s = %s.%s", r, inst, a)
		g.lazyVar(variable{name: r, k: tInt})
	}
}

func (g *generator) small() string { return fmt.Sprint(g.r.Intn(20)) }
