package eval

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	"github.com/kcl-lang/flux-kcl-controller/kcl/modules"
	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

// execStmt runs one statement. The returned value is the statement's value
// (expression statements), which a lambda returns when it is the last one.
func (in *Interp) execStmt(e *env, s syntax.Stmt) error {
	_, err := in.execStmtValue(e, s)
	return err
}

// execStmtValue is the official walk_stmt: a statement after the one a
// backtracked if-statement setter is for does not run (see lazy.go).
func (in *Interp) execStmtValue(e *env, s syntax.Stmt) (value.Value, error) {
	n := len(in.backtrack)
	if n > 0 && in.backtrack[n-1].isBreak {
		return value.Undefined, nil
	}
	in.astID = s
	v, err := in.runStmt(e, s)
	if n := len(in.backtrack); n > 0 && in.backtrack[n-1].stopped == s {
		in.backtrack[n-1].isBreak = true
	}
	return v, err
}

func (in *Interp) runStmt(e *env, s syntax.Stmt) (value.Value, error) {
	if err := in.thread.Check(); err != nil {
		return nil, locate(err, s.Pos())
	}
	in.curPos = s.Pos()
	if _, isImport := s.(*syntax.ImportStmt); !isImport {
		// The official module walk skips imports (walk_stmts_except_import):
		// they never become the panic position.
		in.lastNode = s
	}
	switch s := s.(type) {
	case *syntax.ExprStmt:
		var last value.Value = value.None
		for _, x := range s.Exprs {
			v, err := in.eval(e, x)
			if err != nil {
				return nil, err
			}
			last = v
			// Top-level expressions of the main package are output values.
			if e.lambda == nil && e.schema == nil && e.pkg == in.main {
				_, isCall := x.(*syntax.CallExpr)
				_, isSchemaExpr := x.(*syntax.SchemaExpr)
				_, isBool := v.(value.Bool)
				switch {
				case isCall || isSchemaExpr && isBool:
				case value.IsNoneOrUndefined(v):
					// A None is the output only when there is nothing else.
					in.noneResult = true
				default:
					in.exprResults = append(in.exprResults, exprResult{v, s.Pos()})
				}
			}
		}
		return last, nil
	case *syntax.AssignStmt:
		defer in.popTargets(in.pushTargets(s))
		v, err := in.eval(e, s.Value)
		if err != nil {
			return nil, err
		}
		if s.Ty != nil {
			// Located as the official panic_info is: at the node run
			// last (a called lambda's body, say).
			v, err = in.convertType(e, v, s.Ty, lineOnly(in.panicPos(s.Pos())))
			if err != nil {
				return nil, err
			}
		}
		for _, t := range s.Targets {
			if err := in.assign(e, t, v, s.Ty, true); err != nil {
				return nil, err
			}
		}
		return v, nil
	case *syntax.AugAssignStmt:
		defer in.popTargets(in.pushTargets(s))
		if err := in.execAugAssign(e, s); err != nil {
			return nil, err
		}
		if len(s.Target.Paths) == 0 {
			if v, ok := in.currentValue(e, s.Target.Name.Value); ok {
				return v, nil
			}
		}
		return value.None, nil
	case *syntax.UnificationStmt:
		defer in.popTargets(in.pushTargets(s))
		v, err := in.eval(e, s.Value)
		if err != nil {
			return nil, err
		}
		name := s.Target.Names[0].Value
		if old, ok := in.currentValue(e, name); ok && !value.IsNoneOrUndefined(old) {
			v, err = in.union(old, v, s.Pos())
			if err != nil {
				return nil, err
			}
		}
		t := &syntax.Target{Span: s.Target.Span, Name: s.Target.Names[0]}
		for _, n := range s.Target.Names[1:] {
			t.Paths = append(t.Paths, syntax.MemberOrIndex{Member: n})
		}
		return value.None, in.assign(e, t, v, nil, false)
	case *syntax.AssertStmt:
		return value.None, in.execAssert(e, s)
	case *syntax.IfStmt:
		c, err := in.eval(e, s.Cond)
		if err != nil {
			return nil, err
		}
		body := s.Orelse
		if c.Truth() {
			body = s.Body
		}
		// A backtracked setter walks only its own branch.
		switch in.backtrackKind() {
		case setIf:
			if !c.Truth() {
				body = nil
			}
		case setOrElse:
			if c.Truth() {
				body = nil
			}
		}
		var last value.Value = value.None
		for _, b := range body {
			v, err := in.execStmtValue(e, b)
			if err != nil {
				return nil, err
			}
			last = v
		}
		return last, nil
	case *syntax.ImportStmt:
		return value.None, in.execImport(e.file, s)
	case *syntax.SchemaStmt:
		def, err := in.defineSchema(e, s)
		if err != nil {
			return nil, err
		}
		return value.None, in.setName(e, s.Name.Value, def.typeValue(), s.Pos(), false)
	case *syntax.RuleStmt:
		def, err := in.defineRule(e, s)
		if err != nil {
			return nil, err
		}
		return value.None, in.setName(e, s.Name.Value, def.typeValue(), s.Pos(), false)
	case *syntax.TypeAliasStmt:
		return value.None, nil
	case *syntax.SchemaAttr:
		defer in.popTargets(in.pushTargets(s))
		return value.None, in.execSchemaAttr(e, s)
	}
	return nil, errorAt(s.Pos(), errkind.Compile, "unsupported statement %T", s)
}

