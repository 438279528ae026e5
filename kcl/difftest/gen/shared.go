package gen

import (
	"fmt"
	"math/rand"
	"strings"
)

// Shapes of functions assigned again and of values shared through schema
// attributes and dicts (issue 30's classes 3 and 4):
//   - a lambda assigned again, with the same or another function type; a
//     function-typed global or schema attribute; calls of them;
//   - an instance held in a dict or a list, bound again as a schema-typed
//     attribute of another instance, then edited through one of the names
//     (attribute assignment, a name bound to the attribute, `+=`, the
//     holder's body), and read through all of them.
//
// They draw from a source of their own and come after the other shapes (tag
// h): a program without them is the one the seed gave before they existed.

type sharedState struct {
	r  *rand.Rand
	on bool
	n  int
}

// maybeShared writes the shared shapes at the end of the program.
func (g *generator) maybeShared() {
	if !g.sh.on {
		return
	}
	g.aside(g.sh.r, &g.sh.n, "h", func() {
		g.line("")
		for i, k := 0, 1+g.pick(3); i < k; i++ {
			if g.chance(0.5) {
				g.functionShape()
			} else {
				g.sharedShape()
			}
		}
	})
}

// funcKinds are the parameter and result types of the function shapes; ""
// is no annotation.
var funcKinds = []string{"int", "str", "any", "[int]", "", ""}

// signature is a lambda's parameter and result annotations.
type signature struct {
	params []string
	result string
}

func (g *generator) signature() signature {
	s := signature{result: funcKinds[g.pick(len(funcKinds))]}
	for i, n := 0, g.pick(3); i < n; i++ {
		s.params = append(s.params, funcKinds[g.pick(len(funcKinds))])
	}
	return s
}

// annotation is the function type of s, as an annotation (`any` where s
// has none).
func (s signature) annotation() string {
	ps := make([]string, len(s.params))
	for i, p := range s.params {
		ps[i] = orAny(p)
	}
	return "(" + strings.Join(ps, ", ") + ") -> " + orAny(s.result)
}

func orAny(t string) string {
	if t == "" {
		return "any"
	}
	return t
}

// valueOf is a literal of annotation t.
func (g *generator) valueOf(t string) string {
	switch t {
	case "int":
		return fmt.Sprint(g.pick(5))
	case "str":
		return []string{`"a"`, `"b"`, `""`}[g.pick(3)]
	case "[int]":
		return []string{"[]", "[1]", "[1, 2]"}[g.pick(3)]
	}
	return []string{"1", `"s"`, "None", "[1]", "True"}[g.pick(5)]
}

// lambda writes a lambda of signature s whose body ends with a value of its
// result type, a parameter's sometimes.
func (g *generator) lambda(s signature) string {
	var b strings.Builder
	b.WriteString("lambda")
	names := make([]string, len(s.params))
	for i, p := range s.params {
		names[i] = fmt.Sprintf("p%d", i)
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(" " + names[i])
		if p != "" {
			b.WriteString(": " + p)
		}
	}
	if s.result != "" {
		b.WriteString(" -> " + s.result)
	}
	body := g.valueOf(s.result)
	for i, p := range s.params {
		if (p == s.result || s.result == "" || s.result == "any") && g.chance(0.5) {
			body = names[i]
		}
	}
	if g.broken() {
		body = g.valueOf("")
	}
	fmt.Fprintf(&b, " { %s }", body)
	return b.String()
}

// callOf is a call of f with arguments for s's parameters.
func (g *generator) callOf(f string, s signature) string {
	args := make([]string, len(s.params))
	for i, p := range s.params {
		args[i] = g.valueOf(p)
	}
	if g.broken() {
		args = append(args, "1")
	}
	return f + "(" + strings.Join(args, ", ") + ")"
}

