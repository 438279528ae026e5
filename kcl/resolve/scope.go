package resolve

import (
	"sort"
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
)

// symbolKind tells what a package-level name is bound to.
type symbolKind int

const (
	symVariable symbolKind = iota
	symSchema
	symTypeAlias
	symModule
)

type symbol struct {
	kind   symbolKind
	pos    syntax.Position
	schema *schemaInfo // symSchema
	// module is the imported package (symModule); nil with system set for a
	// system module, nil with neither for a plugin.
	module *Package
	system string
	alias  *syntax.TypeAliasStmt // symTypeAlias
}

// pkgInfo is what the declaration pass learnt about a package.
type pkgInfo struct {
	pkg     *Package
	globals map[string]*symbol
	order   []string // global names in declaration order, for suggestions
	// cached marks an info reused from an earlier run: it and its
	// diagnostics are read-only.
	cached bool
	diags  []*Diagnostic
	// cycles are the inheritance cycles starting in this package.
	cycles [][]*schemaInfo
	// varTypes are the inferred types of the package's globals once it is
	// checked, for `pkg.name` in its importers.
	varTypes map[string]*typ
	// lambdaResults are the annotated return types of its lambda globals;
	// lambdas are the globals assigned a lambda once.
	lambdaResults map[string]*typ
	lambdas       map[string]*syntax.LambdaExpr
}

func (pi *pkgInfo) define(name string, s *symbol) {
	if _, ok := pi.globals[name]; ok {
		return
	}
	pi.globals[name] = s
	pi.order = append(pi.order, name)
}

// schemaInfo is a schema, mixin, protocol or rule.
type schemaInfo struct {
	name      string
	pkg       *Package
	file      *File
	stmt      *syntax.SchemaStmt // nil for a rule
	rule      *syntax.RuleStmt
	isMixin   bool
	isRule    bool
	attrs     map[string]bool // attributes and names assigned in the body
	declared  map[string]*syntax.SchemaAttr
	unified   map[string]bool // attributes declared by `name: Schema {...}`
	parent    *schemaInfo
	protocol  *schemaInfo
	mixins    []*schemaInfo
	resolving bool // guards inheritance cycles
}

// hasAttr reports whether name is an attribute of s, its bases, protocol or
// mixins.
func (s *schemaInfo) hasAttr(name string) bool {
	seen := 0
	for cur := s; cur != nil && seen < 1000; cur, seen = cur.parent, seen+1 {
		if cur.attrs[name] {
			return true
		}
		for _, m := range cur.mixins {
			if m.attrs[name] {
				return true
			}
		}
		for p, n := cur.protocol, 0; p != nil && n < 1000; p, n = p.parent, n+1 {
			if p.attrs[name] {
				return true
			}
		}
	}
	return false
}

// scope is a local block: schema body, lambda, comprehension, config.
type scope struct {
	parent *scope
	names  map[string]bool
	order  []string
	// types are the known types of some names (comprehension variables
	// while their element is typed); the others are any.
	types map[string]*typ
	// loop marks the scope of comprehension or quantifier variables, the
	// official local_vars: a config key naming one is that variable.
	loop bool
	// config marks a config literal's scope: its keys are visible to its
	// values, typed once their entry is walked (before that a name is the
	// outer one's, as the official resolver inserts a key after its value).
	config bool
	// lambda marks a lambda's body: like the package's top level, its
	// first assignment of a name types it and later ones must fit.
	lambda bool
	// lambdas are the locals of a lambda body whose first assignment is a
	// lambda; lambdaSeen the locals assigned so far.
	lambdas    map[string]*syntax.LambdaExpr
	lambdaSeen map[string]bool
}

// binds reports whether name here is sc's: a config key whose entry is
// not walked yet still names the outer binding.
func (sc *scope) binds(name string) bool {
	return sc.names[name] && !(sc.config && sc.types[name] == nil)
}