// pushTargets pushes the names s assigns on the target stack (see lazy.go)
// and returns the stack's length before.
func (in *Interp) pushTargets(s syntax.Stmt) int {
	n := len(in.targets)
	in.targets = assignedNames(s, in.targets)
	return n
}

func (in *Interp) popTargets(n int) { in.targets = in.targets[:n] }

// currentValue reads a name's value where an assignment would write it, without
// backtracking.
func (in *Interp) currentValue(e *env, name string) (value.Value, bool) {
	switch {
	case e.lambda != nil:
		v, ok := e.lambda.vars[name]
		return v, ok
	case e.schema != nil:
		return e.schema.inst.Get(name)
	case e.pkg != nil:
		v, ok := e.pkg.global.vals[name]
		return v, ok
	}
	return nil, false
}

// assign stores v into a target. plain marks `=` assignments, which may not
// rebind an exported global.
func (in *Interp) assign(e *env, t *syntax.Target, v value.Value, ty syntax.Type, plain bool) (err error) {
	name := t.Name.Value
	atTop := e.lambda == nil && e.schema == nil && e.pkg != nil
	if atTop && len(t.Paths) == 0 {
		ls := e.pkg.global
		if ty != nil {
			// An annotation that changes the global's type is the static
			// pass's error (the official global passes'); the ones it
			// lets through ("x" and str) leave nothing to judge here.
			ls.types[name] = declaredType{ty: ty, env: &env{file: e.file, pkg: e.pkg}}
		} else if old, ok := ls.types[name]; ok {
			// A type inferred from a first value is the static pass's alone:
			// `_s = _s / 8` of an int is an int to it, a float at run time.
			if !old.inferred {
				var err error
				if v, err = in.convertType(old.env, v, old.ty, lineOnly(t.Pos())); err != nil {
					return err
				}
			}
		} else if inferred := inferType(v); inferred != nil && plain {
			// As the official checker, a variable without annotation takes the
			// type of its first value; later values must fit it.
			ls.types[name] = declaredType{ty: inferred, env: &env{file: e.file, pkg: e.pkg}, inferred: true}
		}
	}
	if len(t.Paths) == 0 {
		return in.setName(e, name, v, t.Pos(), plain)
	}
	var base value.Value
	if atTop && !isPrivate(name) {
		// `a.b = v` is the declaration of a when nothing else declares it
		// (a second one is the static pass's ImmutableError): a is
		// Undefined, and updating it fails at run time, as in 0.12.1.
		if old, ok := e.pkg.global.vals[name]; ok && !value.IsUndefined(old) {
			return errorAt(t.Pos(), errkind.Immutable, "Can not change the value of '%s', because it was declared immutable", name)
		}
		base = value.Undefined
	} else if base, err = in.lookup(e, name, t.Pos()); err != nil {
		return err
	}
	if e.schema != nil && e.lambda == nil {
		defer func() {
			if err == nil {
				err = in.reapplyConfig(e.schema, name, t.Pos())
			}
			if err == nil {
				in.frameAssigned(e.schema, name)
			}
		}()
	}
	// Walk to the container holding the last step, creating dicts on the way.
	cur := base
	for i, step := range t.Paths {
		last := i == len(t.Paths)-1
		if step.Member != nil {
			d, ok := value.AsDict(cur)
			if !ok && last {
				return errorAt(lineOnly(t.Pos()), errkind.Evaluation, "failed to update the dict. An iterable of key-value pairs was expected, but got %s. Check if the syntax for updating the dictionary with the attribute '%s' is correct", cur.Type(), step.Member.Value)
			}
			if !ok {
				// A step on the way is loaded as an expression's member is
				// (load_attr), and its value updated in place, if a dict.
				next, err := in.getAttr(cur, step.Member.Value, lineOnly(t.Pos()))
				if err != nil {
					return err
				}
				cur = next
				continue
			}
			if last {
				d.Set(step.Member.Value, v)
				// A later union re-runs the schema from its config keys: keep this one.
				if s, ok := cur.(*value.Schema); ok {
					if !containsString(s.ConfigKeys, step.Member.Value) {
						s.ConfigKeys = append(s.ConfigKeys, step.Member.Value)
					}
					// Outside a schema body, `inst.attr = v` evaluates the
					// instance again with v in its config, as the runtime's
					// dict_set_value: its checks run on the new value.
					if e.schema == nil {
						r, err := in.resolveSchemaAt(s, s.ConfigKeys, t.Pos())
						if err != nil {
							return err
						}
						if rs, ok := r.(*value.Schema); ok {
							*s = *rs
						}
					}
				}
				break
			}
			// No dict is created on the way: a missing step is Undefined, and
			// updating it fails, as in 0.12.1.
			next, ok := d.Get(step.Member.Value)
			if !ok {
				next = value.Undefined
			}
			cur = next
			continue
		}
		idx, err := in.eval(e, step.Index)
		if err != nil {
			return err
		}
		switch c := cur.(type) {
		case *value.List:
			n, ok := idx.(value.Int)
			if !ok {
				return errorAt(t.Pos(), errkind.Type, "list indices must be integers, not %s", idx.Type())
			}
			i := int(n)
			if i < 0 {
				i += len(c.Elems)
			}
			if i < 0 || i >= len(c.Elems) {
				return errorAt(lineOnly(t.Pos()), errkind.Evaluation, "index out of bounds: the len is %d but the index is %d", len(c.Elems), int(n))
			}
			if last {
				c.Elems[i] = v
			} else {
				cur = c.Elems[i]
			}
		default:
			d, ok := value.AsDict(cur)
			if !ok {
				return errorAt(lineOnly(t.Pos()), errkind.Evaluation, "'%s' object is not subscriptable with '%s'", cur.Type(), idx.Type())
			}
			key := idx.String()
			if last {
				d.Set(key, v)
			} else {
				next, ok := d.Get(key)
				if !ok {
					next = value.NewDict(1)
					d.Set(key, next)
				}
				cur = next
			}
		}
	}
	return nil
}

