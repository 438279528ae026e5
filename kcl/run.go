package kcl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	"github.com/kcl-lang/flux-kcl-controller/kcl/eval"
	"github.com/kcl-lang/flux-kcl-controller/kcl/mod"
	"github.com/kcl-lang/flux-kcl-controller/kcl/output"
	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

// Defaults for Limits.
const (
	defaultTimeout        = 30 * time.Second
	defaultMaxDepth       = 1000
	defaultMaxOutputBytes = 64 << 20
	defaultMaxValues      = 50_000_000
)

// InternalErrorKind marks an engine bug turned into an error instead of a crash.
const InternalErrorKind = errkind.Internal

func run(ctx context.Context, opts Options) (res *Result, err error) {
	// A bug in the engine must not take the host process down.
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, &Error{Kind: InternalErrorKind, Message: fmt.Sprintf("kcl engine panic: %v", r)}
		}
	}()
	lim := opts.Limits
	if lim.Timeout <= 0 {
		lim.Timeout = defaultTimeout
	}
	if lim.MaxDepth <= 0 {
		lim.MaxDepth = defaultMaxDepth
	}
	if lim.MaxOutputBytes <= 0 {
		lim.MaxOutputBytes = defaultMaxOutputBytes
	}
	if lim.MaxValues <= 0 {
		lim.MaxValues = defaultMaxValues
	}
	ctx, cancel := context.WithTimeout(ctx, lim.Timeout)
	defer cancel()

	root, err := filepath.Abs(opts.WorkDir)
	if err != nil {
		return nil, fmt.Errorf("kcl: work dir: %w", err)
	}
	// sandbox is what the program may read: settings files, entry files and
	// what they import lie inside it (the artifact, in the controller).
	sandbox := root
	if opts.Root != "" {
		if sandbox, err = filepath.Abs(opts.Root); err != nil {
			return nil, fmt.Errorf("kcl: root: %w", err)
		}
		if _, ok := within(sandbox, root); !ok {
			return nil, fmt.Errorf("kcl: the work dir %s is outside the root %s", root, sandbox)
		}
	}
	st, err := loadSettings(sandbox, root, opts.Settings)
	if err != nil {
		return nil, err
	}
	files, listedBy := opts.Files, "the entry files"
	if len(files) == 0 {
		files, listedBy = st.files, "a settings file"
	}
	modRoot := findModRoot(root, root)
	if len(files) == 0 {
		files, listedBy = profileEntries(modRoot), "kcl.mod"
	}
	// ${KCL_MOD} is the package root of the plain entries (entryModRoot). A
	// settings file's list is expanded even when the command line's entries
	// replace it, as 0.12.1 does: its error is the run's.
	if len(opts.Files) > 0 && len(st.files) > 0 {
		if _, err := entryModRoot(st.files, root, sandbox); err != nil {
			return nil, err
		}
	}
	kclMod, err := entryModRoot(files, root, sandbox)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		files = []string{"."}
	}
	ext := map[string]string{}
	for name, p := range opts.ExternalPkgs {
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		ext[name] = p
	}
	// An external package is one only when its root holds a kcl.mod, as in
	// the official loader: a name mapped to a folder without one (or to no
	// folder: a settings file's package_maps written for another work dir)
	// is not a package, and its imports resolve as if it were not given.
	importable := map[string]string{}
	for name, p := range ext {
		if fi, err := os.Stat(filepath.Join(p, "kcl.mod")); err == nil && !fi.IsDir() {
			importable[name] = p
		}
	}
	var absFiles []string
	var plain []bool // an entry as written, not a ${…KCL_MOD} one
	entryPkgs := map[string]string{}
	for _, f := range files {
		plain = append(plain, !ModRelative(f))
		if tail, ok := strings.CutPrefix(f, "${KCL_MOD}"); ok {
			if kclMod == "" {
				return nil, &Error{Kind: errkind.Evaluation, Message: fmt.Sprintf("Can not find %s in the path: ", f)}
			}
			f = kclMod + tail
		}
		// ${name:KCL_MOD}/file.k is an entry file of external package name;
		// 0.12.1 drops one whose package is not given or whose file is not
		// there (it finds no package root for it).
		extName := ""
		if name, tail, ok := pkgRelative(f); ok {
			dir, known := ext[name]
			if _, err := os.Stat(dir + tail); !known || err != nil || !insideAny(dir+tail, sandbox, ext) {
				plain = plain[:len(plain)-1]
				continue
			}
			f, extName = dir+tail, name
		}
		shown := f
		if !filepath.IsAbs(f) {
			f = filepath.Join(root, f)
		}
		// Checked before any stat: the engine's sandbox would refuse to read
		// such a file, and nothing outside it is even looked at.
		if !insideAny(f, sandbox, ext) {
			return nil, &Error{Kind: PathRefusedKind, Message: fmt.Sprintf("entry file %q listed in %s is outside the program root", shown, listedBy)}
		}
		absFiles = append(absFiles, filepath.Clean(f))
		if extName != "" {
			entryPkgs[filepath.Clean(f)] = extName
		}
	}
	absFiles = rootedEntries(absFiles, plain, sandbox)
	// The package root is the nearest kcl.mod above the first entry, inside
	// the root; without one each entry file imports from its own directory.
	modFile := false
	// A folder entry is searched from itself: its own kcl.mod, if any, is
	// the package root, not one above it.
	first := filepath.Dir(absFiles[0])
	fi, statErr := os.Stat(absFiles[0])
	entryIsDir := statErr == nil && fi.IsDir()
	if entryIsDir {
		first = absFiles[0]
	} else if real, err := filepath.EvalSymlinks(absFiles[0]); err == nil && insideAny(real, sandbox, ext) {
		// A symlinked entry file is read where it points (as 0.12.1 reads
		// it), and its package root is searched from there; a link leaving
		// the sandbox is refused when it is read.
		first = filepath.Dir(real)
	}
	if m := findModRoot(first, sandbox); m != "" {
		modRoot, modFile = m, true
	} else if entryIsDir {
		modRoot = absFiles[0]
	} else {
		modRoot = filepath.Dir(absFiles[0])
	}

	optionValues := map[string]value.Value{}
	for _, kv := range st.options {
		optionValues[kv.Key] = kv.Value
	}
	for _, a := range opts.Arguments {
		name, v, ok := strings.Cut(a, "=")
		if !ok || strings.TrimSpace(name) == "" {
			return nil, &Error{Kind: errkind.Evaluation, Message: "Invalid value for top level arguments"}
		}
		optionValues[name] = argumentValue(v)
	}

	overrides := map[string][]byte{}
	for rel, b := range opts.FileOverrides {
		overrides[filepath.Join(root, rel)] = b
	}
	var stdout io.Writer = io.Discard
	if opts.Stdout != nil {
		stdout = opts.Stdout
	}
	th := &value.Thread{
		Ctx:              ctx,
		Print:            func(s string) { io.WriteString(stdout, s) },
		Options:          optionValues,
		WorkDir:          root,
		Host:             opts.Host,
		StrictRangeCheck: opts.StrictRangeCheck || st.strictRange,
		Debug:            opts.Debug,
		MaxDepth:         lim.MaxDepth,
		MaxValues:        lim.MaxValues,
		MaxOutputBytes:   lim.MaxOutputBytes,
	}
	if rel, err := filepath.Rel(root, modRoot); err == nil {
		th.ModRoot = rel
	}
	cfg := &eval.Config{
		Root:          root,
		Sandbox:       sandbox,
		Files:         absFiles,
		ModRoot:       modRoot,
		ModFile:       modFile,
		ExternalPkgs:  importable,
		EntryPkgs:     entryPkgs,
		FileOverrides: overrides,
		Options:       optionValues,
		Overrides:     firstNonEmpty(opts.Overrides, st.overrides),
		Selectors:     firstNonEmpty(opts.PathSelectors, st.selectors),
		ShowHidden:    opts.ShowHidden || st.showHidden,
		Thread:        th,
	}
	if opts.OverriddenSource != nil {
		cfg.OverriddenFile = func(path string, m *syntax.Module) error {
			return opts.OverriddenSource(path, syntax.Print(m))
		}
	}
	top, err := eval.Run(ctx, cfg)
	if err != nil {
		return nil, toError(err, root)
	}
	outOpts := output.Options{
		SortKeys:    opts.SortKeys || st.sortKeys,
		ShowHidden:  opts.ShowHidden || st.showHidden,
		DisableNone: opts.DisableNone || st.disableNone,
		MaxBytes:    lim.MaxOutputBytes,
	}
	if opts.JSON {
		out, err := output.JSONProgram(th, top, outOpts)
		if errors.Is(err, output.ErrOutputTooLarge) {
			return nil, &Error{Kind: errkind.Limit, Message: fmt.Sprintf("the output is larger than %d bytes", lim.MaxOutputBytes)}
		}
		return &Result{JSON: out}, nil
	}
	// The printer stops at the cap: an output bomb costs the cap, not its own size.
	out, err := output.Program(th, top, outOpts)
	if errors.Is(err, output.ErrOutputTooLarge) || (err == nil && int64(len(out)) > lim.MaxOutputBytes) {
		return nil, &Error{Kind: errkind.Limit, Message: fmt.Sprintf("the output is larger than %d bytes", lim.MaxOutputBytes)}
	}
	if err != nil {
		return nil, toError(err, root)
	}
	return &Result{YAML: out}, nil
}

