// Package eval evaluates parsed KCL programs: it loads packages through a
// sandbox, resolves names in lazily evaluated scopes (KCL's order-independent
// globals and schema attributes), instantiates schemas, unifies configs and
// checks types at run time.
package eval

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

// Config is one evaluation.
type Config struct {
	// Root is the absolute program directory (the file module reads below
	// it); Files are absolute paths (files or package directories) inside the
	// sandbox.
	Root  string
	Files []string
	// Sandbox is the absolute directory nothing outside of which is read
	// (besides external packages); it holds Root. Empty means Root.
	Sandbox string
	// ModRoot is the directory holding kcl.mod, or the root of the entry.
	ModRoot string
	// ModFile says ModRoot holds a kcl.mod; without one, an absolute import
	// in a file of the main package resolves against the file's directory,
	// as in 0.12.1 (entries in several folders each import beside them).
	ModFile bool
	// ExternalPkgs maps external package names to absolute directories.
	ExternalPkgs map[string]string
	// EntryPkgs marks entry files given as ${name:KCL_MOD}/...: they belong to
	// the main package but import as files of external package name.
	EntryPkgs map[string]string
	// FileOverrides replace file contents, keyed by absolute path.
	FileOverrides map[string][]byte
	// Options are option() values (from -D and settings).
	Options   map[string]value.Value
	Overrides []string
	// OverriddenFile, when set, is given each file of the main package the
	// overrides change, as the overrides leave it (kcl run -O … -d writes it).
	OverriddenFile func(path string, m *syntax.Module) error
	Selectors      []string
	ShowHidden     bool
	Thread         *value.Thread
}

// Interp holds one run's state.
type Interp struct {
	cfg    *Config
	thread *value.Thread
	sb     *sandbox
	pkgs   map[string]*pkgState
	main   *pkgState

	// defSeq counts schema definitions; schemaDefs finds a statement's.
	defSeq     int
	schemaDefs map[*syntax.SchemaStmt]*schemaDef
	// callLocals are the variables of the lambda calls under way.
	callLocals []*locals
	// schemaStack and exprStack count schemas being built and schema
	// expressions being evaluated: required attributes are checked only on
	// top-level instances.
	schemaStack, exprStack int
	// syntaxErrs are the syntax errors of the files loaded so far, one
	// Error per file.
	syntaxErrs    []*Error
	collectSyntax bool
	// nextCfgExpr hands the config literal of a schema expression to instantiate.
	nextCfgExpr *syntax.ConfigExpr
	// curPos is the official runtime's "current position": the statement or
	// config entry evaluated last. An instance made by a type conversion is
	// located there (its missing required attributes are reported at that
	// line), not at the annotation.
	curPos syntax.Position
	// nextOrigin hands instantiate the position an instance re-run by a union
	// was first made at, which it keeps.
	nextOrigin syntax.Position
	// nextConverted tells instantiate the instance comes from a type
	// conversion (see instanceMeta.converted).
	nextConverted bool
	// checkPos is where the instance whose checks run was created.
	checkPos syntax.Position
	// nextCalled marks the instance being made as called (`S()`), which
	// has no config: a failed check is then the bare condition's error.
	nextCalled bool
	// nextCalledOrigin marks a union's re-run of a called instance.
	nextCalledOrigin bool
	// currentPkg is the package whose statement runs now.
	currentPkg string
	// dictConversions counts plain dicts being turned into schema instances
	// (their values' schema types are checked leniently, see convertNamed).
	dictConversions int
	// exprResults are the values of top-level expression statements.
	exprResults []exprResult
	// noneResult: a top-level expression statement gave None or Undefined.
	noneResult bool
	// snapshots: the main package reads instances(), whose records are
	// then copies of each instance as made (configs of their own), re-runs
	// included, without their schema arguments (as 0.12.1 keeps them).
	snapshots bool
	// absImports remembers resolveAbsImport's answers for the run.
	absImports map[absImportKey][2]string
	// lastNode is the statement or expression evaluated last (panicPos): the official
	// runtime locates a failed type check there (its panic_info), which
	// after a backtrack is the setter's line.
	lastNode syntax.Node
	// The official evaluator's dynamic state that the lazy scopes depend on
	// (see lazy.go): the setters being backtracked, the names being
	// assigned, the statement run last, the schemas being built (and the
	// instances lambdas written in schema bodies read) and the lambda calls
	// under way.
	backtrack   []backtrackMeta
	targets     []string
	astID       syntax.Stmt
	frameStack  []frameRef
	lambdaDepth int
	// scopes are the official scopes open (see lazy.go).
	scopes []map[shadowKey]value.Value
	// lambdaLocals are the names each lambda expression's body assigns.
	lambdaLocals map[*syntax.LambdaExpr][]string
}