// setName binds name in the innermost writable scope.
func (in *Interp) setName(e *env, name string, v value.Value, pos syntax.Position, plain bool) error {
	switch {
	case e.lambda != nil:
		e.lambda.vars[name] = v
		return nil
	case e.schema != nil:
		// A body assignment of a declared attribute is checked against its
		// type even when the instance's config then replaces the value.
		if _, inConfig := e.schema.config.Entry(name); inConfig {
			if a, ok := e.schema.def.attrDecls()[name]; ok && a.ty != nil {
				if _, fits, err := in.tryConvert(a.env, v, a.ty, true); err != nil {
					return err
				} else if !fits {
					return in.attrTypeError(e.schema, a, name, v, pos)
				}
			}
		}
		if err := in.frameSet(e.schema, e, name, v, pos); err != nil {
			return err
		}
		in.frameAssigned(e.schema, name)
		return nil
	case e.pkg != nil:
		ls := e.pkg.global
		if len(in.scopes) > 0 {
			// Run by backtracking inside an open scope (see lazy.go).
			in.bindShadow(e.pkg, name, v)
			return nil
		}
		if plain {
			if at, ok := ls.assigned[name]; ok && at != pos && !isPrivate(name) {
				return errorAt(pos, errkind.Immutable, "Can not change the value of '%s', because it was declared immutable", name)
			}
			ls.assigned[name] = pos
		}
		ls.set(name, v)
		in.lazySet(ls, ls.id(name), func() value.Value { return v })
		return nil
	}
	return errorAt(pos, errkind.Evaluation, "cannot assign '%s' here", name)
}

