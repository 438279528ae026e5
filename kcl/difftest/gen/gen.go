// Package gen generates random KCL programs for differential fuzzing: mostly
// well-formed ones (schemas with inheritance, mixins and checks, lambdas,
// comprehensions, unions and config merges, option(), None, string
// interpolation, type annotations, local and system imports) and, with a small
// probability per statement, slightly broken ones (an undefined name, a type
// mismatch, a failing check, an index out of range...).
//
// Generation is typed: every expression is built for a type from literals,
// variables of that type already defined and operations returning it, so that
// a well-formed program is well-formed for the official engine too. The same
// seed gives the same program.
package gen

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
)

// Program is one generated program: files relative to the program root (the
// entry is main.k) and top-level arguments (-D name=value, value as JSON).
type Program struct {
	Files map[string]string
	Args  []Arg
	// Lazy is whether the program holds the lazy-scope shapes (lazy.go).
	Lazy bool
	// Nested is whether it holds the nested-configuration shapes (nested.go).
	Nested bool
	// Shared is whether it holds the shapes of shared.go.
	Shared bool
}

// Arg is one -D argument; Value is JSON.
type Arg struct{ Name, Value string }

// Source is every file of the program, main.k first, for a report.
func (p *Program) Source() string {
	var b strings.Builder
	names := make([]string, 0, len(p.Files))
	for n := range p.Files {
		if n != "main.k" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	names = append([]string{"main.k"}, names...)
	for _, n := range names {
		fmt.Fprintf(&b, "# --- %s\n%s", n, p.Files[n])
	}
	for _, a := range p.Args {
		fmt.Fprintf(&b, "# -D %s=%s\n", a.Name, a.Value)
	}
	return b.String()
}

// Options tune generation.
type Options struct {
	// Broken is the probability that a statement is made slightly wrong.
	Broken float64
	// Lazy is the probability that a program also holds the lazy-scope
	// shapes of lazy.go; 0 gives the programs of the generator before them.
	Lazy float64
	// Nested is the probability that a program ends with the shapes of
	// nested.go; 0 gives the programs of the generator before them.
	Nested float64
	// Shared is the probability that a program ends with the shapes of
	// shared.go (functions assigned again, values shared through schema
	// attributes and dicts); 0 gives the programs before them.
	Shared float64
}

// kind is a KCL type the generator builds values of.
type kind int

const (
	tInt kind = iota
	tFloat
	tStr
	tBool
	tListInt
	tListStr
	tDictInt // {str:int}
	tSchema  // an instance of one of the generated schemas
	tNone
	nKinds
)

func (k kind) annotation() string {
	switch k {
	case tInt:
		return "int"
	case tFloat:
		return "float"
	case tStr:
		return "str"
	case tBool:
		return "bool"
	case tListInt:
		return "[int]"
	case tListStr:
		return "[str]"
	case tDictInt:
		return "{str:int}"
	}
	return "any"
}

type variable struct {
	name   string
	k      kind
	schema *schema // for tSchema
}

type attr struct {
	name     string
	k        kind
	optional bool
	def      string // default expression, "" for none
}

type schema struct {
	name   string
	parent *schema
	mixin  string // mixin name or ""
	mixAt  []attr // attributes the mixin sets
	attrs  []attr
	check  bool
	pkg    string // "" or the package alias it lives in
	// locals are the names the body assigns without declaring them: not
	// attributes of the schema's type, not visible in a child's body.
	locals []variable
}

// allAttrs is the attributes of s with its parents', parents first.
func (s *schema) allAttrs() []attr {
	var out []attr
	if s.parent != nil {
		out = s.parent.allAttrs()
	}
	return append(out, s.attrs...)
}

func (s *schema) ref() string {
	if s.pkg != "" {
		return s.pkg + "." + s.name
	}
	return s.name
}

type lambda struct {
	name   string
	params []kind
	ret    kind
}

type generator struct {
	r       *rand.Rand
	opts    Options
	b       strings.Builder
	vars    []variable
	schemas []*schema
	lambdas []lambda
	n       int // names handed out
	imports map[string]bool
	args    []Arg
	files   map[string]string
	depth   int
	lz      lazyState
	nz      nestedState
	sh      sharedState
}

// New generates the program of one seed.
func New(seed int64, opts Options) *Program {
	g := &generator{r: rand.New(rand.NewSource(seed)), opts: opts, imports: map[string]bool{}, files: map[string]string{}}
	// The lazy shapes draw from a source of their own, so that a program
	// without them is the one the seed gave before they existed.
	g.lz.r = rand.New(rand.NewSource(seed ^ 0x1a2b3c4d))
	g.lz.on = opts.Lazy > 0 && g.lz.r.Float64() < opts.Lazy
	// Most of them keep only a few of the other statements: each may fail.
	g.lz.focus = g.lz.on && g.lz.r.Float64() < 0.7
	g.nz.r = rand.New(rand.NewSource(seed ^ 0x5e7c0f19))
	g.nz.on = opts.Nested > 0 && g.nz.r.Float64() < opts.Nested
	g.nz.focus = g.nz.on && g.nz.r.Float64() < 0.7
	g.sh.r = rand.New(rand.NewSource(seed ^ 0x3c5a96e1))
	g.sh.on = opts.Shared > 0 && g.sh.r.Float64() < opts.Shared
	return g.program()
}

func (g *generator) chance(p float64) bool { return g.r.Float64() < p }
func (g *generator) pick(n int) int        { return g.r.Intn(n) }
func (g *generator) broken() bool          { return g.chance(g.opts.Broken) }

func (g *generator) fresh(prefix string) string {
	g.n++
	return fmt.Sprintf("%s%s%d", prefix, g.lz.tag, g.n)
}

func (g *generator) line(format string, args ...any) {
	fmt.Fprintf(&g.b, format, args...)
	g.b.WriteByte('\n')
}

func (g *generator) program() *Program {
	if g.chance(0.3) {
		g.localPackage()
	}
	var body strings.Builder
	saved := g.b
	g.b = strings.Builder{}
	nSchemas := g.pick(4)
	for i := 0; i < nSchemas; i++ {
		g.schemaDef()
	}
	nLambdas := g.pick(3)
	for i := 0; i < nLambdas; i++ {
		g.lambdaDef()
	}
	nStmts := 3 + g.pick(10)
	for i := 0; i < nStmts; i++ {
		g.maybeLazy(false)
		if (g.lz.focus || g.nz.focus) && i >= 2 {
			continue
		}
		g.stmt()
	}
	g.maybeLazy(true)
	g.maybeNested()
	g.maybeShared()
	body.WriteString(g.b.String())
	g.b = saved
	var head strings.Builder
	imps := make([]string, 0, len(g.imports))
	for m := range g.imports {
		imps = append(imps, m)
	}
	sort.Strings(imps)
	for _, m := range imps {
		fmt.Fprintf(&head, "import %s\n", m)
	}
	if len(imps) > 0 {
		head.WriteByte('\n')
	}
	g.files["main.k"] = head.String() + body.String()
	return &Program{Files: g.files, Args: g.args, Lazy: g.lz.on, Nested: g.nz.on, Shared: g.sh.on}
}

// localPackage writes pkg/lib.k with a schema, a value and a lambda the main
// file can use through `import pkg`.
func (g *generator) localPackage() {
	saved := g.b
	g.b = strings.Builder{}
	s := &schema{name: "Base", pkg: "pkg"}
	s.attrs = []attr{{name: "name", k: tStr}, {name: "replicas", k: tInt, def: "1"}, {name: "labels", k: tDictInt, optional: true}}
	g.line("schema Base:")
	g.line("    name: str")
	g.line("    replicas: int = 1")
	g.line("    labels?: {str:int}")
	g.line("    check:")
	g.line("        replicas >= 0, \"replicas must not be negative\"")
	g.line("")
	v := g.r.Intn(100)
	g.line("version = %d", v)
	g.line("prefix = \"v%d-\"", v)
	g.line("double = lambda x: int -> int {")
	g.line("    x * 2")
	g.line("}")
	g.files["pkg/lib.k"] = g.b.String()
	g.b = saved
	g.imports["pkg"] = true
	g.schemas = append(g.schemas, s)
	g.vars = append(g.vars, variable{name: "pkg.version", k: tInt}, variable{name: "pkg.prefix", k: tStr})
	g.lambdas = append(g.lambdas, lambda{name: "pkg.double", params: []kind{tInt}, ret: tInt})
}

var attrKinds = []kind{tInt, tStr, tBool, tListStr, tDictInt, tFloat}

func (g *generator) schemaDef() {
	s := &schema{name: g.fresh("Schema")}
	if len(g.schemas) > 0 && g.chance(0.4) {
		s.parent = g.schemas[g.pick(len(g.schemas))]
	}
	if g.chance(0.25) {
		s.mixin = g.fresh("Extra") + "Mixin"
		s.mixAt = []attr{{name: g.fresh("m"), k: tStr, def: g.strLit()}}
		g.line("mixin %s:", s.mixin)
		g.line("    %s: str = %s", s.mixAt[0].name, s.mixAt[0].def)
		g.line("")
	}
	if s.parent != nil {
		g.line("schema %s(%s):", s.name, s.parent.ref())
	} else {
		g.line("schema %s:", s.name)
	}
	if g.chance(0.15) {
		g.line("    \"\"\"%s is generated.\"\"\"", s.name)
	}
	if s.mixin != "" {
		g.line("    mixin [%s]", s.mixin)
	}
	n := 1 + g.pick(4)
	for i := 0; i < n; i++ {
		a := attr{name: g.fresh("f"), k: attrKinds[g.pick(len(attrKinds))]}
		a.optional = g.chance(0.3)
		if g.chance(0.6) {
			a.def = g.literal(a.k)
		}
		if g.broken() && a.def != "" {
			// A default of the wrong type.
			a.def = g.literal((a.k + 1) % tSchema)
		}
		g.attrDecl(a, a.k.annotation())
		s.attrs = append(s.attrs, a)
	}
	var checks []string
	if g.chance(0.5) {
		checks = g.schemaBody(s)
	}
	if g.chance(0.4) {
		var ints []attr
		for _, a := range s.allAttrs() {
			if a.k == tInt && (a.def != "" || !a.optional) {
				ints = append(ints, a)
			}
		}
		if len(ints) > 0 {
			a := ints[g.pick(len(ints))]
			s.check = true
			lim := g.r.Intn(5) - 1
			checks = append(checks, fmt.Sprintf("%s >= %d, \"%s must be at least %d\"", a.name, lim, a.name, lim))
		}
	}
	g.checkBlock(checks)
	g.line("")
	g.schemas = append(g.schemas, s)
}

// attrDecl writes the declaration of schema attribute a of the given type.
func (g *generator) attrDecl(a attr, annotation string) {
	opt := ""
	if a.optional {
		opt = "?"
	}
	if a.def != "" {
		g.line("    %s%s: %s = %s", a.name, opt, annotation, a.def)
	} else {
		g.line("    %s%s: %s", a.name, opt, annotation)
	}
}

// checkBlock writes a schema's check block, if it has checks.
func (g *generator) checkBlock(checks []string) {
	if len(checks) == 0 {
		return
	}
	g.line("")
	g.line("    check:")
	for _, c := range checks {
		g.line("        %s", c)
	}
}

func (g *generator) lambdaDef() {
	l := lambda{name: g.fresh("fn"), ret: []kind{tInt, tStr, tListInt, tBool}[g.pick(4)]}
	np := 1 + g.pick(2)
	var ps []string
	saved := g.vars
	for i := 0; i < np; i++ {
		k := []kind{tInt, tStr, tListInt}[g.pick(3)]
		p := g.fresh("p")
		l.params = append(l.params, k)
		ps = append(ps, p+": "+k.annotation())
		g.vars = append(g.vars, variable{name: p, k: k})
	}
	g.line("%s = lambda %s -> %s {", l.name, strings.Join(ps, ", "), l.ret.annotation())
	g.lambdaBody("    ", l.ret, g.vars[len(saved):], true)
	g.line("}")
	g.vars = saved
	g.lambdas = append(g.lambdas, l)
}

// stmt writes one top-level statement.
func (g *generator) stmt() {
	switch g.pick(12) {
	case 0:
		g.ifStmt()
	case 1:
		g.optionStmt()
	case 2:
		if len(g.schemas) > 0 {
			g.instanceStmt()
			return
		}
		g.assign()
	case 3:
		g.mergeStmt()
	case 4:
		g.moduleStmt()
	case 5:
		if g.chance(0.1) {
			g.line("assert %s, \"assertion %d\"", g.expr(tBool), g.n)
			return
		}
		g.assign()
	case 6:
		if g.chance(0.2) {
			g.line("print(%s)", g.expr(tStr))
			return
		}
		g.assign()
	default:
		g.assign()
	}
}

func (g *generator) assign() {
	k := kind(g.pick(int(tSchema)))
	if g.chance(0.05) {
		k = tNone
	}
	name := g.fresh("v")
	if g.chance(0.15) {
		name = "_" + name
	}
	e := g.expr(k)
	if g.broken() {
		e = g.breakExpr(k, e)
	}
	if g.chance(0.3) && k != tNone {
		ann := k.annotation()
		if g.broken() {
			ann = ((k + 2) % tSchema).annotation()
		}
		g.line("%s: %s = %s", name, ann, e)
	} else {
		g.line("%s = %s", name, e)
	}
	if k != tNone {
		g.vars = append(g.vars, variable{name: name, k: k})
	}
	if g.broken() && g.chance(0.3) {
		// Assigning a top-level name twice is an ImmutableError.
		g.line("%s = %s", name, g.expr(k))
	}
}

// breakExpr makes e slightly wrong.
func (g *generator) breakExpr(k kind, e string) string {
	switch g.pick(11) {
	case 10:
		return g.badMember()
	case 8:
		return []string{"1Ki", "2Mi", "3K", "1G"}[g.pick(4)]
	case 9:
		return "1_000.5"
	case 0:
		return g.fresh("undefined_")
	case 1:
		return fmt.Sprintf("%s + %s", g.literal(tStr), g.literal(tInt))
	case 2:
		return fmt.Sprintf("[1, 2][%d]", 2+g.pick(3))
	case 3:
		return fmt.Sprintf("{\"a\": 1}[%s]", g.literal(tStr))
	case 4:
		return fmt.Sprintf("None.%s", g.fresh("x"))
	case 5:
		return fmt.Sprintf("[x for x in %s]", []string{"None", "1", "option(\"absent\")"}[g.pick(3)])
	case 6:
		return fmt.Sprintf("%s / 0", g.literal(tInt))
	default:
		return e + " +"
	}
}

func (g *generator) ifStmt() {
	// Assigning one public name in two branches is an ImmutableError: branches
	// assign a private name, exported after the statement.
	name := "_" + g.fresh("v")
	k := kind(g.pick(int(tSchema)))
	g.line("if %s:", g.expr(tBool))
	g.line("    %s = %s", name, g.firstValue(k))
	if g.chance(0.5) {
		g.line("elif %s:", g.expr(tBool))
		g.line("    %s = %s", name, g.expr(k))
	}
	if g.chance(0.7) {
		g.line("else:")
		g.line("    %s = %s", name, g.expr(k))
	} else {
		return // name may be undefined: do not reuse it
	}
	pub := g.fresh("v")
	g.line("%s = %s", pub, name)
	g.vars = append(g.vars, variable{name: pub, k: k})
}

func (g *generator) optionStmt() {
	name := g.fresh("opt")
	key := g.fresh("key")
	k := []kind{tInt, tStr, tBool, tListInt}[g.pick(4)]
	given := g.chance(0.6)
	if given {
		g.args = append(g.args, Arg{Name: key, Value: g.jsonValue(k)})
	}
	switch g.pick(4) {
	case 0:
		g.line("%s = option(\"%s\")", name, key)
		if !given {
			return // None
		}
	case 1:
		g.line("%s = option(\"%s\", default=%s)", name, key, g.literal(k))
	case 2:
		if k == tListInt {
			k = tInt
			if given {
				g.args[len(g.args)-1].Value = g.jsonValue(k)
			}
		}
		g.line("%s = option(\"%s\", type=\"%s\", default=%s)", name, key, k.annotation(), g.literal(k))
	default:
		if g.chance(0.5) {
			g.line("%s = option(\"%s\", required=True)", name, key)
			if !given {
				return
			}
		} else {
			g.line("%s = option(\"%s\") or %s", name, key, g.literal(k))
		}
	}
	g.vars = append(g.vars, variable{name: name, k: k})
}

func (g *generator) jsonValue(k kind) string {
	switch k {
	case tInt:
		return fmt.Sprint(g.r.Intn(1000) - 100)
	case tStr:
		return fmt.Sprintf("%q", g.word())
	case tBool:
		return []string{"true", "false"}[g.pick(2)]
	default:
		return fmt.Sprintf("[%d, %d]", g.r.Intn(10), g.r.Intn(10))
	}
}

func (g *generator) instanceStmt() {
	s := g.schemas[g.pick(len(g.schemas))]
	name := g.fresh("inst")
	g.line("%s = %s", name, g.instance(s))
	g.vars = append(g.vars, variable{name: name, k: tSchema, schema: s})
	if g.chance(0.5) {
		// Read an attribute back.
		as := s.allAttrs()
		a := as[g.pick(len(as))]
		if !a.optional || a.def != "" {
			v := g.fresh("v")
			g.line("%s = %s.%s", v, name, a.name)
			if a.k != tSchema {
				g.vars = append(g.vars, variable{name: v, k: a.k})
			}
		} else {
			g.line("%s = %s?.%s", g.fresh("v"), name, a.name)
		}
	}
}

// instance is a schema instantiation with every required attribute set (but
// one, when broken) and some optional ones.
func (g *generator) instance(s *schema) string {
	var entries []string
	for _, a := range s.allAttrs() {
		need := a.def == "" && !a.optional
		if need && g.broken() {
			continue
		}
		if need || g.chance(0.4) {
			v := g.expr(a.k)
			if a.k == tInt && s.check && g.chance(0.3) {
				v = fmt.Sprint(-g.r.Intn(4)) // may fail the check
			}
			op := "="
			if (a.k == tDictInt || a.k == tListStr) && g.chance(0.3) {
				op = []string{":", "+="}[g.pick(2)]
				if a.k == tDictInt {
					op = ":"
				}
				if op == "+=" && (a.def == "" || strings.Contains(v, " if ")) {
					// The official resolver types an if-expression of list
					// literals as a union, which += does not take.
					op = "="
				}
			}
			entries = append(entries, fmt.Sprintf("%s %s %s", a.name, op, v))
		}
	}
	if g.broken() && g.chance(0.3) {
		entries = append(entries, fmt.Sprintf("%s = 1", g.fresh("unknown")))
	}
	sep := ", "
	if g.chance(0.3) && len(entries) > 0 {
		return s.ref() + " {\n    " + strings.Join(entries, "\n    ") + "\n}"
	}
	return s.ref() + " {" + strings.Join(entries, sep) + "}"
}

// mergeStmt writes a config and merges into it with | or a config block.
func (g *generator) mergeStmt() {
	base := g.fresh("cfg")
	g.line("%s = {", base)
	g.line("    name = %s", g.literal(tStr))
	g.line("    spec: {replicas = %s, ports = [%s]}", g.expr(tInt), g.literal(tInt))
	g.line("    labels = {app = %s}", g.literal(tStr))
	g.line("}")
	name := g.fresh("merged")
	switch g.pick(4) {
	case 0:
		g.line("%s = %s | {spec: {replicas = %s}}", name, base, g.literal(tInt))
	case 1:
		g.line("%s = %s {", name, base)
		g.line("    spec: {ports += [%s]}", g.literal(tInt))
		g.line("    labels: {tier = %s}", g.literal(tStr))
		g.line("}")
	case 2:
		g.line("%s = %s {labels = {only = %s}}", name, base, g.literal(tStr))
	default:
		g.line("%s = {**%s, extra = %s}", name, base, g.expr(tListInt))
	}
	if g.broken() && g.chance(0.5) {
		// Conflicting values for one key with ':' are a conflict error.
		g.line("%s = {a: 1} | {a: \"x\"}", g.fresh("conflict"))
		g.line("%s = {a: 1, a: 2}", g.fresh("conflict"))
	}
}

func (g *generator) moduleStmt() {
	name := g.fresh("m")
	if g.chance(0.35) {
		g.line("%s = %s", name, g.edgeCase())
		return
	}
	switch g.pick(8) {
	case 0:
		g.imports["math"] = true
		e := []string{"math.floor(%s)", "math.ceil(%s)", "math.sqrt(%s)", "math.log(%s + 1.5)", "math.pow(%s, 2)", "math.exp(%s / 10.0)"}[g.pick(6)]
		g.line("%s = %s", name, fmt.Sprintf(e, g.expr(tFloat)))
	case 1:
		g.imports["json"] = true
		if g.chance(0.5) {
			g.line("%s = json.encode(%s)", name, g.expr(kind(g.pick(int(tSchema)))))
		} else {
			g.line("%s = json.decode(%q)", name, `{"a": [1, 2.5, "x", null, true], "b": {"c": "d"}}`)
		}
	case 2:
		g.imports["yaml"] = true
		if g.chance(0.5) {
			g.line("%s = yaml.encode(%s)", name, g.expr(kind(g.pick(int(tSchema)))))
		} else {
			g.line("%s = yaml.decode(%q)", name, "a: 1\nb: [x, 'y', 2.5]\nc: {d: null}\n")
		}
	case 3:
		g.imports["base64"] = true
		g.line("%s = base64.encode(%s)", name, g.expr(tStr))
		g.line("%s = base64.decode(%s)", g.fresh("m"), name)
	case 4:
		g.imports["regex"] = true
		pat := []string{`^[a-z]+\d*$`, `(\w+)-(\d+)`, `v\d+`, `[aeiou]`}[g.pick(4)]
		fn := []string{"match", "findall", "search", "split"}[g.pick(4)]
		g.line("%s = regex.%s(%s, %q)", name, fn, g.expr(tStr), pat)
	case 5:
		g.imports["crypto"] = true
		fn := []string{"md5", "sha1", "sha256", "sha512", "sha384", "sha224", "blake3"}[g.pick(7)]
		g.line("%s = crypto.%s(%s)", name, fn, g.expr(tStr))
	case 6:
		g.imports["units"] = true
		fn := []string{"to_Ki", "to_Mi", "to_Gi", "to_K", "to_M", "to_m"}[g.pick(6)]
		g.line("%s = units.%s(%d)", name, fn, g.r.Intn(1<<30))
	default:
		g.line("%s = %s", name, g.builtinCall())
	}
}

// edgeCase is an expression at the edges of the runtime's value, text and
// module semantics: malformed decoder input, fancy regular expressions, odd
// floats, int powers and shifts, format specs, mixed sorts.
func (g *generator) edgeCase() string {
	pick := func(xs ...string) string { return xs[g.pick(len(xs))] }
	switch g.pick(12) {
	case 0:
		g.imports["base64"] = true
		return fmt.Sprintf("base64.decode(%q)", pick("aGVsbG8", "aGVsbG8=", "aGVsbG8==", "YQ", "YR==", "a=bc", "====", "4py=", "/w==", "8J+Z", "", "not base64!", "aGk=\n", "YWJj"))
	case 1:
		g.imports["json"] = true
		return fmt.Sprintf("json.decode(%s)", pick(`'{"a": 1,}'`, `'[1, 2'`, `'{"a" 1}'`, `'tru'`, `'01'`, `'1.5e3'`, `'-0'`, `'[1, [2, {"x": null}]]'`, `'"\u00e9"'`, `'{"k": 1e400}'`, `'12345678901234567890'`, `'1 2'`, `''`, `'{"a": {"b": [true, false]}}'`))
	case 2:
		g.imports["regex"] = true
		pat := pick(`^(?!-)[a-z0-9-]+(?<!-)$`, `(\w)\1`, `(?P<x>\w+)-(?P=x)`, `(?<=v)\d+`, `\w+`, `^\d+$`, `[\s,]+`, `(?i)^ABC`, `a(?=b)`, `(\d+)\.(\d+)`)
		fn := pick("match", "findall", "search", "split")
		return fmt.Sprintf("regex.%s(%q, %q)", fn, pick("abc-abc", "x-7", "v12 v3", "é1 ü2", "a,b c", "aabbcc", "ABCdef", "1.25 and 3.5", "-bad-", "日本 語"), pat)
	case 3:
		g.imports["regex"] = true
		// The replacement is written as is: `\${` keeps ${n} from being an interpolation.
		return fmt.Sprintf("regex.replace(%q, %q, \"%s\")", pick("a1b22c333", "x-y-z", "éa1"), pick(`(\d+)`, `(?<=[a-z])\d`, `(?P<n>\d)`, `-`), pick("<$1>", "#", `\${n}!`, "$$"))
	case 4:
		return pick("str", "float", "int") + "(" + pick("1.7976931348623157e308 * 2.0", "1e308 / 1e-10", "0.1 + 0.2", "1e16", "1e-7", "123456789.125", "2.5e-8 * 3", "-0.0", "5e-324", "1e21 + 1", "float(1 << 53) + 1") + ")"
	case 5:
		return fmt.Sprintf("%s ** %s", pick("2", "3", "-3", "0", "1", "-1", "10", "7", "2.0", "0.5"), pick("-1", "-2", "0", "10", "63", "64", "200", "0.5", "-0.5"))
	case 6:
		return fmt.Sprintf("%s %s %s", pick("1", "-1", "18", "-8", "0x7fffffffffffffff", "3"), pick("<<", ">>"), pick("0", "1", "37", "62", "63", "64", "70", "-1"))
	case 7:
		return fmt.Sprintf("%q.format(%s)", pick("{:5}|", "{:>8.3f}", "{:,}", "{:x}", "{:e}", "{:g}", "{:%}", "{:+d}", "{!r}", "{:05d}", "{:^7}", "{}"), pick("42", "3.14159", "1234567", "0.00001", "-7", `"ab"`, "True", "None", "[1]", "255"))
	case 8:
		return fmt.Sprintf("sorted(%s)", pick("[3, 1.5, 2]", `["b", "A", "a"]`, `[1, "a"]`, "[True, False]", "[[2], [1]]", "[None, 1]", `{"b": 1, "a": 2}`, `"hello"`, "[2, 1, 3.0, -1]"))
	case 9:
		return fmt.Sprintf("int(%q, %d)", pick("17", "-17", "1Ki", "ff", "0x1f", "101", "z", "10", "1e3", "2Mi"), []int{2, 8, 10, 16, 36}[g.pick(5)])
	case 10:
		g.imports["yaml"] = true
		return fmt.Sprintf("yaml.decode(%q)", pick("a: 1\nb: [x, 'y']\n", "- 1\n- 1.5\n- '1.5'\n", "a: yes\nb: on\nc: ~\n", "k: 012\nh: 0x1F\ne: 1e3\n", "a: |\n  multi\n  line\n", "a: !!str 1\n", "{a: 1, b: [1, 2]}", "a: 2001-12-14\n", "x: .inf\ny: -.nan\n", ""))
	default:
		g.imports["json"] = true
		g.imports["yaml"] = true
		v := pick("[0.1, 1.0, 1e21, 1e-7, 100.0, -0.0]", `{"s": "multi\nline", "q": "true", "n": "123", "e": "", "u": "über"}`, `{"b": 1, "a": {"d": None, "c": [1, "x"]}}`, `["- x", "key: v", "#c", "'q'", "\"dq\"", "a	b"]`)
		return fmt.Sprintf("%s.encode(%s%s)", pick("json", "yaml"), v, pick("", ", sort_keys=True", ", ignore_none=True"))
	}
}

func (g *generator) builtinCall() string {
	n := g.r.Intn(300)
	switch g.pick(10) {
	case 0:
		return fmt.Sprintf("int(\"%d\")", n)
	case 1:
		return fmt.Sprintf("float(\"%d.25\")", n)
	case 2:
		return fmt.Sprintf("str(%s)", g.expr(kind(g.pick(int(tSchema)))))
	case 3:
		return fmt.Sprintf("len(%s)", g.expr(tListStr))
	case 4:
		return fmt.Sprintf("sorted(%s)", g.expr(tListInt))
	case 5:
		return fmt.Sprintf("max(%s, %s)", g.expr(tInt), g.expr(tInt))
	case 6:
		return fmt.Sprintf("sum(%s)", g.expr(tListInt))
	case 7:
		return fmt.Sprintf("round(%s, %d)", g.expr(tFloat), g.pick(4))
	case 8:
		return fmt.Sprintf("typeof(%s)", g.expr(kind(g.pick(int(tSchema)))))
	default:
		return fmt.Sprintf("%s(%d)", []string{"hex", "oct", "bin", "abs", "bool"}[g.pick(5)], n-150)
	}
}

// varOf picks a defined variable of kind k.
func (g *generator) varOf(k kind) (string, bool) {
	var c []string
	for _, v := range g.vars {
		if v.k == k {
			c = append(c, v.name)
		}
	}
	if len(c) == 0 {
		return "", false
	}
	return c[g.pick(len(c))], true
}

// expr is an expression of kind k.
func (g *generator) expr(k kind) string {
	g.depth++
	defer func() { g.depth-- }()
	if g.depth > 3 || g.chance(0.3) {
		if v, ok := g.varOf(k); ok && g.chance(0.6) {
			return v
		}
		return g.literal(k)
	}
	if v, ok := g.varOf(k); ok && g.chance(0.3) {
		return v
	}
	for _, l := range g.lambdas {
		if l.ret == k && g.chance(0.2) {
			var as []string
			for _, p := range l.params {
				as = append(as, g.expr(p))
			}
			return fmt.Sprintf("%s(%s)", l.name, strings.Join(as, ", "))
		}
	}
	if g.chance(0.1) {
		return fmt.Sprintf("(%s if %s else %s)", g.expr(k), g.expr(tBool), g.expr(k))
	}
	switch k {
	case tInt:
		switch g.pick(8) {
		case 0:
			return fmt.Sprintf("(%s %s %s)", g.expr(tInt), []string{"+", "-", "*"}[g.pick(3)], g.expr(tInt))
		case 1:
			return fmt.Sprintf("(%s %s %d)", g.expr(tInt), []string{"//", "%"}[g.pick(2)], 1+g.r.Intn(7))
		case 2:
			return fmt.Sprintf("len(%s)", g.expr([]kind{tStr, tListInt, tListStr, tDictInt}[g.pick(4)]))
		case 3:
			return fmt.Sprintf("int(%s)", g.expr(tFloat))
		case 4:
			return fmt.Sprintf("sum(%s)", g.expr(tListInt))
		case 5:
			return fmt.Sprintf("(%s << %d)", g.expr(tInt), g.pick(40))
		case 6:
			return g.strMethod(tInt)
		default:
			return g.literal(k)
		}
	case tFloat:
		switch g.pick(5) {
		case 0:
			return fmt.Sprintf("(%s %s %s)", g.expr(tFloat), []string{"+", "-", "*"}[g.pick(3)], g.expr(tFloat))
		case 1:
			return fmt.Sprintf("(%s / %d)", g.expr(tInt), 1+g.r.Intn(9))
		case 2:
			return fmt.Sprintf("float(%s)", g.expr(tInt))
		case 3:
			return fmt.Sprintf("(%s ** %d)", g.expr(tFloat), g.pick(4))
		default:
			return g.literal(k)
		}
	case tStr:
		switch g.pick(10) {
		case 0:
			// No double-quoted string inside ${}: that ends the outer literal.
			return fmt.Sprintf("\"%s-${%s}\"", g.word(), g.primary([]kind{tInt, tBool, tListInt, tFloat}[g.pick(4)]))
		case 1:
			return fmt.Sprintf("(%s + %s)", g.expr(tStr), g.expr(tStr))
		case 2:
			m := []string{"upper()", "lower()", "title()", "capitalize()", "strip()", "replace(\"a\", \"o\")", "rstrip()", "lstrip(\"x\")"}[g.pick(8)]
			return fmt.Sprintf("%s.%s", g.expr(tStr), m)
		case 3:
			return fmt.Sprintf("\"-\".join(%s)", g.expr(tListStr))
		case 4:
			return fmt.Sprintf("\"{}:{}\".format(%s, %s)", g.expr(tStr), g.expr(tInt))
		case 5:
			return fmt.Sprintf("str(%s)", g.expr([]kind{tInt, tFloat, tBool, tListInt, tDictInt}[g.pick(5)]))
		case 6:
			e := g.expr(tStr)
			if strings.HasPrefix(e, "(") && strings.Contains(e, " if ") {
				// The official resolver types an if-expression of str
				// literals as their union, which is not subscriptable.
				e = "str" + e
			}
			return fmt.Sprintf("%s[%s]", e, []string{"0:2", "::-1", "1:", ":-1"}[g.pick(4)])
		case 8:
			return g.strMethod(tStr)
		case 7:
			if s, ok := g.schemaVar(); ok {
				for _, a := range s.schema.allAttrs() {
					if a.k == tStr && (!a.optional || a.def != "") {
						return s.name + "." + a.name
					}
				}
			}
			return g.literal(k)
		default:
			return g.literal(k)
		}
	case tBool:
		switch g.pick(8) {
		case 0:
			return fmt.Sprintf("(%s %s %s)", g.expr(tInt), []string{"<", ">=", "==", "!="}[g.pick(4)], g.expr(tInt))
		case 1:
			return fmt.Sprintf("(%s in %s)", g.expr(tStr), g.expr(tListStr))
		case 2:
			return fmt.Sprintf("(%s %s %s)", g.expr(tBool), []string{"and", "or"}[g.pick(2)], g.expr(tBool))
		case 3:
			return fmt.Sprintf("(not %s)", g.expr(tBool))
		case 4:
			return fmt.Sprintf("(all x in %s { x %s %d })", g.primary(tListInt), []string{">", "<", "!="}[g.pick(3)], g.r.Intn(5))
		case 5:
			return fmt.Sprintf("%s.startswith(%s)", g.expr(tStr), g.literal(tStr))
		case 6:
			return g.strMethod(tBool)
		default:
			return g.literal(k)
		}
	case tListInt:
		switch g.pick(6) {
		case 0:
			return fmt.Sprintf("[x %s %d for x in %s%s]", []string{"*", "+", "%"}[g.pick(3)], 1+g.r.Intn(3), g.expr(tListInt), g.cond("x"))
		case 1:
			return fmt.Sprintf("(%s + %s)", g.expr(tListInt), g.expr(tListInt))
		case 2:
			return fmt.Sprintf("[len(s) for s in %s]", g.expr(tListStr))
		case 3:
			return fmt.Sprintf("[v for _, v in %s]", g.expr(tDictInt))
		case 4:
			return fmt.Sprintf("filter x in %s { x > %d }", g.primary(tListInt), g.r.Intn(5))
		default:
			return g.literal(k)
		}
	case tListStr:
		switch g.pick(6) {
		case 0:
			return fmt.Sprintf("[\"${x}\" for x in %s]", g.expr(tListInt))
		case 1:
			return fmt.Sprintf("%s.split(%s)", g.expr(tStr), []string{"\"-\"", "\"a\"", ""}[g.pick(3)])
		case 2:
			return fmt.Sprintf("[k for k in %s]", g.expr(tDictInt))
		case 3:
			return fmt.Sprintf("sorted(%s)", g.expr(tListStr))
		case 4:
			return g.strMethod(tListStr)
		default:
			return g.literal(k)
		}
	case tDictInt:
		switch g.pick(5) {
		case 0:
			return fmt.Sprintf("{s: len(s) for s in %s}", g.expr(tListStr))
		case 1:
			return fmt.Sprintf("(%s | %s)", g.expr(tDictInt), g.expr(tDictInt))
		case 2:
			return fmt.Sprintf("{k: v * 2 for k, v in %s if v > %d}", g.expr(tDictInt), g.r.Intn(3))
		case 3:
			return fmt.Sprintf("{**%s, %s: %s}", g.expr(tDictInt), g.literal(tStr), g.expr(tInt))
		default:
			return g.literal(k)
		}
	case tSchema:
		if len(g.schemas) > 0 {
			return g.instance(g.schemas[g.pick(len(g.schemas))])
		}
		return g.literal(tDictInt)
	}
	return g.literal(k)
}

// primary is a variable or a literal of kind k: the target of a quantifier
// cannot be a parenthesised expression.
func (g *generator) primary(k kind) string {
	if v, ok := g.varOf(k); ok && g.chance(0.6) {
		return v
	}
	return g.literal(k)
}

func (g *generator) schemaVar() (variable, bool) {
	var c []variable
	for _, v := range g.vars {
		if v.k == tSchema {
			c = append(c, v)
		}
	}
	if len(c) == 0 {
		return variable{}, false
	}
	return c[g.pick(len(c))], true
}

func (g *generator) cond(x string) string {
	if g.chance(0.5) {
		return ""
	}
	return fmt.Sprintf(" if %s %s %d", x, []string{">", "<", "!="}[g.pick(3)], g.r.Intn(5))
}

var words = []string{"app", "web", "db", "nginx", "über", "日本", "a b", "x-y", "", "cafe\u0301", "emoji🙂", "tab\\t", "quote\\\"", "new\\nline", "100", "true", "null", "~", "- item", "key: v", "#hash", "0x1F", "1e3", "yes"}

func (g *generator) word() string { return words[g.pick(len(words))] }

func (g *generator) strLit() string {
	switch g.pick(8) {
	case 0:
		return fmt.Sprintf("'%s'", strings.ReplaceAll(g.word(), "'", ""))
	case 1:
		return fmt.Sprintf("\"\"\"%s\nsecond line\n\"\"\"", g.word())
	case 2:
		return fmt.Sprintf("r\"%s\\d\"", strings.ReplaceAll(strings.ReplaceAll(g.word(), "\\", ""), "\"", ""))
	default:
		return fmt.Sprintf("\"%s\"", g.word())
	}
}

var floats = []string{"0.1", "1.5", "2.0", "1e10", "1.0e-7", "3.14159", "100.0", "0.0", "-2.5", "1e21", "1e22", "123456789.125", "0.3", "5e-324", "1.7976931348623157e308", "1e-5", "0.000123", "12345678901234567890.0", "2.5e-8"}

// literal is a literal of kind k.
func (g *generator) literal(k kind) string {
	switch k {
	case tInt:
		switch g.pick(10) {
		case 0:
			return fmt.Sprint(g.r.Int63())
		case 1:
			return fmt.Sprintf("-%d", g.r.Intn(100))
		case 2:
			return []string{"0x1F", "0o17", "0b101", "1_000", "0xFF_FF"}[g.pick(5)]
		default:
			return fmt.Sprint(g.r.Intn(20))
		}
	case tFloat:
		return floats[g.pick(len(floats))]
	case tStr:
		return g.strLit()
	case tBool:
		return []string{"True", "False"}[g.pick(2)]
	case tListInt:
		n := g.pick(4)
		var xs []string
		for i := 0; i < n; i++ {
			xs = append(xs, fmt.Sprint(g.r.Intn(10)))
		}
		return "[" + strings.Join(xs, ", ") + "]"
	case tListStr:
		n := g.pick(4)
		var xs []string
		for i := 0; i < n; i++ {
			xs = append(xs, fmt.Sprintf("%q", strings.ReplaceAll(strings.ReplaceAll(g.word(), "\\", ""), "\"", "")))
		}
		return "[" + strings.Join(xs, ", ") + "]"
	case tDictInt:
		n := g.pick(4)
		var xs []string
		keys := []string{"a", "b", "c", "name", "\"x-y\"", "\"1\"", "\"über\""}
		g.r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		for i := 0; i < n; i++ {
			key := keys[i]
			if g.chance(0.5) {
				if !strings.HasPrefix(key, "\"") {
					key = "\"" + key + "\""
				}
				xs = append(xs, fmt.Sprintf("%s: %d", key, g.r.Intn(10)))
			} else if strings.HasPrefix(key, "\"") {
				xs = append(xs, fmt.Sprintf("%s: %d", key, g.r.Intn(10)))
			} else {
				xs = append(xs, fmt.Sprintf("%s = %d", key, g.r.Intn(10)))
			}
		}
		return "{" + strings.Join(xs, ", ") + "}"
	case tNone:
		return []string{"None", "Undefined"}[g.pick(2)]
	}
	return "None"
}
