package check

import (
	"sort"

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
	file      *SourceFile
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

// sigOwner is the schema whose index signature s takes: its own, or for a
// rule its protocol (the official rule type copies the protocol's).
func (s *schemaInfo) sigOwner() *schemaInfo {
	if s.isRule {
		if s.protocol == nil {
			return s
		}
		return s.protocol
	}
	return s
}

// indexSig is the index signature of s itself (see sigOwner), nil for none.
func (s *schemaInfo) indexSig() *syntax.SchemaIndexSignature {
	if o := s.sigOwner(); o.stmt != nil {
		return o.stmt.IndexSignature
	}
	return nil
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
	// assignedAt is where each local of a lambda body was first assigned
	// (the official scope object's place).
	assignedAt map[string]syntax.Position
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

func sortStrings(s []string) { sort.Strings(s) }