// insideAny reports whether p lies inside root or one of the external packages.
func insideAny(p, root string, ext map[string]string) bool {
	if _, ok := within(root, p); ok {
		return true
	}
	for _, d := range ext {
		if _, ok := within(d, p); ok {
			return true
		}
	}
	return false
}

func firstNonEmpty(a, b []string) []string {
	if len(a) > 0 {
		return a
	}
	return b
}

// toError turns an evaluator error into *Error with a path relative to root.
func toError(err error, root string) error {
	var ee *eval.Error
	if errors.As(err, &ee) {
		relFile := func(file string) string {
			if rel, rerr := filepath.Rel(root, file); rerr == nil && filepath.IsAbs(file) && !strings.HasPrefix(rel, "..") {
				return rel
			}
			return file
		}
		ke := &Error{Kind: ee.Kind, Message: ee.Msg, File: relFile(ee.Pos.File), Line: ee.Pos.Line, Col: ee.Pos.Col, EndOfLine: ee.EndOfLine, Note: ee.Note, Suggestions: ee.Suggestions}
		for _, l := range ee.Labels {
			ke.Labels = append(ke.Labels, Label{File: relFile(l.Pos.File), Line: l.Pos.Line, Col: l.Pos.Col, Message: l.Msg})
		}
		for _, a := range ee.Also {
			if ae, ok := toError(a, root).(*Error); ok {
				ke.Also = append(ke.Also, ae)
			}
		}
		return ke
	}
	var se *syntax.Error
	if errors.As(err, &se) {
		return toError(&eval.Error{Kind: se.Kind, Msg: se.Msg, Pos: se.Pos, EndOfLine: se.EndOfLine}, root)
	}
	var ve *value.Error
	if errors.As(err, &ve) {
		return &Error{Kind: ve.Kind, Message: ve.Msg}
	}
	var ke *Error
	if errors.As(err, &ke) {
		return ke
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &Error{Kind: errkind.Timeout, Message: err.Error()}
	}
	return err
}

