// The lazy scope: how order-independent assignments are computed.
//
// KCL assignments of a package, or of a schema's bodies, do not run in source
// order only: `b = a + 1` may come before `a = 1`. The official evaluator
// computes a name on demand by backtracking, and its results (which value a
// read sees when a name has several assignments) follow from that algorithm
// exactly, so this file is a port of it (0.12.1's evaluator/src/lazy.rs):
//
// Setters. Before anything runs, each name gets the list of the top-level
// statements that may assign it (scopeLayout.setters), in source order. A
// statement inside an if statement counts as the if statement, once per
// assignment it holds, marked with the branch it is in (If or OrElse) and
// with that assignment (stopped). Schema and rule statements are not setters:
// types are defined before the other statements run.
//
// The main pass runs every statement in order, each exactly once
// (evalPackage, instantiate). Every assignment of a name counts (calTimes);
// once it has been assigned as many times as it has setters, or by its last
// setter, its value is cached.
//
// A read (lazyGet) returns, in order:
//   - the name's current value, for a name read by the statement that
//     assigns it (`_a = _a + 1`, the target stack), unless the name is
//     being backtracked and has several setters;
//   - the cached value;
//   - otherwise the value after running one more setter, counted from the
//     last: the first uncached read of a name runs its last setter, a read of
//     the same name inside that run its last but one, and so on (levels);
//     the result is cached. A read past the first setter gets the current
//     value.
//
// Running an if statement's setter walks only the branch it is in (the
// condition still decides, or decides negated for an else branch) and stops
// after the assignment it was made for (backtrackMeta.stopped, isBreak). The
// stack of those marks is the interpreter's, not the scope's: a lambda called
// or a schema instantiated while a setter runs sees it too, as in the
// official engine (a lambda called in the condition of an else-branch setter
// runs only the else branches of its own if statements).
//
// Where the state lives:
//   - a package has one lazy scope for its globals (pkgState.global);
//   - a schema instance has one over the combined bodies of its type chain
//     (schemaFrame.ls). Each body of the chain runs with a fresh state, and
//     each mixin with a copy of the state its host's body left, as the
//     official evaluator copies the scope into each parent and mixin context.
//     The values themselves are shared: the instance's dict.
//   - A schema body does not backtrack globals: a global not computed yet
//     reads as Undefined there, also in a lambda the body calls; a lambda
//     called while a schema is being built reads the schema's attributes
//     first (frameStack, the official schema stack).
//   - A global statement run by backtracking while an official scope is
//     open (a config literal, a comprehension, a quantifier, a lambda call,
//     a schema body) binds the name in that scope, not the global: reads
//     while the scope is open see it, a schema body afterwards does not,
//     and the global gets its value when the main pass reaches the
//     statement (Interp.scopes).
//   - A schema statement run by backtracking while a lambda call is under
//     way assigns a variable of its own, not the attribute: the official
//     evaluator stores it in the lambda's scope frame (schema attributes
//     declared with a type still go to the instance).

package eval