func (in *Interp) execAugAssign(e *env, s *syntax.AugAssignStmt) error {
	// An imported module's name is no global of the package: 0.12.1 reads
	// it as a target as Undefined (`pkg.a += 1` fails to load a from it).
	module := e.lambda == nil && e.schema == nil && fileImports(e.file, s.Target.Name.Value)
	if e.lambda == nil && e.schema == nil && !isPrivate(s.Target.Name.Value) && !module {
		return errorAt(s.Target.Pos(), errkind.Immutable, "Immutable variable '%s' is modified during compiling", s.Target.Name.Value)
	}
	rhs, err := in.eval(e, s.Value)
	if err != nil {
		return err
	}
	// The target is read as any name is (the lazy scope gives its current
	// value unless it is being backtracked).
	var old value.Value
	if module {
		old, err = in.followTarget(e, s.Target, value.Undefined)
	} else {
		old, err = in.evalTarget(e, s.Target)
	}
	if err != nil {
		return err
	}
	op, _ := s.Op.BinOp()
	nv, err := in.binary(op, old, rhs, in.panicPos(s.Pos()))
	if err != nil {
		return err
	}
	return in.assign(e, s.Target, nv, nil, false)
}

func (in *Interp) evalTarget(e *env, t *syntax.Target) (value.Value, error) {
	v, err := in.lookup(e, t.Name.Value, t.Pos())
	if err != nil {
		return nil, err
	}
	return in.followTarget(e, t, v)
}

// fileImports reports whether f imports a module under name.
func fileImports(f *fileUnit, name string) bool {
	if f == nil {
		return false
	}
	for _, s := range f.body {
		if imp, ok := s.(*syntax.ImportStmt); ok && imp.Name == name {
			return true
		}
	}
	return false
}

// followTarget reads the place t's paths name from v, the value of its name.
func (in *Interp) followTarget(e *env, t *syntax.Target, v value.Value) (value.Value, error) {
	var err error
	for _, step := range t.Paths {
		if step.Member != nil {
			v, err = in.getAttr(v, step.Member.Value, t.Pos())
		} else {
			var idx value.Value
			idx, err = in.eval(e, step.Index)
			if err == nil {
				v, err = in.index(v, idx, t.Pos())
			}
		}
		if err != nil {
			return nil, err
		}
	}
	return v, nil
}

func (in *Interp) execAssert(e *env, s *syntax.AssertStmt) error {
	if s.IfCond != nil {
		c, err := in.eval(e, s.IfCond)
		if err != nil {
			return err
		}
		if !c.Truth() {
			return nil
		}
	}
	t, err := in.eval(e, s.Test)
	if err != nil {
		return err
	}
	if t.Truth() {
		return nil
	}
	msg := ""
	if s.Msg != nil {
		m, err := in.eval(e, s.Msg)
		if err != nil {
			return err
		}
		msg = m.String()
	}
	return &Error{Kind: errkind.Assertion, Msg: msg, Pos: lineOnly(s.Pos())}
}

// execImport binds an import in its file.
func (in *Interp) execImport(f *fileUnit, s *syntax.ImportStmt) error {
	if _, ok := f.imports[s.Name]; ok {
		return nil
	}
	raw := s.RawPath
	if raw == "" && s.Path != nil {
		raw = s.Path.Value
	}
	if m, ok := modules.Load(raw); ok && !strings.HasPrefix(raw, ".") {
		f.imports[s.Name] = m
		return nil
	}
	p, err := in.loadImport(f, raw, s.Pos())
	if err != nil {
		return err
	}
	if p.state == 1 {
		return errorAt(s.Pos(), errkind.RecursiveLoad, "There is a circular import reference between module %s and %s", f.pkg.path, p.path)
	}
	if err := in.evalPackage(p); err != nil {
		return err
	}
	if p.module == nil {
		// Private names stay readable through the module (pkg._x), as in the
		// official engine; they are only left out of the output. The package
		// has run to its end, so its globals no longer change and the module
		// reads them in place (the k8s module's core/v1 has hundreds).
		p.module = &value.Module{Name: p.path, Members: p.global.vals}
	}
	f.imports[s.Name] = p.module
	return nil
}

