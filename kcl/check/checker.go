package check

import (
	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
)

// checker is the state of one Check: what the global pass declared, the
// diagnostics so far, and where the walk is.
type checker struct {
	// rules is the graph of rules and their parent rules (see ruleParent).
	rules ruleGraph
	// typeAt, when set, is where an undefined name of the type being
	// walked is reported (see annotation).
	typeAt *syntax.Position
	// prepassed are the annotations the global passes reported on.
	prepassed map[syntax.Type]bool
	// early, during the first global pass, holds the variables and type
	// aliases it has met (see globalPass); nil after it.
	early map[string]bool
	// immutableAt are the globals assigned twice, reported by the first
	// global pass.
	immutableAt map[*syntax.Target]*Diagnostic
	// topStmt is the start of the top-level or schema-body statement being
	// walked, where the official resolver reports an undefined name in a
	// lambda's return type.
	topStmt syntax.Position
	prog    *Program
	infos   map[string]*pkgInfo // by package path
	visited map[*Package]bool
	diags   []*Diagnostic
	// reported counts the diagnostics, those past maxDiagnostics too.
	reported int

	// The statement being checked.
	pkg    *pkgInfo
	file   *SourceFile
	local  *scope      // innermost local scope; nil at the top level
	schema *schemaInfo // enclosing schema or rule
	depth  int         // expression nesting, bounded against hostile input
	// assigned are the package's globals assigned so far in the walk.
	assigned map[string]syntax.Position
	// varTypes are the types of the package's globals known so far;
	// assignCount counts their assignments (only a global assigned once
	// has a type here).
	varTypes    map[string]*typ
	assignCount map[string]int
	// lambdaResults are the annotated return types of the package's
	// globals first assigned a lambda.
	lambdaResults map[string]*typ
	schemaScope   *scope // the scope of the enclosing schema's body
	// definingLambda is the global whose lambda's body is being walked;
	// walkedLambdas the globals whose lambda has been: only calls of those
	// are checked, as the official resolver types a global when it walks
	// its assignment.
	definingLambda string
	walkedLambdas  map[string]bool
	// lambdaBodyTypes are the types of the values the walked lambdas'
	// bodies end with: the result type of one without annotation.
	lambdaBodyTypes map[*syntax.LambdaExpr]*typ
	// paramTypes are the annotated parameters of the enclosing schema.
	paramTypes map[string]*typ
	// deferEntries is the config of the schema expression being walked,
	// whose entry-value checks come after its attribute types.
	deferEntries *syntax.ConfigExpr
	// orderPath is the place in a config walk being checked, diagOrder
	// that of each diagnostic reported there (see order.go).
	orderPath []orderElem
	diagOrder map[*Diagnostic][]orderElem
	// orderDone[k] is the last entry finished at depth k of orderPath: a
	// diagnostic reported at that depth comes after it (`{**1} | 1`
	// reports the `|` after the entries of its operands).
	orderDone []orderElem
	// globalLambdas are the package's globals assigned a lambda once.
	globalLambdas map[string]*syntax.LambdaExpr
	// globals are the package's top-level names as the global passes
	// leave them, before the walk (see globalType).
	globals map[string]*globalObj
}

// globalObj is a top-level name of the official global scope: the type of
// the last annotation the passes met (a name assigned without one keeps
// the type it has, or is any), and the place of the last assignment.
type globalObj struct {
	t   *typ
	pos syntax.Position
}

// maxDepth bounds the nesting the pass follows; the parser bounds it first.
const maxDepth = 2000

func (r *checker) checkBodies(p *Package) {
	r.importNames(p)
	r.checkGlobals(p)
	r.pkg = r.infos[p.Path]
	r.assigned = map[string]syntax.Position{}
	r.varTypes = map[string]*typ{}
	r.assignCount = map[string]int{}
	r.lambdaResults = map[string]*typ{}
	var count func(stmts []syntax.Stmt)
	count = func(stmts []syntax.Stmt) {
		for _, s := range stmts {
			if is, ok := s.(*syntax.IfStmt); ok {
				count(is.Body)
				count(is.Orelse)
				continue
			}
			if _, aug := s.(*syntax.AugAssignStmt); aug {
				continue // x op= v keeps the type of x
			}
			for _, n := range bodyNames([]syntax.Stmt{s}, nil) {
				r.assignCount[n]++
			}
		}
	}
	for _, f := range p.Files {
		count(f.Body)
	}
	r.globalLambdas = map[string]*syntax.LambdaExpr{}
	r.walkedLambdas = map[string]bool{}
	r.lambdaBodyTypes = map[*syntax.LambdaExpr]*typ{}
	for _, f := range p.Files {
		for _, st := range f.Body {
			as, ok := st.(*syntax.AssignStmt)
			if !ok || len(as.Targets) != 1 || as.Targets[0] == nil || as.Targets[0].Name == nil || len(as.Targets[0].Paths) > 0 {
				continue
			}
			if lam, ok := as.Value.(*syntax.LambdaExpr); ok && as.Ty == nil && r.assignCount[as.Targets[0].Name.Value] == 1 {
				r.globalLambdas[as.Targets[0].Name.Value] = lam
			}
		}
	}
	r.prepassed = map[syntax.Type]bool{}
	r.early = map[string]bool{}
	r.globals = map[string]*globalObj{}
	for _, f := range p.Files {
		r.globalPass(f, true)
	}
	r.early = nil
	r.checkSchemaTypes(p)
	r.pkg = r.infos[p.Path]
	for _, f := range p.Files {
		r.globalPass(f, false)
	}
	// The walk reads a global at the type the passes gave it, before its
	// assignments are walked.
	for name, g := range r.globals {
		if !g.t.isAny() {
			r.varTypes[name] = g.t
		}
	}
	for _, f := range p.Files {
		r.file = f
		r.stmts(f.Body)
	}
	r.pkg.varTypes = r.varTypes
	r.pkg.lambdaResults = r.lambdaResults
	r.pkg.lambdas = r.globalLambdas
}

// importNames reports an import name the package's files give to two
// different packages, as the official resolver does first when it checks a
// package (`import sub as s` and `import sub.sub as s`; the same import
// twice is no error).
func (r *checker) importNames(p *Package) {
	paths := map[string]string{}
	for _, f := range p.Files {
		for _, s := range f.Body {
			imp, ok := s.(*syntax.ImportStmt)
			if !ok {
				continue
			}
			path := imp.RawPath
			if dep := f.Imports[imp]; dep != nil {
				path = dep.Path
			} else if imp.Path != nil {
				path = imp.Path.Value
			}
			prev, seen := paths[imp.Name]
			if !seen {
				paths[imp.Name] = path
				continue
			}
			if prev != path {
				r.report(errkind.Compile, imp.Pos(), "the name '%s' is defined multiple times, '%s' must be defined only once", imp.Name, imp.Name)
			}
		}
	}
}
