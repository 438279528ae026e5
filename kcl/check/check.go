// Package check is the static pass between syntax and eval, in the manner of
// starlark-go's resolve package: before anything runs, it binds every name of a
// program to its scope and reports what the official KCL resolver reports —
// undefined names (with its "did you mean" suggestions), unknown members of
// modules, circular schema inheritance — so that a program the official
// engine refuses is refused here too, even when the faulty code never runs.
//
// The pass is deliberately conservative: where the official rules are not
// modelled, a name or type is taken as valid. A program the official engine
// accepts must never be rejected here.
//
// Files by concept: check.go (the program model and entry points), checker.go
// (the walk's state), declare.go (a package's globals and schemas), stmt.go,
// expr.go, names.go, annotation.go, arguments.go (walks), infer.go, types.go,
// binary.go, builtins.go (types), assign.go (assignability), inherit.go (schema
// inheritance), immutable.go (reassigned globals), config_keys.go,
// config_types.go, config_entries.go, config_context.go (config literals
// against schemas), order.go, report.go (diagnostics in the official order),
// cache.go (reuse across runs), suggest.go, format.go (the official texts).
package check

import (
	"fmt"
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
)

// Program is every package of a run: the main package and what it imports,
// transitively.
type Program struct {
	Main *Package
	// Packages holds every package by path, the main one included.
	Packages map[string]*Package
	// MainVariant names what, besides its files' content, rewrote the main
	// package's bodies (the -O specs); the check of an unchanged program is
	// reused only for the same variant.
	MainVariant string
}

// Package is one KCL package.
type Package struct {
	Path  string // "__main__" or the dotted import path
	Files []*SourceFile
}

// File is one parsed file of a package.
type SourceFile struct {
	Module *syntax.Module
	// Body is the statements to check (Module.Body, or the evaluator's
	// per-run copy after merging configs of the main package).
	Body []syntax.Stmt
	// Imports maps each import statement of the file to the package it names;
	// nil for system and plugin modules.
	Imports map[*syntax.ImportStmt]*Package
}

// Message is one located line of a diagnostic.
type Message struct {
	Pos syntax.Position
	Msg string
}

// Diagnostic is one error the official resolver would report: the first
// message is the error, further ones point at related places.
type Diagnostic struct {
	Kind     string
	Messages []Message
	Note     string
}

func (d *Diagnostic) Error() string {
	m := d.Messages[0]
	return fmt.Sprintf("%s: %s: %s", d.Kind, m.Pos, m.Msg)
}

// maxDiagnostics bounds the report of a hostile program.
const maxDiagnostics = 100

// Check resolves a program and returns its diagnostics in the order the
// official resolver finds them (imported packages before their importers).
func Check(prog *Program) []*Diagnostic {
	keys := cacheKeys(prog)
	mainKey := mainCacheKey(prog, keys)
	if diags, ok := programCacheGet(mainKey); ok {
		return diags
	}
	r := &checker{prog: prog, infos: map[string]*pkgInfo{}}
	fresh := map[string]bool{}
	for _, p := range sortedPackages(prog) {
		if p != prog.Main {
			if pi := cacheGet(keys[p]); pi != nil {
				r.infos[p.Path] = pi
				continue
			}
		}
		r.declare(p)
		fresh[p.Path] = true
	}
	r.checkInheritance()
	r.visited = map[*Package]bool{}
	r.checkPackage(prog.Main, 0)
	r.diags = dedupe(r.diags)
	for _, p := range prog.Packages {
		if p != prog.Main && fresh[p.Path] && r.visited[p] {
			cachePut(keys[p], r.infos[p.Path])
		}
	}
	programCachePut(mainKey, prog, r.diags)
	return r.diags
}

// File checks one parsed file as a whole program, with no imported packages
// (an import of anything but a system module is taken as valid).
func File(m *syntax.Module) []*Diagnostic {
	main := &Package{Path: "__main__", Files: []*SourceFile{{Module: m, Body: m.Body}}}
	return Check(&Program{Main: main, Packages: map[string]*Package{main.Path: main}})
}

// dedupe drops the diagnostics equal to an earlier one: the official
// handler keeps a set, and its passes resolve some names more than once
// (see globalPass).
func dedupe(diags []*Diagnostic) []*Diagnostic {
	type key struct {
		kind, note string
		msgs       string
	}
	seen := map[key]bool{}
	out := diags[:0:0]
	for _, d := range diags {
		var b strings.Builder
		for _, m := range d.Messages {
			fmt.Fprintf(&b, "%s:%d:%d:%d\x00%s\x00", m.Pos.File, m.Pos.Line, m.Pos.Col, m.Pos.Offset, m.Msg)
		}
		k := key{d.Kind, d.Note, b.String()}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, d)
	}
	return out
}

// sortedPackages lists the packages in a fixed order: main first, then by path.
func sortedPackages(prog *Program) []*Package {
	out := []*Package{prog.Main}
	var rest []string
	for path, p := range prog.Packages {
		if p != prog.Main {
			rest = append(rest, path)
		}
	}
	sortStrings(rest)
	for _, path := range rest {
		out = append(out, prog.Packages[path])
	}
	return out
}

func (r *checker) checkPackage(p *Package, depth int) {
	if p == nil || r.visited[p] || depth > 1000 {
		return
	}
	r.visited[p] = true
	// The official resolver checks what a package imports before the package.
	for _, f := range p.Files {
		for _, s := range f.Body {
			if imp, ok := s.(*syntax.ImportStmt); ok {
				r.checkPackage(f.Imports[imp], depth+1)
			}
		}
	}
	pi := r.infos[p.Path]
	if pi.cached {
		r.diags = append(r.diags, pi.diags...)
		return
	}
	start := len(r.diags)
	r.checkBodies(p)
	pi.diags = append([]*Diagnostic(nil), r.diags[start:]...)
}