// argumentValue decodes a -D value like the official CLI: JSON as is, True/False/
// None, numbers and quoted strings as literals, anything else a string.
func argumentValue(s string) value.Value {
	if v, err := decodeJSON([]byte(s)); err == nil {
		return v
	}
	t := strings.TrimSpace(s)
	switch t {
	case "True":
		return value.True
	case "False":
		return value.False
	case "None", "Undefined":
		return value.None
	}
	if len(t) >= 2 && (t[0] == '\'' && t[len(t)-1] == '\'') {
		return value.Str(t[1 : len(t)-1])
	}
	return value.Str(s)
}

// decodeJSON decodes JSON keeping object key order.
func decodeJSON(b []byte) (value.Value, error) {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	v, err := decodeJSONValue(dec)
	if err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("trailing data")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data")
	}
	return v, nil
}

func decodeJSONValue(dec *json.Decoder) (value.Value, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			d := value.NewDict(4)
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := decodeJSONValue(dec)
				if err != nil {
					return nil, err
				}
				d.Set(k, v)
			}
			_, err := dec.Token()
			return d, err
		case '[':
			var elems []value.Value
			for dec.More() {
				v, err := decodeJSONValue(dec)
				if err != nil {
					return nil, err
				}
				elems = append(elems, v)
			}
			_, err := dec.Token()
			return value.NewList(elems), err
		}
	case string:
		return value.Str(t), nil
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return value.Int(i), nil
		}
		f, err := t.Float64()
		return value.Float(f), err
	case bool:
		return value.Bool(t), nil
	case nil:
		return value.None, nil
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}

// ModRelative reports an entry written ${KCL_MOD}/... or
// ${name:KCL_MOD}/..., which stands for a path below a package root.
func ModRelative(f string) bool {
	return strings.HasPrefix(f, "${") && strings.Contains(f, "KCL_MOD}")
}

// pkgRelative splits a ${name:KCL_MOD}/tail entry.
func pkgRelative(f string) (name, tail string, ok bool) {
	rest, ok := strings.CutPrefix(f, "${")
	if !ok {
		return "", "", false
	}
	return strings.Cut(rest, ":KCL_MOD}")
}