// pkgState is a loaded package.
type pkgState struct {
	path   string // "__main__" or dotted path
	dir    string
	files  []*fileUnit
	global *lazyScope
	types  map[string]*typeAlias
	state  int // 0 new, 1 running, 2 done
	// immutableErr is a static error found while preparing the package.
	immutableErr error
	module       *value.Module
	// missing marks the empty package standing for an import that names
	// no folder or file (see emptyPackage).
	missing bool
}

type typeAlias struct {
	ty   syntax.Type
	file *fileUnit
}

// fileUnit is one parsed file of a package.
type fileUnit struct {
	mod     *syntax.Module
	body    []syntax.Stmt // mod.Body, or a per-run copy after config merging
	path    string        // absolute
	pkg     *pkgState
	imports map[string]value.Value
}

// Run evaluates the program and returns its top-level values in output order.
func Run(ctx context.Context, cfg *Config) (value.Value, error) {
	sandboxDir := cfg.Sandbox
	if sandboxDir == "" {
		sandboxDir = cfg.Root
	}
	dirs := []string{sandboxDir}
	for _, d := range cfg.ExternalPkgs {
		dirs = append(dirs, d)
	}
	sb, err := newSandbox(dirs, cfg.FileOverrides)
	if err != nil {
		return nil, err
	}
	defer sb.Close()
	in := &Interp{cfg: cfg, thread: cfg.Thread, sb: sb, pkgs: map[string]*pkgState{}}
	if in.thread == nil {
		in.thread = &value.Thread{Ctx: ctx}
	}
	if in.thread.FS == nil {
		in.thread.FS, err = sb.FS(cfg.Root)
		if err != nil {
			return nil, err
		}
	}
	if in.thread.Options == nil {
		in.thread.Options = cfg.Options
	}
	// Syntax errors of the files loaded before evaluation are collected, and
	// reported with the static pass's errors.
	in.collectSyntax = true
	mainPkg, err := in.loadMain()
	if err == nil && len(in.syntaxErrs) > 0 {
		err = in.syntaxFailure(mainPkg, nil, true)
	}
	if err != nil {
		return nil, err
	}
	in.main = mainPkg
	if err := in.applyOverrides(mainPkg); err != nil {
		return nil, err
	}
	if !staticPassOff {
		err = in.checkGuarded(mainPkg)
	}
	in.collectSyntax = false
	if len(in.syntaxErrs) > 0 {
		err = in.syntaxFailure(mainPkg, err, false)
	}
	if err != nil {
		return nil, err
	}
	if err := in.evalPackage(mainPkg); err != nil {
		return nil, err
	}
	var out value.Value = in.exportGlobals(mainPkg)
	if in.noneResult && len(in.exprResults) == 0 && out.(*value.Dict).Len() == 0 {
		// The official engine prints a program whose only output is None as null.
		out = value.None
	}
	if len(in.exprResults) > 0 {
		var err error
		if out, err = in.mergeExprResults(out.(*value.Dict)); err != nil {
			return nil, err
		}
	}
	if len(cfg.Selectors) > 0 {
		return in.selectPaths(out, cfg.Selectors)
	}
	return out, nil
}

