// Command kcl is a `kcl run` look-alike over the project's pure-Go KCL engine:
//
//	kcl run [FILES...] [-D name=value]... [-Y settings.yaml]... [-E name=path]...
//	        [-S selector]... [-O override]... [-n] [-k] [-H] [-r] [-d]
//
// It prints print() output and then the YAML on stdout, and diagnostics on stderr
// the way the official CLI renders them, exiting 1 on error. With -O and -d it
// writes each file the overrides change back, printed as 0.12.1 prints it.
// Programs may write files and read the environment, as under the official CLI.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl"
)

func main() {
	os.Exit(runCLI(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage: kcl run [FILES...] [options]
  -D, --argument k=v        top-level argument for option() (repeatable)
  -Y, --setting f.yaml ...  settings file(s) (repeatable)
  -S, --path_selector p     path selector (repeatable)
  -O, --overrides spec      override spec (repeatable)
  -E, --external name=path  external package mapping (repeatable)
  -o, --output file         write the result to a file instead of stdout
  -f, --format yaml|json    output format (default yaml)
      --vendor              use the vendored kcl.mod dependencies only (no network)
  -n, --disable_none   -k, --sort_keys   -H, --show_hidden   -r, --strict_range_check   -d, --debug`

func runCLI(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "version" || args[0] == "--version" || args[0] == "-V") {
		fmt.Fprintln(stdout, "kcl (pure Go) "+kcl.Version)
		return 0
	}
	if len(args) > 0 && args[0] == "run" {
		args = args[1:]
	}
	cl, err := parseArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n\n%s\n", err, usage)
		return 2
	}
	if cl.help {
		fmt.Fprintln(stdout, usage)
		return 0
	}
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 1
	}
	opts, err := cl.options(cwd)
	var missing *missingFileError
	if errors.As(err, &missing) {
		fmt.Fprintf(stderr, "error[E3M38]: %v\n", err)
		return 1
	}
	if err != nil {
		fmt.Fprintf(stderr, "error[E3M38]: EvaluationError\n%v\n", err)
		return 1
	}
	opts.Stdout = stdout
	if cl.debug && len(cl.overrides) > 0 {
		// 0.12.1 writes each file an override changed back, printed anew,
		// before it compiles the program (the README's `-O … -d`).
		opts.OverriddenSource = writeBack
	}
	if err := addPackages(context.Background(), &opts, cwd, cl.vendor); err != nil {
		fmt.Fprintf(stderr, "error[E3M38]: DependencyError\n%v\n", err)
		return 1
	}
	res, err := kcl.Run(context.Background(), opts)
	if err != nil {
		var kerr *kcl.Error
		if errors.As(err, &kerr) {
			fmt.Fprint(stderr, renderDiagnostic(kerr, opts.WorkDir))
		} else {
			fmt.Fprintf(stderr, "error[E3M38]: %v\n", err)
		}
		return 1
	}
	// 0.12.1 judges the format once the program ran.
	if f := strings.ToLower(cl.format); f != "" && f != "yaml" && f != "json" {
		fmt.Fprintf(stderr, "Invalid format '%s', expected 'yaml' or 'json'\n", cl.format)
		return 1
	}
	out := res.YAML
	if opts.JSON {
		out = res.JSON
	}
	if len(out) > 0 && !strings.HasSuffix(string(out), "\n") {
		out = append(out, '\n')
	}
	if cl.output != "" {
		// -o writes what would be printed but its last line break.
		if err := os.WriteFile(cl.output, out[:max(len(out)-1, 0)], 0o644); err != nil {
			fmt.Fprintf(stderr, "error[E3M38]: %v\n", err)
			return 1
		}
		return 0
	}
	stdout.Write(out)
	return 0
}

// commandLine holds the parsed flags of `kcl run`.
type commandLine struct {
	files, arguments, settings, selectors, overrides, externals []string
	disableNone, sortKeys, showHidden, strictRange, debug, help bool
	vendor                                                      bool
	// output is -o's file; format -f's yaml or json (any case).
	output, format string
}

var settingsFile = func(s string) bool {
	l := strings.ToLower(s)
	return strings.HasSuffix(l, ".yaml") || strings.HasSuffix(l, ".yml") || strings.HasSuffix(l, ".json")
}

func parseArgs(args []string) (*commandLine, error) {
	cl := &commandLine{}
	rest := append([]string(nil), args...)
	addValue := func(name, v string) {
		switch name {
		case "D":
			cl.arguments = append(cl.arguments, v)
		case "Y":
			cl.settings = append(cl.settings, v)
			// `-Y a.yaml b.yaml` takes the following settings-looking words too.
			for len(rest) > 0 && !strings.HasPrefix(rest[0], "-") && settingsFile(rest[0]) {
				cl.settings = append(cl.settings, rest[0])
				rest = rest[1:]
			}
		case "S":
			cl.selectors = append(cl.selectors, v)
		case "O":
			cl.overrides = append(cl.overrides, v)
		case "E":
			cl.externals = append(cl.externals, v)
		case "o":
			cl.output = v
		case "f":
			cl.format = v
		}
	}
	setFlag := func(c byte) bool {
		switch c {
		case 'n':
			cl.disableNone = true
		case 'k':
			cl.sortKeys = true
		case 'H':
			cl.showHidden = true
		case 'r':
			cl.strictRange = true
		case 'd':
			cl.debug = true
		case vendorFlag:
			cl.vendor = true
		case 'v', 'q', 'R', 'K', 'l', 'p':
		default:
			return false
		}
		return true
	}
	longValue := map[string]string{"argument": "D", "setting": "Y", "path_selector": "S", "path-selector": "S",
		"overrides": "O", "override": "O", "external": "E", "output": "o", "format": "f", "target": "t", "tag": "t", "error_format": "t"}
	longFlag := map[string]byte{"disable_none": 'n', "disable-none": 'n', "sort_keys": 'k', "sort-keys": 'k',
		"show_hidden": 'H', "show-hidden": 'H', "strict_range_check": 'r', "strict-range-check": 'r', "debug": 'd',
		"verbose": 'v', "fast_eval": 'K', "recursive": 'R', "quiet": 'q', "no_style": 'q', "vendor": vendorFlag}
	for len(rest) > 0 {
		t := rest[0]
		rest = rest[1:]
		switch {
		case t == "--":
			cl.files = append(cl.files, rest...)
			rest = nil
		case t == "-h" || t == "--help":
			cl.help = true
		case strings.HasPrefix(t, "--"):
			name, val, hasVal := strings.Cut(t[2:], "=")
			if short, ok := longValue[name]; ok {
				if !hasVal {
					if len(rest) == 0 {
						return nil, fmt.Errorf("a value is required for '--%s' but none was supplied", name)
					}
					val, rest = rest[0], rest[1:]
				}
				addValue(short, val)
			} else if c, ok := longFlag[name]; ok && !hasVal {
				setFlag(c)
			} else {
				return nil, fmt.Errorf("unexpected argument '%s' found", t)
			}
		case strings.HasPrefix(t, "-") && len(t) > 1:
			for i := 1; i < len(t); i++ {
				c := t[i]
				if strings.IndexByte("DYSOEoft", c) >= 0 {
					val := strings.TrimPrefix(t[i+1:], "=")
					if val == "" {
						if len(rest) == 0 {
							return nil, fmt.Errorf("a value is required for '-%c' but none was supplied", c)
						}
						val, rest = rest[0], rest[1:]
					}
					addValue(string(c), val)
					break
				}
				if !setFlag(c) {
					return nil, fmt.Errorf("unexpected argument '%s' found", t)
				}
			}
		default:
			cl.files = append(cl.files, t)
		}
	}
	return cl, nil
}

// options turns the command line into kcl.Options rooted at cwd.
func (cl *commandLine) options(cwd string) (kcl.Options, error) {
	opts := kcl.Options{
		WorkDir:          cwd,
		Arguments:        cl.arguments,
		Overrides:        cl.overrides,
		PathSelectors:    cl.selectors,
		DisableNone:      cl.disableNone,
		SortKeys:         cl.sortKeys,
		JSON:             strings.EqualFold(cl.format, "json"),
		ShowHidden:       cl.showHidden,
		StrictRangeCheck: cl.strictRange,
		Debug:            cl.debug,
	}
	for _, spec := range cl.arguments {
		if !validKV(spec) {
			return opts, errors.New("Invalid value for top level arguments")
		}
	}
	for _, spec := range cl.externals {
		if !validKV(spec) {
			return opts, errors.New("Invalid value for top level arguments")
		}
		name, p, _ := strings.Cut(spec, "=")
		if opts.ExternalPkgs == nil {
			opts.ExternalPkgs = map[string]string{}
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		opts.ExternalPkgs[name] = p
	}
	opts.Settings = cl.settings
	if len(opts.Settings) == 0 {
		if _, err := os.Stat(filepath.Join(cwd, "kcl.yaml")); err == nil {
			opts.Settings = []string{"kcl.yaml"}
		}
	}
	opts.Files = cl.files
	// `kcl run` reads any file the program names, symlinks followed: the
	// engine's sandbox is the whole file system.
	opts.Root = string(filepath.Separator)
	// It writes the files the program writes (file.write, json and yaml
	// dump_to_file…), relative paths against the working directory, and lets
	// file.read_env see the environment: this is the user's own `kcl run`,
	// not the controller's sandbox.
	host := kcl.OSHost{}
	// A settings file that cannot be read is reported by the run.
	var listed []string
	var listedBy string
	if len(opts.Settings) > 0 {
		var err error
		if listed, listedBy, err = kcl.SettingsEntries(opts.Root, cwd, opts.Settings); err != nil {
			listed, listedBy = nil, ""
		}
	}
	if listedBy != "" {
		// file.workdir() is the directory of the last settings file that
		// lists entries, as written ("" for kcl.yaml), entries given on the
		// command line or not: the work dir 0.12.1's CLI gives the runtime.
		host.Workdir = pathParent(listedBy)
	}
	opts.Host = host
	if len(opts.Files) == 0 && len(opts.Settings) > 0 {
		// Entries listed in settings files are relative to the directory of
		// the settings file that lists them (the last one), as the official
		// CLI's work dir; they are then given as on the command line.
		if len(listed) > 0 {
			base := filepath.Dir(listedBy)
			if !filepath.IsAbs(base) {
				base = filepath.Join(cwd, base)
			}
			// 0.12.1 first loads the settings against the working
			// directory, where the listed files are looked for too.
			if f := kcl.MissingEntry(listed, cwd); f != "" {
				return opts, fmt.Errorf("Cannot find the kcl file, please check the file path %s", f)
			}
			for _, f := range listed {
				if !kcl.ModRelative(f) && !filepath.IsAbs(f) {
					f = filepath.Join(base, f)
				}
				opts.Files = append(opts.Files, f)
			}
		}
	} else {
		if f := kcl.MissingEntry(opts.Files, cwd); f != "" {
			return opts, &missingFileError{path: f}
		}
		// The settings files' list is loaded too, and refused alike.
		if f := kcl.MissingEntry(listed, cwd); f != "" {
			return opts, fmt.Errorf("Cannot find the kcl file, please check the file path %s", f)
		}
	}
	// The work dir must hold every entry file: widen it from the working
	// directory to the kcl.mod root or to a common ancestor when files sit above.
	root := cwd
	if modRoot := findModRoot(cwd); modRoot != "" {
		root = modRoot
	}
	for _, f := range append(append([]string(nil), opts.Files...), opts.Settings...) {
		if kcl.ModRelative(f) {
			continue
		}
		abs := f
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(cwd, f)
		}
		for !within(root, abs) {
			root = filepath.Dir(root)
		}
	}
	if root != cwd {
		opts.WorkDir = root
		rel, _ := filepath.Rel(root, cwd)
		opts.Files = rebase(opts.Files, cwd, root)
		opts.Settings = rebase(opts.Settings, cwd, root)
		if len(cl.files) == 0 && len(opts.Settings) == 0 {
			opts.Files = []string{rel}
		}
	}
	return opts, nil
}

// pathParent is Rust's Path::parent of a file path: "" for a bare name,
// "/" for one under the root, the path as written otherwise.
func pathParent(p string) string {
	p = strings.TrimRight(p, "/")
	i := strings.LastIndex(p, "/")
	switch {
	case i < 0:
		return ""
	case i == 0:
		return "/"
	}
	return p[:i]
}

// missingFileError is an entry file on the command line that does not exist:
// 0.12.1 prints it without an error kind.
type missingFileError struct{ path string }

func (e *missingFileError) Error() string {
	return "Cannot find the kcl file, please check the file path " + e.path
}

func rebase(paths []string, cwd, root string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		if kcl.ModRelative(p) {
			out[i] = p
			continue
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		r, err := filepath.Rel(root, p)
		if err != nil {
			r = p
		}
		out[i] = r
	}
	return out
}

func within(root, p string) bool {
	r, err := filepath.Rel(root, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, "../")
}

func findModRoot(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "kcl.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// validKV follows the official CLI: exactly one '=' with both sides non-blank.
func validKV(spec string) bool {
	parts := strings.Split(spec, "=")
	return len(parts) == 2 && strings.TrimSpace(parts[0]) != "" && strings.TrimSpace(parts[1]) != ""
}

// writeBack replaces a file's content, keeping its mode.
func writeBack(path string, src []byte) error {
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.WriteFile(path, src, mode); err != nil {
		return fmt.Errorf("write the overridden file: %w", err)
	}
	return nil
}
