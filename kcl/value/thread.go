package value

import (
	"context"
	"io/fs"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
)

// Thread is the context of one program run, passed to every call.
type Thread struct {
	// Ctx carries the run's deadline and cancellation.
	Ctx context.Context
	// Print receives the text of print() calls (a line, without trailing newline
	// handling: the text is exactly what print would write). Nil drops it.
	Print func(string)
	// Options are the top-level arguments for option(): -D name=value and -Y
	// settings, already decoded into values.
	Options map[string]Value
	// OptionsUsed records option() names the program asked for, for `kcl run`
	// option listing. Nil means not recorded.
	OptionsUsed map[string]bool
	// FS is the program root; the file module reads only through it and the
	// evaluator's sandbox guarantees nothing outside the root is reachable
	// (an os.Root's FS() refuses symlinks that leave the root). Nil: no files.
	FS fs.FS
	// WorkDir is the absolute program root as file.workdir() reports it.
	WorkDir string
	// ModRoot is the directory holding kcl.mod (file.modpath()), relative to FS.
	ModRoot string
	// CurrentFile is the file being evaluated, relative to FS (file.current()).
	CurrentFile string
	// Host lets the file module read anywhere, the file, json and yaml
	// modules write files, file.read_env see the environment and net.fqdn
	// ask the resolver. Nil (the controller's case): reads stay in FS, every
	// write is refused, and no environment or resolver is visible.
	Host Host

	StrictRangeCheck bool // -r: integers must fit in 32 bits
	Debug            bool // -d

	// Limits: zero means unlimited.
	MaxDepth       int
	MaxValues      int64
	MaxOutputBytes int64

	depth  int
	values int64
	steps  uint32

	// Manifests is set by manifests.yaml_stream: the program's output is then
	// this text (already planned, final newline included) instead of its
	// top-level values (output.Program handles it).
	Manifests *ManifestsOutput

	// Local is free for the evaluator.
	Local map[string]any
}

// Host is the machine as the official `kcl run` lets a program use it: the
// file module's reads anywhere on it, the writes of the file, json and yaml
// modules, and file.read_env. Only the kcl CLI provides one: it is the
// user's own `kcl run`, which gives programs this. The controller compiles
// programs it does not trust and gives none: its programs read only the
// Thread's FS and write nothing.
//
// Paths are as the program wrote them; relative ones are against the
// process's working directory, as 0.12.1 resolves them. Errors wrap the OS
// error (a syscall.Errno), which the modules print as Rust's io::Error does.
type Host interface {
	// ReadFile reads a whole file (std::fs::read).
	ReadFile(name string) ([]byte, error)
	// Stat describes a file, symlinks followed (std::fs::metadata).
	Stat(name string) (fs.FileInfo, error)
	// Lstat describes a file, a symlink itself (std::fs::symlink_metadata).
	Lstat(name string) (fs.FileInfo, error)
	// ReadDir names the entries of a directory, in any order (std::fs::read_dir).
	ReadDir(name string) ([]string, error)
	// Canonical is the absolute path, symlinks resolved (std::fs::canonicalize).
	Canonical(name string) (string, error)
	// ProgramWorkdir is what file.workdir() returns: the work dir the CLI
	// gives the runtime, "" when it gives none.
	ProgramWorkdir() string

	// WriteFile creates or truncates name and writes data (Rust's File::create).
	WriteFile(name string, data []byte) error
	// AppendFile appends data to name, creating it if missing.
	AppendFile(name string, data []byte) error
	// MkdirAll creates a directory and its missing parents (create_dir_all).
	MkdirAll(name string) error
	// Delete removes a file, or an empty directory when no file is there.
	Delete(name string) error
	// Copy copies a file, or a directory's files and directories recursively.
	Copy(src, dst string) error
	// Rename renames src to dst (rename(2)).
	Rename(src, dst string) error
	// LookupEnv returns an environment variable, if set.
	LookupEnv(key string) (string, bool)
	// FQDN is net.fqdn(): the name the first address of name (of the
	// machine's hostname when empty) resolves back to, name itself when
	// either lookup fails.
	FQDN(name string) string
}

// Enter counts one call level; Leave undoes it. Enter fails past MaxDepth.
func (t *Thread) Enter() error {
	t.depth++
	if t.MaxDepth > 0 && t.depth > t.MaxDepth {
		t.depth--
		return Errorf(errkind.Recursion, "maximum recursion depth exceeded (%d)", t.MaxDepth)
	}
	return nil
}

// Leave undoes Enter.
func (t *Thread) Leave() { t.depth-- }

// Depth is the current call depth.
func (t *Thread) Depth() int { return t.depth }

// Alloc counts n new values and fails past MaxValues; it also notices
// cancellation every few thousand calls so long loops end at the deadline.
func (t *Thread) Alloc(n int) error {
	t.values += int64(n)
	if t.MaxValues > 0 && t.values > t.MaxValues {
		return Errorf(errkind.Limit, "the program allocated more than %d values", t.MaxValues)
	}
	t.steps++
	if t.steps&1023 == 0 {
		return t.Check()
	}
	return nil
}

// Check returns an error if the run was cancelled or passed its deadline.
func (t *Thread) Check() error {
	if t == nil || t.Ctx == nil {
		return nil
	}
	if err := t.Ctx.Err(); err != nil {
		return &Error{Kind: errkind.Limit, Msg: "the program ran past its deadline: " + err.Error(), Err: err}
	}
	return nil
}

// Context returns the run's context, never nil.
func (t *Thread) Context() context.Context {
	if t == nil || t.Ctx == nil {
		return context.Background()
	}
	return t.Ctx
}

// ManifestsOutput is what manifests.yaml_stream recorded.
type ManifestsOutput struct {
	YAML string
	// Planned is the value YAML prints, which --format json encodes.
	Planned Value
	// The plan options yaml_stream switched to.
	SortKeys, ShowHidden, DisableNone bool
	Sep                               string
}