// panicPos is where the official runtime locates a failure of the node
// running now: its panic_info, the statement or expression evaluated last,
// which after a call is the callee's last node, not the caller's.
func (in *Interp) panicPos(fallback syntax.Position) syntax.Position {
	if in.lastNode != nil {
		return in.lastNode.Pos()
	}
	return fallback
}

// mergeExprResults combines the top-level expression values and then each
// global, one at a time, as the official planner does (plan_globals_to_string):
// every value is unioned into the output with the idempotent check, so two
// different scalars, a list next to a config, or a key given two different
// values conflict. The conflict is reported at the node evaluated last, the
// official panic position when planning starts.
func (in *Interp) mergeExprResults(globals *value.Dict) (value.Value, error) {
	at := in.panicPos(in.exprResults[len(in.exprResults)-1].pos)
	out := value.NewDict(1)
	merge := func(v value.Value) error {
		entry := value.NewDict(1)
		entry.Set("", v)
		opts := in.unionOptions()
		opts.Resolve = nil
		opts.IdempotentCheck = true
		if _, err := value.Union(in.thread, out, entry, opts); err != nil {
			return locate(err, lineOnly(at))
		}
		return nil
	}
	for _, r := range in.exprResults {
		if err := merge(value.DeepCopy(r.v)); err != nil {
			return nil, err
		}
	}
	for _, e := range globals.Entries() {
		one := value.NewDict(1)
		one.Set(e.Key, e.Value)
		if err := merge(one); err != nil {
			return nil, err
		}
	}
	v, _ := out.Get("")
	return v, nil
}

func (in *Interp) loadMain() (*pkgState, error) {
	p := &pkgState{path: value.MainPkg, types: map[string]*typeAlias{}}
	// The entries are those 0.12.1 keeps (kcl.Run drops a folder without a
	// kcl.mod next to a file: `kcl run ../base main.k` reads main.k).
	for _, f := range in.cfg.Files {
		if in.sb.IsDir(f) {
			files, err := in.sb.KFiles(f)
			if err != nil {
				return nil, &Error{Kind: errkind.CannotFindModule, Msg: fmt.Sprintf("Cannot find the module %s", f)}
			}
			if p.dir == "" {
				p.dir = f
			}
			for _, kf := range files {
				if err := in.addFile(p, in.entryPath(kf), true); err != nil {
					return nil, err
				}
			}
			continue
		}
		if p.dir == "" {
			p.dir = filepath.Dir(f)
		}
		if err := in.addFile(p, in.entryPath(f), true); err != nil {
			return nil, err
		}
	}
	if len(p.files) == 0 {
		return nil, &Error{Kind: errkind.Plain, Msg: "No input KCL files"}
	}
	in.pkgs[p.path] = p
	mergeMainConfigs(p.files)
	in.snapshots = namesInstances(p.files)
	in.prepare(p)
	return p, nil
}

// namesInstances reports whether a file reads a schema's instances().
func namesInstances(files []*fileUnit) bool {
	found := false
	for _, f := range files {
		syntax.Walk(f.mod, func(n syntax.Node) bool {
			if nm, ok := n.(*syntax.Name); ok && nm.Value == "instances" {
				found = true
			}
			return !found
		})
	}
	return found
}

// addFile parses a file of p; main says p is the run's main package.
// entryPath is the path a main-package file is read by (sandbox.entryPath);
// an entry file of an external package keeps its own.
func (in *Interp) entryPath(abs string) string {
	if _, ok := in.cfg.EntryPkgs[abs]; ok {
		return abs
	}
	return in.sb.entryPath(abs)
}

