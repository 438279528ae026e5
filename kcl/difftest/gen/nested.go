package gen

import (
	"fmt"
	"math/rand"
	"strings"
)

// Shapes of nested configuration, as Kubernetes programs are written:
// schemas whose attributes are other schemas, unions of schemas (alone, or
// with a dict or a primitive), lists and dicts of schemas, optional ones, a
// child schema where its parent is wanted; instances written with nested
// config literals, dotted keys, list and dict literals of configs, explicit
// instances, `**` unpacking and `|` merges, typed globals of those types,
// and reads through them. A few are slightly wrong: a key no member
// declares, a value of the wrong type, a required attribute left out, a
// `**` of a number, a list where a schema is wanted.
//
// Like the lazy shapes they use a random source and names of their own
// (tag n), and come after the main statements: a program without them is
// the one the seed gave before they existed.

type nestedState struct {
	r     *rand.Rand
	on    bool
	focus bool // few main statements but the shapes
	n     int
}

// shape is the type of a nested attribute or global.
type shape struct {
	form  int // formSchema...
	a, b  *schema
	prim  kind // the union's primitive member (formUnionPrim)
	child *schema
}

const (
	formSchema    = iota // A
	formUnion            // A | B
	formUnionDict        // A | {str:str}
	formUnionPrim        // A | int
	formList             // [A]
	formDict             // {str:A}
	nForms
)

func (s shape) annotation() string {
	switch s.form {
	case formUnion:
		return s.a.name + " | " + s.b.name
	case formUnionDict:
		return s.a.name + " | {str:str}"
	case formUnionPrim:
		return s.a.name + " | " + s.prim.annotation()
	case formList:
		return "[" + s.a.name + "]"
	case formDict:
		return "{str:" + s.a.name + "}"
	}
	return s.a.name
}

// nestedLeafKinds are the attribute types of the leaf schemas.
var nestedLeafKinds = []kind{tInt, tStr, tBool, tListStr}

// maybeNested writes the nested shapes at the end of the program.
func (g *generator) maybeNested() {
	if !g.nz.on {
		return
	}
	g.aside(g.nz.r, &g.nz.n, "n", g.nestedShapes)
}

// aside runs the shapes of a family that draws from a source of its own, r,
// and numbers its names with its own counter n, under tag. Each shape makes
// many choices: at the statements' rate of broken ones hardly one would be
// well-formed, so it is a third of it.
func (g *generator) aside(r *rand.Rand, n *int, tag string, shapes func()) {
	savedR, savedN, broken := g.r, g.n, g.opts.Broken
	g.r, g.n, g.lz.tag = r, *n, tag
	g.opts.Broken = broken / 3
	shapes()
	*n = g.n
	g.r, g.n, g.lz.tag, g.opts.Broken = savedR, savedN, "", broken
}