func (sc *scope) setType(name string, t *typ) {
	if sc.types == nil {
		sc.types = map[string]*typ{}
	}
	sc.types[name] = t
}

func (sc *scope) define(name string) {
	if sc.names == nil {
		sc.names = map[string]bool{}
	}
	if !sc.names[name] {
		sc.names[name] = true
		sc.order = append(sc.order, name)
	}
}

// bodyNames lists the names a block of statements assigns, branches included
// (the official get_left_identifier_list).
func bodyNames(stmts []syntax.Stmt, out []string) []string {
	for _, s := range stmts {
		switch s := s.(type) {
		case *syntax.AssignStmt:
			for _, t := range s.Targets {
				if t.Name != nil {
					out = append(out, t.Name.Value)
				}
			}
		case *syntax.AugAssignStmt:
			if s.Target != nil && s.Target.Name != nil {
				out = append(out, s.Target.Name.Value)
			}
		case *syntax.UnificationStmt:
			if s.Target != nil && len(s.Target.Names) > 0 {
				out = append(out, s.Target.Names[0].Value)
			}
		case *syntax.SchemaAttr:
			if s.Name != nil {
				out = append(out, s.Name.Value)
			}
		case *syntax.IfStmt:
			out = bodyNames(s.Body, out)
			out = bodyNames(s.Orelse, out)
		}
	}
	return out
}

// suggestions returns the candidates the official engine offers for a
// misspelt name: Jaro-Winkler similarity above 0.8, least similar first (the
// order of the `suggestions` crate it uses).
func suggestions(name string, candidates []string) []string {
	type cand struct {
		score float64
		name  string
	}
	var cs []cand
	seen := map[string]bool{}
	for _, c := range candidates {
		if seen[c] {
			continue
		}
		seen[c] = true
		if s := jaroWinkler(name, c); s > 0.8 {
			cs = append(cs, cand{s, c})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].score < cs[j].score })
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.name
	}
	return out
}

// suggestionText formats suggestions as the official engine does, a Rust
// debug print of a vector of strings: `, did you mean '["a", "b"]'?`.
func suggestionText(suggs []string) string {
	if len(suggs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(", did you mean '[")
	for i, s := range suggs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(rustDebugString(s))
	}
	b.WriteString("]'?")
	return b.String()
}

func rustDebugString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// jaroWinkler is the similarity of the strsim 0.10 crate: Jaro similarity
// plus a bonus for the whole common prefix (not capped at four characters).
func jaroWinkler(a, b string) float64 {
	ar, br := []rune(a), []rune(b)
	j := jaro(ar, br)
	prefix := 0
	for prefix < len(ar) && prefix < len(br) && ar[prefix] == br[prefix] {
		prefix++
	}
	jw := j + 0.1*float64(prefix)*(1-j)
	if jw > 1 {
		return 1
	}
	return jw
}

func jaro(a, b []rune) float64 {
	la, lb := len(a), len(b)
	switch {
	case la == 0 && lb == 0:
		return 1
	case la == 0 || lb == 0:
		return 0
	case la == 1 && lb == 1:
		if a[0] == b[0] {
			return 1
		}
		return 0
	}
	rng := max(la, lb)/2 - 1
	consumed := make([]bool, lb)
	matches, transpositions := 0.0, 0.0
	bMatchIndex := 0
	for i, ac := range a {
		lo := 0
		if i > rng {
			lo = i - rng
		}
		hi := min(lb-1, i+rng)
		if lo > hi {
			continue
		}
		for j := lo; j <= hi; j++ {
			if ac == b[j] && !consumed[j] {
				consumed[j] = true
				matches++
				if j < bMatchIndex {
					transpositions++
				}
				bMatchIndex = j
				break
			}
		}
	}
	if matches == 0 {
		return 0
	}
	return (matches/float64(la) + matches/float64(lb) + (matches-transpositions)/matches) / 3
}

func sortStrings(s []string) { sort.Strings(s) }