func (in *Interp) addFile(p *pkgState, path string, main bool) error {
	m, err := in.sb.parse(path, main)
	if errors.Is(err, errSourceUnreadable) {
		return &Error{Kind: errkind.CannotFindModule, Msg: fmt.Sprintf("Cannot find the module %s from %s", filepath.Base(path), path)}
	}
	var se *Error
	if errors.As(err, &se) && m != nil && se.isSyntax() && in.collectSyntax {
		// Loading goes on with what was parsed: the program is refused
		// after the static pass has run, as in 0.12.1.
		in.syntaxErrs = append(in.syntaxErrs, se)
		err = nil
	}
	if err != nil {
		return err
	}
	p.files = append(p.files, &fileUnit{mod: m, body: m.Body, path: path, pkg: p, imports: map[string]value.Value{}})
	return nil
}

// prepare builds the package's lazy global scope and collects type aliases.
func (in *Interp) prepare(p *pkgState) {
	var refs []stmtRef
	for _, f := range p.files {
		for _, s := range f.body {
			refs = append(refs, stmtRef{stmt: s, file: f})
			if ta, ok := s.(*syntax.TypeAliasStmt); ok {
				p.types[ta.TypeName.Name()] = &typeAlias{ty: ta.Ty, file: f}
			}
		}
	}
	p.global = newLazyScope(refs)
	p.immutableErr = checkImmutable(refs)
}

// checkImmutable finds a second assignment to an exported global anywhere at
// the top level (branches included), which the official engine rejects
// before running.
func checkImmutable(refs []stmtRef) error {
	seen := map[string]syntax.Position{}
	var walk func(stmts []syntax.Stmt) error
	walk = func(stmts []syntax.Stmt) error {
		for _, s := range stmts {
			switch s := s.(type) {
			case *syntax.AssignStmt:
				for _, t := range s.Targets {
					name := t.Name.Value
					if len(t.Paths) != 0 || isPrivate(name) {
						continue
					}
					if first, ok := seen[name]; ok {
						return &Error{Kind: errkind.Immutable, Pos: t.Pos(),
							Msg:    fmt.Sprintf("Can not change the value of '%s', because it was declared immutable", name),
							Labels: []Label{{Pos: first, Msg: fmt.Sprintf("The variable '%s' is declared here", name)}},
							Note:   fmt.Sprintf("change the variable name to '_%s' to make it mutable", name)}
					}
					seen[name] = t.Pos()
				}
			case *syntax.AugAssignStmt:
				name := s.Target.Name.Value
				if first, ok := seen[name]; ok && !isPrivate(name) {
					return &Error{Kind: errkind.Immutable, Pos: s.Target.Pos(),
						Msg:    fmt.Sprintf("Immutable variable '%s' is modified during compiling", name),
						Labels: []Label{{Pos: first, Msg: fmt.Sprintf("The variable '%s' is declared here firstly", name)}},
						Note:   fmt.Sprintf("change the variable name to '_%s' to make it mutable", name)}
				}
			case *syntax.IfStmt:
				if err := walk(s.Body); err != nil {
					return err
				}
				if err := walk(s.Orelse); err != nil {
					return err
				}
			}
		}
		return nil
	}
	var stmts []syntax.Stmt
	for _, r := range refs {
		stmts = append(stmts, r.stmt)
	}
	return walk(stmts)
}