func (g *generator) functionShape() {
	s1 := g.signature()
	s2 := s1
	if g.chance(0.4) {
		s2 = g.signature()
	}
	switch g.pick(4) {
	case 0:
		// A private global lambda assigned again, then called.
		f := "_" + g.fresh("f")
		g.line("%s = %s", f, g.lambda(s1))
		if g.chance(0.15) {
			g.line("%s = %s", f, g.valueOf(""))
			return
		}
		g.line("%s = %s", f, g.lambda(s2))
		g.line("%s = %s", g.fresh("c"), g.callOf(f, s2))
	case 1:
		// A function-typed global.
		f := g.fresh("f")
		g.line("%s: %s = %s", f, s1.annotation(), g.lambda(s2))
		g.line("%s = %s", g.fresh("c"), g.callOf(f, s2))
	case 2:
		// A schema attribute assigned a lambda twice in the body.
		s := g.fresh("F")
		g.line("schema %s:", s)
		g.line("    f = %s", g.lambda(s1))
		g.line("    f = %s", g.lambda(s2))
		g.line("    v = %s", g.callOf("f", s2))
		g.line("%s = %s {}", g.fresh("i"), s)
	case 3:
		// A function-typed schema attribute, given by the config.
		s := g.fresh("F")
		g.line("schema %s:", s)
		g.line("    f: %s", s1.annotation())
		i := g.fresh("i")
		g.line("%s = %s {f = %s}", i, s, g.lambda(s2))
		g.line("%s = %s", g.fresh("c"), g.callOf(i+".f", s2))
	}
}

func (g *generator) sharedShape() {
	leaf, holder := g.fresh("L"), g.fresh("H")
	g.line("schema %s:", leaf)
	g.line("    v: int = %d", g.pick(3))
	g.line("    w: [int] = []")
	g.line("    d: {str:int} = {}")
	form := g.pick(3) // holder attribute: the leaf, {str:leaf}, [leaf]
	g.line("schema %s:", holder)
	switch form {
	case 0:
		g.line("    leaf: %s", leaf)
	case 1:
		g.line("    leaf: {str:%s}", leaf)
	case 2:
		g.line("    leaf: [%s]", leaf)
	}
	path := []string{".leaf", ".leaf.k", ".leaf[0]"}[form]
	if g.chance(0.3) {
		// The holder's body edits the shared instance.
		g.line("    leaf%s.v %s", strings.TrimPrefix(path, ".leaf"), []string{"= 7", "+= 1"}[g.pick(2)])
	}
	// Where the instance is held first.
	d := "_" + g.fresh("d")
	held := d + ".k"
	var value string
	switch g.pick(3) {
	case 0:
		g.line("%s = {k = %s {v = %d}}", d, leaf, g.pick(5))
	case 1:
		g.line("%s = [%s {v = %d}]", d, leaf, g.pick(5))
		held = d + "[0]"
	default:
		l := "_" + g.fresh("l")
		g.line("%s = %s {}", l, leaf)
		g.line("%s = {k = %s}", d, l)
	}
	switch form {
	case 0:
		value = held
	case 1:
		value = "{k = " + held + "}"
		if g.chance(0.3) {
			value = d // the whole dict as {str:leaf}
			if strings.HasSuffix(held, "[0]") {
				value = "{k = " + held + "}"
			}
		}
	case 2:
		value = "[" + held + "]"
	}
	h := "_" + g.fresh("h")
	g.line("%s = %s {leaf = %s}", h, holder, value)
	// The edits, through one name or another.
	for i, n := 0, 1+g.pick(2); i < n; i++ {
		switch g.pick(5) {
		case 0:
			g.line("%s%s.v = %d", h, path, 10+g.pick(5))
		case 1:
			x := "_" + g.fresh("x")
			g.line("%s = %s%s", x, h, path)
			g.line("%s.v = %d", x, 20+g.pick(5))
		case 2:
			g.line("%s.v = %d", held, 30+g.pick(5))
		case 3:
			g.line("%s%s.w += [%d]", h, path, g.pick(5))
		case 4:
			g.line("%s%s.d.k = %d", h, path, g.pick(5))
		}
	}
	if g.broken() {
		g.line("%s%s.v = \"s\"", h, path)
	}
	g.line("%s = [%s.v, %s%s.v, %s.w, %s%s.d]", g.fresh("out"), held, h, path, held, h, path)
	if g.chance(0.5) {
		g.line("%s = %s", g.fresh("hold"), h)
	}
}