import (
	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

type setterKind uint8

const (
	setNormal setterKind = iota
	// setIf runs only the body of the if statement, setOrElse only its else branch.
	setIf
	setOrElse
)

// setter is a statement that may assign a name.
type setter struct {
	stmt int // index in the lazy scope's statements
	// stopped is the assignment inside an if statement the setter is for.
	stopped syntax.Stmt
	kind    setterKind
}

// emitSetters adds the setters of statement i to lay, as the official
// emit_setters does.
func (lay *scopeLayout) emitSetters(i int, s syntax.Stmt) {
	add := func(name string, stopped syntax.Stmt, kind setterKind) {
		id := lay.nameID(name)
		lay.setters[id] = append(lay.setters[id], setter{stmt: i, stopped: stopped, kind: kind})
	}
	switch s := s.(type) {
	case *syntax.IfStmt:
		for _, l := range branchAssignments(s.Body, nil) {
			add(l.name, l.stmt, setIf)
		}
		for _, l := range branchAssignments(s.Orelse, nil) {
			add(l.name, l.stmt, setOrElse)
		}
	default:
		for _, n := range assignedNames(s, nil) {
			add(n, nil, setNormal)
		}
	}
}

type branchAssignment struct {
	name string
	stmt syntax.Stmt
}

// branchAssignments lists the assignments of a branch, those of nested if
// statements (both of their branches) included.
func branchAssignments(body []syntax.Stmt, out []branchAssignment) []branchAssignment {
	for _, s := range body {
		if is, ok := s.(*syntax.IfStmt); ok {
			out = branchAssignments(is.Body, out)
			out = branchAssignments(is.Orelse, out)
			continue
		}
		for _, n := range assignedNames(s, nil) {
			out = append(out, branchAssignment{name: n, stmt: s})
		}
	}
	return out
}

// assignedNames lists the names a simple statement assigns.
func assignedNames(s syntax.Stmt, out []string) []string {
	switch s := s.(type) {
	case *syntax.AssignStmt:
		for _, t := range s.Targets {
			out = append(out, t.Name.Value)
		}
	case *syntax.AugAssignStmt:
		out = append(out, s.Target.Name.Value)
	case *syntax.UnificationStmt:
		out = append(out, s.Target.Names[0].Value)
	case *syntax.SchemaAttr:
		out = append(out, s.Name.Value)
	}
	return out
}

// lazyState is what a lazy scope learns while it runs, per name id.
type lazyState struct {
	cache    []value.Value // nil: not cached
	levels   []int32
	calTimes []int32
}

func newLazyState(n int) *lazyState {
	if n == 0 {
		return &lazyState{}
	}
	levels := make([]int32, 2*n)
	return &lazyState{cache: make([]value.Value, n), levels: levels[:n:n], calTimes: levels[n:]}
}

func (s *lazyState) clone() *lazyState {
	c := newLazyState(len(s.cache))
	copy(c.cache, s.cache)
	copy(c.levels, s.levels)
	copy(c.calTimes, s.calTimes)
	return c
}

// backtrackMeta marks a setter being run by backtracking.
type backtrackMeta struct {
	stopped syntax.Stmt
	kind    setterKind
	isBreak bool
}

func (in *Interp) pushBacktrack(s setter) {
	in.backtrack = append(in.backtrack, backtrackMeta{stopped: s.stopped, kind: s.kind})
}

func (in *Interp) popBacktrack() { in.backtrack = in.backtrack[:len(in.backtrack)-1] }

// backtrackKind is the kind of the setter being backtracked, if any.
func (in *Interp) backtrackKind() setterKind {
	if n := len(in.backtrack); n > 0 {
		return in.backtrack[n-1].kind
	}
	return setNormal
}

// target is the name the innermost assignment being evaluated assigns.
func (in *Interp) target() string {
	if n := len(in.targets); n > 0 {
		return in.targets[n-1]
	}
	return ""
}

// lazyGet reads id (name) of ls: def is its current value, run runs a
// setter, current reads the value a setter left.
func (in *Interp) lazyGet(ls *lazyScope, id int, name string, def value.Value, run func(setter) error, current func() value.Value) (value.Value, error) {
	st := ls.st
	setters := ls.lay.setters[id]
	level := st.levels[id]
	if name == in.target() && (level == 0 || len(setters) <= 1) {
		return def, nil
	}
	if v := st.cache[id]; v != nil {
		return v, nil
	}
	if len(setters) == 0 {
		return def, nil
	}
	next := level + 1
	st.levels[id] = next
	if int(next) > len(setters) {
		// Every setter is being run already; the level stays, as in 0.12.1.
		return def, nil
	}
	if err := in.thread.Enter(); err != nil {
		return nil, err
	}
	err := run(setters[len(setters)-int(next)])
	in.thread.Leave()
	if err != nil {
		return nil, err
	}
	st.levels[id] = level
	v := current()
	st.cache[id] = v
	return v, nil
}

// lazySet records an assignment of id; v reads the value assigned.
func (in *Interp) lazySet(ls *lazyScope, id int, v func() value.Value) {
	st := ls.st
	if id < 0 || st.levels[id] > 0 {
		return
	}
	st.calTimes[id]++
	setters := ls.lay.setters[id]
	hit := int(st.calTimes[id]) >= len(setters)
	if !hit && len(setters) > 0 {
		last := setters[len(setters)-1]
		at := last.stopped
		if at == nil {
			at = ls.stmts[last.stmt].stmt
		}
		hit = at == in.astID
	}
	if hit && st.cache[id] == nil {
		st.cache[id] = v()
	}
}

// shadowKey names a global of a package bound in an official scope.
type shadowKey struct {
	p    *pkgState
	name string
}

// enterScope opens an official scope (see lazy.go) and returns the number
// open before, for leaveScope.
func (in *Interp) enterScope() int {
	in.scopes = append(in.scopes, nil)
	return len(in.scopes) - 1
}

func (in *Interp) leaveScope(n int) { in.scopes = in.scopes[:n] }

// shadow finds a global bound in an open scope by a backtracked statement.
func (in *Interp) shadow(p *pkgState, name string) (value.Value, bool) {
	for i := len(in.scopes) - 1; i >= 0; i-- {
		if v, ok := in.scopes[i][shadowKey{p, name}]; ok {
			return v, true
		}
	}
	return nil, false
}

// bindShadow binds a global in the innermost open scope.
func (in *Interp) bindShadow(p *pkgState, name string, v value.Value) {
	top := len(in.scopes) - 1
	if in.scopes[top] == nil {
		in.scopes[top] = map[shadowKey]value.Value{}
	}
	in.scopes[top][shadowKey{p, name}] = v
}