// loadImport finds and parses the package an import path names.
func (in *Interp) loadImport(f *fileUnit, raw string, pos syntax.Position) (*pkgState, error) {
	// Plugins are not supported: any kcl_plugin.* import fails, whatever is on
	// disk, with the official engine's words for a disabled plugin mode.
	if strings.HasPrefix(raw, "kcl_plugin.") {
		return nil, errorAt(pos, errkind.CannotFindModule, "the plugin package `%s` is not found, please confirm if plugin mode is enabled", raw)
	}
	var dir, pkgPath string
	// shownDir and shownPath spell a missing package as the official loader
	// does: a path with an empty part (a syntax error's) as written.
	var shownDir, shownPath string
	switch {
	case strings.HasPrefix(raw, "."):
		n := len(raw) - len(strings.TrimLeft(raw, "."))
		base := filepath.Dir(f.path)
		for i := 1; i < n; i++ {
			base = filepath.Dir(base)
		}
		rest := strings.TrimLeft(raw, ".")
		if root, ext := in.fileRoot(f); ext == "" {
			if _, inside := within(root, filepath.Dir(f.path)); !inside {
				return nil, importOutsideRoot(root, base, raw, rest, pos)
			}
		}
		dir = base
		if rest != "" {
			dir = importDir(base, strings.Split(rest, "."))
		}
		pkgPath = in.relImportPath(f, dir, raw)
		if pkgPath == raw && n > 1 {
			// Above the program's root the official loader finds no
			// package and names the folder n-2 levels up from the file's,
			// never above the root (....x from root/a/b.k names the root).
			up := filepath.Dir(f.path)
			root, _ := in.fileRoot(f)
			for i := 2; i < n; i++ {
				if _, inside := within(root, filepath.Dir(up)); !inside {
					break
				}
				up = filepath.Dir(up)
			}
			e := errorAt(pos, errkind.CannotFindModule, "Failed to import the module %s from %s/. No KCL files found in the specified folder", raw, up)
			if !in.sb.IsDir(dir) && !in.sb.IsFile(dir+".k") {
				e.missing = true // its package path is empty
				return nil, e
			}
		}
		if strings.Contains(rest, "..") {
			shownDir = base + "/" + strings.ReplaceAll(rest, ".", "/")
			shownPath = rest
			if p := in.relImportPath(f, base, raw); p != "" && p != "." {
				shownPath = p + "." + rest
			}
		}
	default:
		dir, pkgPath = in.resolveAbsImport(f, raw)
		if err := in.foreignImport(f, raw, dir, pos); err != nil {
			return nil, err
		}
	}
	// Every import of a missing package is reported, not only the first.
	if p, ok := in.pkgs[pkgPath]; ok && !p.missing {
		return p, nil
	}
	p := &pkgState{path: pkgPath, dir: dir, types: map[string]*typeAlias{}}
	switch {
	case in.sb.IsFile(dir+".k") && !in.hasKFiles(dir):
		if err := in.addFile(p, dir+".k", false); err != nil {
			return nil, err
		}
	case in.sb.IsDir(dir):
		// A package directory wins over a file of the same name, as in
		// the official loader (pkg/pkg/ over pkg/pkg.k).
		files, err := in.sb.KFiles(dir)
		if err != nil {
			return nil, locate(err, pos)
		}
		for _, kf := range files {
			if err := in.addFile(p, kf, false); err != nil {
				return nil, err
			}
		}
	case in.belowExternalRoot(pkgPath):
		// Nothing there below an external package's root: 0.12.1 loads an
		// empty package (a member of it is the static pass's TypeError).
	default:
		// The loader's diagnostic, as `kcl run` prints it (its runner's
		// "pkgpath … not found in the program" is not printed when the
		// loader has diagnostics).
		if shownDir == "" {
			shownDir, shownPath = dir, pkgPath
		}
		e := errorAt(pos, errkind.CannotFindModule, "Cannot find the module %s from %s", raw, shownDir)
		root, _, _ := strings.Cut(shownPath, ".")
		e.Suggestions = []string{
			fmt.Sprintf("try 'kcl mod add %s' to download the missing package", root),
			"browse more packages at 'https://artifacthub.io'",
		}
		e.missing, e.missingPkg = true, shownPath
		return nil, e
	}
	in.pkgs[pkgPath] = p
	in.prepare(p)
	return p, nil
}