// evalPackage defines p's schemas and rules, then runs every other top-level
// statement once, in order (the main pass; see lazy.go).
func (in *Interp) evalPackage(p *pkgState) error {
	if p.state == 2 {
		return nil
	}
	if p.immutableErr != nil {
		return p.immutableErr
	}
	p.state = 1
	// A package is evaluated as the official engine imports it, before the
	// importer's statements run: none of the importer's schemas, setters or
	// lambda calls is under way for it.
	// Nor does it move the importer's panic position (lastNode).
	frames, backtrack, targets, depth, scopes, calls, last := in.frameStack, in.backtrack, in.targets, in.lambdaDepth, in.scopes, in.callLocals, in.lastNode
	in.frameStack, in.backtrack, in.targets, in.lambdaDepth, in.scopes, in.callLocals = nil, nil, nil, 0, nil, nil
	defer func() {
		in.frameStack, in.backtrack, in.targets, in.lambdaDepth, in.scopes, in.callLocals = frames, backtrack, targets, depth, scopes, calls
		if p != in.main {
			in.lastNode = last
		}
	}()
	ls := p.global
	for i, r := range ls.stmts {
		switch r.stmt.(type) {
		case *syntax.SchemaStmt, *syntax.RuleStmt:
			if !ls.defined[i] {
				ls.defined[i] = true
				if err := in.runGlobalStmt(p, i); err != nil {
					return err
				}
			}
		}
	}
	for i, r := range ls.stmts {
		switch st := r.stmt.(type) {
		case *syntax.SchemaStmt:
			// 0.12.1 runs the statement again: see knownAttrs.
			if def := in.schemaDefs[st]; def != nil && def.pkgPath == p.path {
				def.known = def.knownAttrs(func(*schemaDef) bool { return true })
			}
			in.lastNode = st
			continue
		case *syntax.RuleStmt:
			in.lastNode = st
			continue
		}
		if err := in.runGlobalStmt(p, i); err != nil {
			return err
		}
	}
	p.state = 2
	return nil
}

func (in *Interp) runGlobalStmt(p *pkgState, i int) error {
	ls := p.global
	ref := ls.stmts[i]
	e := &env{file: ref.file, pkg: p}
	prev, prevFile := in.currentPkg, in.thread.CurrentFile
	in.currentPkg, in.thread.CurrentFile = p.path, ref.file.path
	defer func() { in.currentPkg, in.thread.CurrentFile = prev, prevFile }()
	return in.debugLocate(in.execStmt(e, ref.stmt), ref.stmt)
}

// debugLocate is how `kcl run -d` reports a run-time error: the locations the
// runtime gives only a line for move to the top-level statement that was
// running (the innermost one, of whichever package), followed by a backtrace
// note naming it.
func (in *Interp) debugLocate(err error, stmt syntax.Stmt) error {
	var e *Error
	if err == nil || !in.thread.Debug || !errors.As(err, &e) || e.Note != "" {
		return err
	}
	switch e.Kind {
	case errkind.Evaluation, errkind.Assertion, errkind.SchemaCheck:
	default:
		return err
	}
	at := lineOnly(stmt.Pos())
	if e.Pos.Col == 0 {
		e.Pos = at
	}
	for i := range e.Labels {
		if e.Labels[i].Pos.Col == 0 {
			e.Labels[i].Pos = at
		}
	}
	e.Note = fmt.Sprintf("backtrace:\n\t0: kcl_main\n\t\tat %s:%d", at.File, at.Line)
	return err
}

// exportGlobals returns the package's public values in first-assignment order,
// dropping private names, functions, schema types and modules.
func (in *Interp) exportGlobals(p *pkgState) *value.Dict {
	out := value.NewDict(len(p.global.order))
	for _, name := range p.global.order {
		if strings.HasPrefix(name, "_") && !in.cfg.ShowHidden {
			continue
		}
		v, ok := p.global.vals[name]
		if !ok || !exportable(v) {
			continue
		}
		out.Set(name, v)
	}
	return out
}

func exportable(v value.Value) bool {
	switch v.(type) {
	case nil, *value.Function, *value.Builtin, *value.Module, value.UndefinedType:
		return false
	}
	return true
}

// stmtRef is a statement with the file it belongs to.
type stmtRef struct {
	stmt syntax.Stmt
	file *fileUnit
}

type declaredType struct {
	ty  syntax.Type
	env *env
	// inferred types come from a first value, not an annotation.
	inferred bool
}

type exprResult struct {
	v   value.Value
	pos syntax.Position
}
