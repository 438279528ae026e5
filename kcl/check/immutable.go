package check

import (
	"fmt"
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
)

func isPrivate(name string) bool { return strings.HasPrefix(name, "_") }

// checkGlobals reports what the official resolver finds while it builds a
// package's global scope, before it walks the bodies: schema names defined
// twice, and it keeps for the global pass (which reports them in its place
// among the annotations) exported globals assigned twice (globals are
// immutable).
func (r *checker) checkGlobals(p *Package) {
	r.immutableAt = map[*syntax.Target]*Diagnostic{}
	declared := map[string]syntax.Position{}
	for _, f := range p.Files {
		for _, s := range f.Body {
			if imp, ok := s.(*syntax.ImportStmt); ok {
				if _, seen := declared[imp.Name]; !seen {
					declared[imp.Name] = imp.Pos()
				}
			}
		}
	}
	for _, f := range p.Files {
		for _, s := range f.Body {
			var name *syntax.Name
			switch s := s.(type) {
			case *syntax.SchemaStmt:
				name = s.Name
			case *syntax.RuleStmt:
				name = s.Name
			}
			if name == nil {
				continue
			}
			if _, seen := declared[name.Value]; seen {
				r.report(errkind.UniqueKey, s.Pos(), "Unique key error name '%s'", name.Value)
				continue
			}
			declared[name.Value] = s.Pos()
		}
	}
	var walk func(stmts []syntax.Stmt)
	walk = func(stmts []syntax.Stmt) {
		for _, s := range stmts {
			switch s := s.(type) {
			case *syntax.AssignStmt:
				for _, t := range s.Targets {
					if t == nil || t.Name == nil {
						continue
					}
					name := t.Name.Value
					if first, seen := declared[name]; seen && !isPrivate(name) {
						r.immutableAt[t] = &Diagnostic{Kind: errkind.Immutable, Messages: []Message{
							{Pos: t.Pos(), Msg: fmt.Sprintf("Can not change the value of '%s', because it was declared immutable", name)},
							{Pos: first, Msg: fmt.Sprintf("The variable '%s' is declared here", name)},
						}, Note: fmt.Sprintf("change the variable name to '_%s' to make it mutable", name)}
						continue
					}
					declared[name] = t.Pos()
				}
			case *syntax.UnificationStmt:
				if s.Target != nil && len(s.Target.Names) > 0 {
					declared[s.Target.Names[0].Value] = s.Target.Pos()
				}
			case *syntax.IfStmt:
				walk(s.Body)
				walk(s.Orelse)
			}
		}
	}
	// File by file, the file's type aliases first: an alias of a later
	// file does not make an earlier file's global immutable.
	for _, f := range p.Files {
		for _, s := range f.Body {
			if ta, ok := s.(*syntax.TypeAliasStmt); ok && ta.TypeName != nil {
				declared[ta.TypeName.Name()] = ta.TypeName.Pos()
			}
		}
		walk(f.Body)
	}
}

// augAssign reports `x += v` on an exported global assigned before.
func (r *checker) augAssign(s *syntax.AugAssignStmt) {
	if s.Target == nil || s.Target.Name == nil {
		return
	}
	name := s.Target.Name.Value
	_, isConfig := s.Value.(*syntax.SchemaExpr)
	first, seen := r.assigned[name]
	if isPrivate(name) || isConfig || !seen {
		if !seen {
			r.assigned[name] = s.Target.Pos()
		}
		return
	}
	r.diag(&Diagnostic{Kind: errkind.Immutable, Messages: []Message{
		{Pos: s.Target.Pos(), Msg: fmt.Sprintf("Immutable variable '%s' is modified during compiling", name)},
		{Pos: first, Msg: fmt.Sprintf("The variable '%s' is declared here firstly", name)},
	}, Note: fmt.Sprintf("change the variable name to '_%s' to make it mutable", name)})
}

// uniqueKey reports a schema whose name a global of the package already
// has, as the official resolver does while it walks the statements.
func (r *checker) uniqueKey(name *syntax.Name) {
	first, seen := r.assigned[name.Value]
	if !seen {
		r.assigned[name.Value] = name.Pos()
		return
	}
	r.diag(&Diagnostic{Kind: errkind.UniqueKey, Messages: []Message{
		{Pos: name.Pos(), Msg: fmt.Sprintf("Unique key error name '%s'", name.Value)},
		{Pos: first, Msg: fmt.Sprintf("The variable '%s' is declared here", name.Value)},
	}})
}