// belowExternalRoot reports a package path below an external package's
// root (k8s.core.v1 of the k8s package).
func (in *Interp) belowExternalRoot(pkgPath string) bool {
	first, rest, ok := strings.Cut(pkgPath, ".")
	return ok && rest != "" && in.cfg.ExternalPkgs[first] != ""
}

// foreignImport is 0.12.1's answer to an import, in an external package,
// of a package that is neither the external package's own nor another
// external one: it loads nothing from the main package's root, where it
// looks. A folder there is "Failed to import" (even with .k files in it),
// anything else "Cannot find the module". Nil for every other import.
func (in *Interp) foreignImport(f *fileUnit, raw, dir string, pos syntax.Position) *Error {
	first, _, _ := strings.Cut(raw, ".")
	if _, ext := in.fileRoot(f); ext == "" || in.cfg.ExternalPkgs[first] != "" || strings.HasPrefix(dir, in.cfg.ExternalPkgs[ext]+string(filepath.Separator)) {
		return nil
	}
	var e *Error
	if in.sb.IsDir(dir) {
		e = errorAt(pos, errkind.CannotFindModule, "Failed to import the module %s from %s. No KCL files found in the specified folder", raw, dir)
	} else {
		e = errorAt(pos, errkind.CannotFindModule, "Cannot find the module %s from %s", raw, dir)
		e.Suggestions = []string{
			fmt.Sprintf("try 'kcl mod add %s' to download the missing package", first),
			"browse more packages at 'https://artifacthub.io'",
		}
	}
	e.missing, e.missingPkg = true, raw
	return e
}

// importOutsideRoot is 0.12.1's answer to a relative import in a main-package
// file outside its package root (a main.k symlinked from another folder): it
// spells the package path from the root, each `..` as dots, and finds no
// package there.
func importOutsideRoot(root, base, raw, rest string, pos syntax.Position) *Error {
	rel, _ := filepath.Rel(root, base)
	pkgPath := strings.ReplaceAll(filepath.ToSlash(rel), "/", ".")
	if rest != "" {
		pkgPath += "." + rest
	}
	// The root joined with the path as a file path; one starting with a
	// separator replaces the root.
	shown := strings.ReplaceAll(pkgPath, ".", "/")
	if !strings.HasPrefix(shown, "/") {
		shown = root + "/" + shown
	}
	e := errorAt(pos, errkind.CannotFindModule, "Cannot find the module %s from %s", raw, shown)
	first, _, _ := strings.Cut(pkgPath, ".")
	e.Suggestions = []string{
		fmt.Sprintf("try 'kcl mod add %s' to download the missing package", first),
		"browse more packages at 'https://artifacthub.io'",
	}
	e.missing, e.missingPkg = true, pkgPath
	return e
}

func (in *Interp) modRoot() string {
	if in.cfg.ModRoot != "" {
		return in.cfg.ModRoot
	}
	return in.cfg.Root
}

var _ = fmt.Sprintf

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// inferType is the type the official checker infers for a first value: basic
// types and lists of them; nil when it would be any.
func inferType(v value.Value) syntax.Type {
	switch x := v.(type) {
	case value.Int:
		return &syntax.BasicType{Kind: syntax.TypeInt}
	case value.Float:
		return &syntax.BasicType{Kind: syntax.TypeFloat}
	case value.Str:
		return &syntax.BasicType{Kind: syntax.TypeStr}
	case value.Bool:
		return &syntax.BasicType{Kind: syntax.TypeBool}
	case *value.List:
		if len(x.Elems) == 0 {
			return nil
		}
		var elems []syntax.Type
		seen := map[string]bool{}
		for _, el := range x.Elems {
			t := inferType(el)
			if _, scalar := t.(*syntax.BasicType); !scalar {
				return nil
			}
			if k := syntax.TypeString(t); !seen[k] {
				seen[k] = true
				elems = append(elems, t)
			}
		}
		if len(elems) == 1 {
			return &syntax.ListType{InnerType: elems[0]}
		}
		return &syntax.ListType{InnerType: &syntax.UnionType{TypeElements: elems}}
	}
	return nil
}

// hasKFiles reports a directory holding .k files.
func (in *Interp) hasKFiles(dir string) bool {
	if !in.sb.IsDir(dir) {
		return false
	}
	files, err := in.sb.KFiles(dir)
	return err == nil && len(files) > 0
}