func (g *generator) nestedShapes() {
	g.line("")
	var leaves []*schema
	for i, n := 0, 2+g.pick(2); i < n; i++ {
		leaves = append(leaves, g.nestedLeaf(leaves))
	}
	pickLeaf := func() *schema { return leaves[g.pick(len(leaves))] }
	newShape := func() shape {
		s := shape{form: g.pick(nForms), a: pickLeaf(), b: pickLeaf()}
		for s.form == formUnion && s.b == s.a && len(leaves) > 1 {
			s.b = pickLeaf()
		}
		s.prim = []kind{tInt, tStr}[g.pick(2)]
		// A child of a leaf may stand where the leaf is wanted.
		for _, l := range leaves {
			if l.parent == s.a && g.chance(0.5) {
				s.child = l
			}
		}
		return s
	}
	outer := &schema{name: g.fresh("Outer")}
	shapes := map[string]shape{}
	g.line("schema %s:", outer.name)
	for i, n := 0, 1+g.pick(4); i < n; i++ {
		a := attr{name: g.fresh("s"), optional: g.chance(0.3)}
		sh := newShape()
		shapes[a.name] = sh
		if sh.form == formSchema && g.chance(0.25) {
			// A default instance, which a config merges into.
			a.def = sh.a.name + " " + g.nestedConfig(sh.a, "    ")
		}
		g.attrDecl(a, sh.annotation())
		outer.attrs = append(outer.attrs, a)
	}
	if g.chance(0.3) {
		// A check through a nested attribute.
		for _, a := range outer.attrs {
			sh := shapes[a.name]
			if sh.form != formSchema || a.optional {
				continue
			}
			for _, f := range sh.a.allAttrs() {
				if f.k == tInt && !f.optional {
					g.line("    check:")
					g.line("        %s.%s >= 0, \"%s.%s must not be negative\"", a.name, f.name, a.name, f.name)
					break
				}
			}
			break
		}
	}
	g.line("")
	var made []string
	for i, n := 0, 1+g.pick(3); i < n; i++ {
		name := g.fresh("o")
		made = append(made, name)
		g.line("%s = %s {", name, outer.name)
		for _, a := range outer.attrs {
			if a.optional && g.chance(0.4) {
				continue
			}
			sh := shapes[a.name]
			if sh.form == formSchema && g.chance(0.3) {
				// A dotted key for each attribute of the leaf given.
				for _, e := range g.nestedEntries(sh.a) {
					g.line("    %s.%s", a.name, e)
				}
				continue
			}
			g.line("    %s = %s", a.name, g.nestedValue(sh, "    "))
		}
		if g.broken() {
			g.line("    %s = 1", g.fresh("unknown"))
		}
		g.line("}")
		if g.chance(0.5) {
			g.nestedRead(name, outer, shapes)
		}
	}
	if g.chance(0.4) {
		// An instance merged with a config, or unpacked into a new one.
		base := made[g.pick(len(made))]
		a := outer.attrs[g.pick(len(outer.attrs))]
		v := g.nestedValue(shapes[a.name], "")
		if g.chance(0.5) {
			g.line("%s = %s | {%s = %s}", g.fresh("o"), base, a.name, v)
		} else {
			g.line("%s = %s {**%s, %s = %s}", g.fresh("o"), outer.name, base, a.name, v)
		}
	}
	for i, n := 0, g.pick(3); i < n; i++ {
		sh := newShape()
		g.line("%s: %s = %s", g.fresh("g"), sh.annotation(), g.nestedValue(sh, ""))
	}
	if g.chance(0.4) {
		// A dict global unpacked into an instance, and edited as `d {...}`.
		l := pickLeaf()
		d := g.fresh("d")
		g.line("%s = %s", d, g.nestedConfig(l, ""))
		g.line("%s = %s {**%s}", g.fresh("u"), l.name, d)
		if g.chance(0.5) {
			entries := g.nestedEntries(l)
			if len(entries) > 0 {
				g.line("%s = %s {%s}", g.fresh("e"), d, entries[0])
			}
		}
	}
	if g.chance(0.3) {
		// A merge of two configs of one leaf into a typed global.
		l := pickLeaf()
		g.line("%s: %s = %s | %s", g.fresh("m"), l.name, g.nestedConfig(l, ""), g.nestedConfig(l, ""))
	}
}

// nestedLeaf writes a schema of primitive attributes, sometimes a child of
// an earlier one.
func (g *generator) nestedLeaf(earlier []*schema) *schema {
	s := &schema{name: g.fresh("Leaf")}
	if len(earlier) > 0 && g.chance(0.3) {
		s.parent = earlier[g.pick(len(earlier))]
		g.line("schema %s(%s):", s.name, s.parent.name)
	} else {
		g.line("schema %s:", s.name)
	}
	for i, n := 0, 1+g.pick(3); i < n; i++ {
		a := attr{name: g.fresh("f"), k: nestedLeafKinds[g.pick(len(nestedLeafKinds))], optional: g.chance(0.3)}
		if g.chance(0.4) {
			a.def = g.literal(a.k)
		}
		g.attrDecl(a, a.k.annotation())
		s.attrs = append(s.attrs, a)
	}
	if g.chance(0.3) {
		for _, a := range s.allAttrs() {
			if a.k == tInt && !a.optional {
				g.line("    check:")
				g.line("        %s >= 0", a.name)
				break
			}
		}
	}
	g.line("")
	return s
}

