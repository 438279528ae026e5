// Package kcl is a pure-Go KCL engine: it compiles a KCL program to YAML the way
// `kcl run` does, inside a sandbox (no file access outside its root, Options.Root, no
// network, and neither the file module's reads outside the work dir, writes nor the
// environment unless Options.Host gives them) with a deadline and caps on recursion,
// values and output.
//
// The pipeline is split as in starlark-go: syntax (lexer, parser, AST), then evaluation
// over immutable-once-frozen values, then the YAML emitter.
package kcl

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"
)

// Options mirror the flags of `kcl run`.
type Options struct {
	// WorkDir is the program's directory: relative paths are against it, and
	// the file module reads below it.
	WorkDir string
	// Root is the directory nothing outside of which can be read, symlinks
	// included: settings files, entry files and the files they import (the
	// artifact root, which holds WorkDir). Empty means WorkDir; external
	// packages are read too.
	Root string
	// Files are the entry files, relative to WorkDir, inside Root. Empty means
	// the package in WorkDir (or the [profile] entries of its kcl.mod).
	Files []string
	// Arguments are top-level arguments "name=value" for option() (-D).
	Arguments []string
	// Settings are settings files relative to WorkDir (-Y), inside Root; the
	// entry files they list are relative to WorkDir and must lie inside Root
	// or an external package.
	Settings []string
	// Overrides are override specs such as app.image="v2" (-O).
	Overrides []string
	// PathSelectors select parts of the output such as a.b.c (-S).
	PathSelectors []string
	// ExternalPkgs maps an external package name to its root directory (-E name=path).
	// Run does not resolve kcl.mod dependencies, nor read the package_maps of
	// settings files: the caller resolves packages (kcl/mod, with the names the
	// user gave, see PackageMaps, winning over kcl.mod) and passes them here.
	ExternalPkgs map[string]string
	// FileOverrides replace the content of files (relative to WorkDir) without
	// touching the disk; the image-policy resolver uses it to rewrite literals.
	FileOverrides map[string][]byte
	// OverriddenSource, when set, is given the source of each file of the
	// main package the Overrides change (an absolute path), printed as the
	// official engine prints it: `kcl run -O … -d` writes it back. The
	// controller never sets it.
	OverriddenSource func(path string, src []byte) error

	SortKeys         bool // --sort_keys
	JSON             bool // --format json: Result.JSON instead of Result.YAML
	ShowHidden       bool // --show_hidden
	DisableNone      bool // -n
	StrictRangeCheck bool // -r
	Debug            bool // -d

	Limits Limits

	// Stdout receives print() output; nil discards it.
	Stdout io.Writer

	// Host, when set, lets the program read files anywhere (file.read,
	// exists, size, abs, glob, crypto.filesha256; relative paths against the
	// process's working directory), write files (file.write, mkdir, delete,
	// cp, mv, append; json and yaml dump_to_file) and read the environment
	// (file.read_env), as the official `kcl run` lets it: the kcl CLI sets
	// OSHost, being the user's own `kcl run`. Nil keeps the sandbox: reads
	// are against WorkDir and inside it, every write is refused and read_env
	// finds nothing, which is what the controller needs for programs it
	// does not trust.
	Host Host
}

// Limits bound one run. Zero values take the defaults below.
type Limits struct {
	Timeout        time.Duration // default 30s
	MaxDepth       int           // call depth, default 1000
	MaxOutputBytes int64         // default 64 MiB
	MaxValues      int64         // allocated values, default 50 million
}

// Result is a successful run.
type Result struct {
	// YAML is the output exactly as `kcl run` prints it.
	YAML []byte
	// JSON is the output as `kcl run --format json` prints it (Options.JSON):
	// each document on a line of its own.
	JSON []byte
}

// Error is a compile or run-time error in the program, located where the official
// engine locates it.
type Error struct {
	Kind    string // one of package errkind's kinds, e.g. errkind.Compile
	Message string
	File    string // relative to WorkDir when inside it
	Line    int    // 1-based; 0 when unknown
	Col     int    // 1-based; 0 when unknown
	// EndOfLine marks a syntax error past the end of its line, at the
	// line's last column: `kcl run` draws its caret even at column 1.
	EndOfLine bool
	Note      string // optional hint, printed as "note: ..." after the diagnostic
	// Suggestions are printed as "suggestion: ..." lines after the diagnostic.
	Suggestions []string
	// Labels are further locations of the error (a declaration, a failed check).
	Labels []Label
	// Also are further errors reported with this one, in order.
	Also []*Error
}

// Label is a secondary location of an Error.
type Label struct {
	File      string
	Line, Col int // Col 0 when unknown
	Message   string
}

func (e *Error) Error() string {
	if e.File == "" {
		return fmt.Sprintf("%s: %s", e.Kind, e.Message)
	}
	return fmt.Sprintf("%s: %s:%d:%d: %s", e.Kind, e.File, e.Line, e.Col, e.Message)
}

// Version identifies the engine's semantics; caches key compiled results by it.
const Version = "0.1.0"

// PackageMaps returns the package_maps of settings files (relative to workDir,
// inside root as for Options.Root; empty root means workDir), the settings'
// equivalent of -E name=path; relative package paths are against workDir.
// Later files win.
func PackageMaps(root, workDir string, settingsFiles []string) (map[string]string, error) {
	workDir, err := filepath.Abs(workDir)
	if err != nil {
		return nil, fmt.Errorf("kcl: work dir: %w", err)
	}
	settingsRoot := workDir
	if root != "" {
		if settingsRoot, err = filepath.Abs(root); err != nil {
			return nil, fmt.Errorf("kcl: root: %w", err)
		}
	}
	st, err := loadSettings(settingsRoot, workDir, settingsFiles)
	if err != nil {
		return nil, err
	}
	for name, p := range st.packageMaps {
		if !filepath.IsAbs(p) {
			st.packageMaps[name] = filepath.Join(workDir, p)
		}
	}
	return st.packageMaps, nil
}

// SettingsEntries returns the entry files settings files list
// (kcl_cli_configs.files), as written, and the settings file, as given, that
// lists files last: `kcl run` reads them relative to its directory. The
// settings are relative to workDir, inside root as for Options.Root (empty
// root means workDir).
func SettingsEntries(root, workDir string, settingsFiles []string) (files []string, listedBy string, err error) {
	if workDir, err = filepath.Abs(workDir); err != nil {
		return nil, "", fmt.Errorf("kcl: work dir: %w", err)
	}
	settingsRoot := workDir
	if root != "" {
		if settingsRoot, err = filepath.Abs(root); err != nil {
			return nil, "", fmt.Errorf("kcl: root: %w", err)
		}
	}
	for _, f := range settingsFiles {
		st, err := loadSettings(settingsRoot, workDir, []string{f})
		if err != nil {
			return nil, "", err
		}
		if len(st.files) > 0 {
			files, listedBy = append(files, st.files...), f
		}
	}
	return files, listedBy, nil
}

// Run compiles and evaluates a program. Errors in the program are *Error.
func Run(ctx context.Context, opts Options) (*Result, error) {
	return run(ctx, opts)
}