// entryModRoot is what ${KCL_MOD} stands for in a list of entries, found as
// 0.12.1's get_compile_entries_from_paths finds it: the package root of
// the plain entries (each one's nearest kcl.mod, or a file's own folder)
// when they share one, the work dir's when they do not, "" when they have
// none. A list of mod-relative entries alone is refused with the message
// 0.12.1 gives for its first one.
func entryModRoot(files []string, root, sandbox string) (string, error) {
	roots := map[string]bool{}
	var last string
	plain := false
	for _, f := range files {
		if ModRelative(f) {
			continue
		}
		plain = true
		if !filepath.IsAbs(f) {
			f = filepath.Join(root, f)
		}
		if r := pkgRoot(f, sandbox); r != "" {
			roots[r], last = true, r
		}
	}
	switch {
	case !plain && len(files) > 0 && strings.HasPrefix(files[0], "${KCL_MOD}"):
		return "", &Error{Kind: errkind.Evaluation, Message: fmt.Sprintf("Can not find %s in the path: ", files[0])}
	case !plain && len(files) > 0:
		return "", &Error{Kind: errkind.Plain, Message: "Cannot find the kcl file, please check the file path " + files[0]}
	case len(roots) == 1:
		return last, nil
	case len(roots) > 1:
		if r := pkgRoot(root, sandbox); r != "" {
			return r, nil
		}
		return root, nil
	}
	return "", nil
}

// rootedEntries is what 0.12.1 compiles of a list of entries: the plain
// ones that have a package root (pkgRoot: an existing .k file, or a path
// below a kcl.mod) and every mod-relative one; all of them when no plain
// one has a root. A folder without a kcl.mod next to a file, or a file that
// is not there next to one that is, is dropped.
func rootedEntries(files []string, plain []bool, sandbox string) []string {
	rooted := make([]bool, len(files))
	anyRooted := false
	for i, f := range files {
		rooted[i] = !plain[i] || pkgRoot(f, sandbox) != ""
		anyRooted = anyRooted || plain[i] && rooted[i]
	}
	if !anyRooted {
		return files
	}
	kept := files[:0:0]
	for i, f := range files {
		if rooted[i] {
			kept = append(kept, f)
		}
	}
	return kept
}

// MissingEntry is the entry 0.12.1 refuses as missing in a list written
// relative to dir: when no entry has a package root, the first one that is
// not there; "" when every entry is there or one has a root (Run then drops
// those without).
func MissingEntry(files []string, dir string) string {
	var abs []string
	var plain []bool
	for _, f := range files {
		plain = append(plain, !ModRelative(f))
		if !filepath.IsAbs(f) {
			f = filepath.Join(dir, f)
		}
		abs = append(abs, f)
	}
	sep := string(filepath.Separator)
	if len(rootedEntries(abs, plain, sep)) < len(abs) {
		return ""
	}
	for i, f := range abs {
		if _, err := os.Stat(f); plain[i] && err != nil {
			return files[i]
		}
	}
	return ""
}

// pkgRoot is 0.12.1's get_pkg_root, inside the sandbox: the nearest folder
// holding a kcl.mod at or above p, else the folder of a .k file that is
// there, else "".
func pkgRoot(p, sandbox string) string {
	// Nothing outside the sandbox is looked at (the entry is refused later).
	if _, inside := within(sandbox, p); !inside {
		return ""
	}
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	if m := findModRoot(p, sandbox); m != "" {
		return m
	}
	if strings.HasSuffix(p, ".k") {
		return filepath.Dir(p)
	}
	return ""
}

// findModRoot walks up from dir (not above limit) to a directory with kcl.mod.
func findModRoot(dir, limit string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "kcl.mod")); err == nil {
			return d
		}
		if d == limit || filepath.Dir(d) == d || !strings.HasPrefix(d, limit) {
			return ""
		}
	}
}

// profileEntries reads `[profile] entries = [...]` from kcl.mod.
func profileEntries(modRoot string) []string {
	if modRoot == "" {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(modRoot, mod.ModFileName))
	if err != nil {
		return nil
	}
	p, err := mod.ParseProfile(b)
	if err != nil {
		return nil
	}
	entries := p.Entries
	for i, e := range entries {
		if !filepath.IsAbs(e) && !strings.HasPrefix(e, "${") {
			entries[i] = filepath.Join(modRoot, e)
		}
	}
	return entries
}
