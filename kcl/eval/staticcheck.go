package eval

import (
	"errors"
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl/check"
	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	"github.com/kcl-lang/flux-kcl-controller/kcl/modules"
	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
)

// staticPassOff skips the static pass (checkProgram), as the engine ran
// before it had one. Only the benchmarks that measure the pass's share of a
// warm compile set it: a program it would refuse then runs.
var staticPassOff bool

// checkProgram loads every package the main package imports, transitively,
// and runs the static pass over them before anything is evaluated, as the
// official engine does: a program it refuses is refused before it prints.
func (in *Interp) checkProgram(mainPkg *pkgState) error {
	prog := &check.Program{Packages: map[string]*check.Package{}, MainVariant: strings.Join(in.cfg.Overrides, "\x00")}
	pkgs := map[*pkgState]*check.Package{}
	var queue []*pkgState
	get := func(p *pkgState) *check.Package {
		if rp, ok := pkgs[p]; ok {
			return rp
		}
		rp := &check.Package{Path: p.path}
		pkgs[p] = rp
		prog.Packages[p.path] = rp
		queue = append(queue, p)
		return rp
	}
	prog.Main = get(mainPkg)
	edges := map[*pkgState][]importEdge{}
	var missingErrs []*Error
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		rp := pkgs[p]
		for _, f := range p.files {
			// Imports is made on a file's first import: most files of a
			// large package (the k8s module's) import nothing.
			rf := &check.SourceFile{Module: f.mod, Body: f.body}
			rp.Files = append(rp.Files, rf)
			for _, s := range f.body {
				imp, ok := s.(*syntax.ImportStmt)
				if !ok {
					continue
				}
				raw := imp.RawPath
				if raw == "" && imp.Path != nil {
					raw = imp.Path.Value
				}
				if strings.HasPrefix(raw, "kcl_plugin.") {
					continue
				}
				if _, ok := modules.Load(raw); ok && !strings.HasPrefix(raw, ".") {
					continue
				}
				dep, err := in.loadImport(f, raw, imp.Pos())
				var missing *Error
				if errors.As(err, &missing) && missing.missing {
					// The official resolver goes on with the package empty:
					// its members are then reported as not found.
					missingErrs = append(missingErrs, missing)
					dep = in.emptyPackage(missing.missingPkg)
				} else if err != nil {
					return err
				}
				if rf.Imports == nil {
					rf.Imports = map[*syntax.ImportStmt]*check.Package{}
				}
				rf.Imports[imp] = get(dep)
				edges[p] = append(edges[p], importEdge{stmt: imp, to: dep})
			}
		}
	}
	if err := importCycle(mainPkg, edges); err != nil {
		return err
	}
	diags := check.Check(prog)
	errs := missingErrs
	for _, d := range diags {
		errs = append(errs, diagnosticError(d))
	}
	if len(errs) == 0 {
		return nil
	}
	errs[0].Also = append(errs[0].Also, errs[1:]...)
	return errs[0]
}

// emptyPackage stands for an import that names no folder or file.
func (in *Interp) emptyPackage(pkgPath string) *pkgState {
	if p, ok := in.pkgs[pkgPath]; ok {
		return p
	}
	p := &pkgState{path: pkgPath, types: map[string]*typeAlias{}, missing: true}
	in.pkgs[pkgPath] = p
	in.prepare(p)
	return p
}

func diagnosticError(d *check.Diagnostic) *Error {
	e := &Error{Kind: d.Kind, Msg: d.Messages[0].Msg, Pos: d.Messages[0].Pos, Note: d.Note}
	for _, m := range d.Messages[1:] {
		e.Labels = append(e.Labels, Label{Pos: m.Pos, Msg: m.Msg})
	}
	return e
}

// syntaxFailure is the error of a program with syntax errors: all of them,
// then what the static pass found in the partial modules (the official engine
// reports both), checkErr. It runs the static pass itself when checkErr
// is nil and run is set; a static pass that cannot cope with a partial module
// adds nothing.
func (in *Interp) syntaxFailure(mainPkg *pkgState, checkErr error, run bool) (err error) {
	var rerr *Error
	if run && checkErr == nil {
		checkErr = in.checkGuarded(mainPkg)
	}
	first := in.syntaxErrs[0]
	for _, e := range in.syntaxErrs[1:] {
		first.Also = append(first.Also, e)
		first.Also = append(first.Also, e.Also...)
		e.Also = nil
	}
	if errors.As(checkErr, &rerr) && !rerr.isSyntax() {
		first.Also = append(first.Also, rerr)
		first.Also = append(first.Also, rerr.Also...)
		rerr.Also = nil
	}
	return first
}

// checkGuarded runs the static pass; over partial modules (syntax errors
// already found) a failure of the pass itself is no error of the program.
func (in *Interp) checkGuarded(mainPkg *pkgState) (err error) {
	defer func() {
		if len(in.syntaxErrs) == 0 {
			return
		}
		if r := recover(); r != nil {
			err = nil
		}
	}()
	return in.checkProgram(mainPkg)
}

type importEdge struct {
	stmt *syntax.ImportStmt
	to   *pkgState
}

// importCycle reports the first cycle of imports found from the main package,
// as the official loader and resolver do: the loader's message listing the
// files of the cycle (last package first), then, at the import of each
// package of the cycle that leads to the next, "There is a circular reference
// between modules ..." (none for a package importing itself).
func importCycle(mainPkg *pkgState, edges map[*pkgState][]importEdge) error {
	onStack := map[*pkgState]int{}
	done := map[*pkgState]bool{}
	var stack []*pkgState
	var cycle []*pkgState
	var visit func(p *pkgState) bool
	visit = func(p *pkgState) bool {
		onStack[p] = len(stack)
		stack = append(stack, p)
		for _, e := range edges[p] {
			if i, ok := onStack[e.to]; ok {
				cycle = append([]*pkgState(nil), stack[i:]...)
				return true
			}
			if !done[e.to] && visit(e.to) {
				return true
			}
		}
		stack = stack[:len(stack)-1]
		delete(onStack, p)
		done[p] = true
		return false
	}
	if !visit(mainPkg) {
		return nil
	}
	var msg strings.Builder
	msg.WriteString("Could not compiles due to cyclic import statements")
	for i := len(cycle) - 1; i >= 0; i-- {
		for _, f := range cycle[i].files {
			msg.WriteString("\n- " + f.path)
		}
	}
	first := &Error{Kind: errkind.RecursiveLoad, Msg: msg.String()}
	if len(cycle) < 2 {
		return first
	}
	names := make([]string, len(cycle))
	for i, p := range cycle {
		names[i] = p.path
	}
	text := "There is a circular reference between modules " + strings.Join(names, ", ")
	for i, p := range cycle {
		next := cycle[(i+1)%len(cycle)]
		for _, e := range edges[p] {
			if e.to == next {
				first.Also = append(first.Also, errorAt(e.stmt.Pos(), errkind.Compile, "%s", text))
				break
			}
		}
	}
	return first
}