// nestedEntries are `name = value` entries for a config of s: every
// required attribute, some of the others.
func (g *generator) nestedEntries(s *schema) []string {
	var out []string
	for _, a := range s.allAttrs() {
		required := !a.optional && a.def == ""
		if !required && !g.chance(0.4) {
			continue
		}
		if required && g.broken() {
			continue // a required attribute left out
		}
		k := a.k
		if g.broken() {
			k = (k + 1) % tSchema // a value of the wrong type
		}
		out = append(out, a.name+" = "+g.literal(k))
	}
	if g.broken() {
		out = append(out, g.fresh("x")+" = "+g.literal(tInt)) // a key s does not declare
	}
	return out
}

// nestedConfig is a config literal of s.
func (g *generator) nestedConfig(s *schema, indent string) string {
	entries := g.nestedEntries(s)
	if g.chance(0.15) {
		if g.broken() {
			entries = append([]string{"**1"}, entries...)
		} else {
			entries = append([]string{"**{}"}, entries...)
		}
	}
	if len(entries) == 0 {
		return "{}"
	}
	if len(entries) <= 2 || g.chance(0.5) {
		return "{" + strings.Join(entries, ", ") + "}"
	}
	inner := indent + "    "
	return "{\n" + inner + strings.Join(entries, "\n"+inner) + "\n" + indent + "}"
}

// nestedInstance is a value of schema s: a config literal, an explicit
// instance, or one of its child.
func (g *generator) nestedInstance(s *schema, child *schema, indent string) string {
	switch {
	case child != nil && g.chance(0.3):
		return child.name + " " + g.nestedConfig(child, indent)
	case g.chance(0.25):
		return s.name + " " + g.nestedConfig(s, indent)
	case g.broken():
		return "[" + g.nestedConfig(s, indent) + "]" // a list where a schema is wanted
	}
	return g.nestedConfig(s, indent)
}

// nestedValue is a value of shape sh.
func (g *generator) nestedValue(sh shape, indent string) string {
	switch sh.form {
	case formUnion:
		if g.chance(0.5) {
			return g.nestedInstance(sh.b, nil, indent)
		}
	case formUnionDict:
		if g.chance(0.4) {
			return fmt.Sprintf("{%s = %s}", g.fresh("k"), g.strLit())
		}
	case formUnionPrim:
		if g.chance(0.4) {
			return g.literal(sh.prim)
		}
	case formList:
		items := make([]string, 1+g.pick(3))
		for i := range items {
			items[i] = g.nestedInstance(sh.a, sh.child, indent)
		}
		if g.chance(0.2) {
			return fmt.Sprintf("[%s for _ in range(%d)]", items[0], g.pick(3))
		}
		return "[" + strings.Join(items, ", ") + "]"
	case formDict:
		items := make([]string, 1+g.pick(2))
		for i := range items {
			items[i] = fmt.Sprintf("%s = %s", g.fresh("k"), g.nestedInstance(sh.a, sh.child, indent))
		}
		return "{" + strings.Join(items, ", ") + "}"
	}
	return g.nestedInstance(sh.a, sh.child, indent)
}

// nestedRead reads an attribute of instance name through its nested
// values; a read of an optional or absent one may fail, as in the program
// a user writes.
func (g *generator) nestedRead(name string, outer *schema, shapes map[string]shape) {
	a := outer.attrs[g.pick(len(outer.attrs))]
	sh := shapes[a.name]
	leafAttrs := sh.a.allAttrs()
	f := leafAttrs[g.pick(len(leafAttrs))].name
	path := name + "." + a.name
	if a.optional {
		path = name + "?." + a.name
	}
	switch sh.form {
	case formList:
		path += "[0]"
	case formDict:
		path = fmt.Sprintf("[v.%s for _, v in %s]", f, path)
		g.line("%s = %s", g.fresh("r"), path)
		return
	case formSchema:
	default:
		return
	}
	g.line("%s = %s.%s", g.fresh("r"), path, f)
}
