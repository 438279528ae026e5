package modules

import (
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

// errOutsideRoot is returned for paths that leave the program root.
var errOutsideRoot = errors.New("the path is outside the program root")

// ioText renders an fs error the way Rust's io::Error prints the common cases.
func ioText(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "No such file or directory (os error 2)"
	case errors.Is(err, fs.ErrPermission):
		return "Permission denied (os error 13)"
	case errors.Is(err, errOutsideRoot):
		return errOutsideRoot.Error()
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// rootPath maps a program path (relative to the work dir, or absolute inside it)
// to a path in the Thread's FS. Anything that would leave the root is refused;
// the FS itself (os.Root based, set by the evaluator) stops symlink escapes.
func rootPath(t *value.Thread, p string) (string, error) {
	if t == nil || t.FS == nil {
		return "", errOutsideRoot
	}
	if filepath.IsAbs(p) {
		if t.WorkDir == "" {
			return "", errOutsideRoot
		}
		rel, err := filepath.Rel(t.WorkDir, p)
		if err != nil {
			return "", errOutsideRoot
		}
		p = rel
	}
	p = path.Clean(filepath.ToSlash(p))
	if p == ".." || strings.HasPrefix(p, "../") || !fs.ValidPath(p) {
		return "", errOutsideRoot
	}
	return p, nil
}

func readFile(t *value.Thread, p string) ([]byte, error) {
	rp, err := rootPath(t, p)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	b, err := fs.ReadFile(t.FS, rp)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	if t.MaxOutputBytes > 0 && int64(len(b)) > t.MaxOutputBytes {
		return nil, &fs.PathError{Op: "read", Path: p, Err: errors.New("file too large")}
	}
	return b, nil
}

func absPath(t *value.Thread, rel string) string {
	if t == nil || t.WorkDir == "" {
		return rel
	}
	if rel == "." || rel == "" {
		return t.WorkDir
	}
	return filepath.Join(t.WorkDir, filepath.FromSlash(rel))
}

func init() {
	m := newModule("file")
	def(m, "read", func(t *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		p, ok := strArg(args, kwargs, 0, "filepath")
		if !ok {
			return nil, evalErr("read() takes exactly one argument (0 given)")
		}
		b, err := readFile(t, p)
		if err != nil {
			return nil, evalErr("failed to access the file '%s': %s", p, ioText(err))
		}
		return value.Str(b), nil
	})
	def(m, "glob", func(t *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		pattern, ok := strArg(args, kwargs, 0, "pattern")
		if !ok {
			return nil, evalErr("glob() takes exactly one argument (0 given)")
		}
		abs := filepath.IsAbs(pattern)
		rp, err := rootPath(t, pattern)
		if err != nil {
			return nil, evalErr("failed to access the file matching '%s': %s", pattern, ioText(err))
		}
		matches, err := fs.Glob(t.FS, rp)
		if err != nil {
			return nil, evalErr("Failed to read glob pattern: %v", err)
		}
		out := make([]value.Value, len(matches))
		for i, mt := range matches {
			if abs {
				out[i] = value.Str(absPath(t, mt))
			} else {
				out[i] = value.Str(filepath.FromSlash(mt))
			}
		}
		return value.NewList(out), nil
	})
	def(m, "modpath", func(t *value.Thread, _ *value.Builtin, _ []value.Value, _ []value.KV) (value.Value, error) {
		if t == nil {
			return value.Str(""), nil
		}
		return value.Str(absPath(t, t.ModRoot)), nil
	})
	// kcl run leaves the runtime's work dir unset, so programs see "".
	def(m, "workdir", func(_ *value.Thread, _ *value.Builtin, _ []value.Value, _ []value.KV) (value.Value, error) {
		return value.Str(""), nil
	})
	def(m, "current", func(t *value.Thread, _ *value.Builtin, _ []value.Value, _ []value.KV) (value.Value, error) {
		if t == nil {
			return value.Str(""), nil
		}
		if filepath.IsAbs(t.CurrentFile) {
			return value.Str(t.CurrentFile), nil
		}
		return value.Str(absPath(t, t.CurrentFile)), nil
	})
	def(m, "exists", func(t *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		p, ok := strArg(args, kwargs, 0, "filepath")
		if !ok {
			return nil, evalErr("read() takes exactly one argument (0 given)")
		}
		rp, err := rootPath(t, p)
		if err != nil {
			return value.False, nil
		}
		_, err = fs.Stat(t.FS, rp)
		return value.Bool(err == nil), nil
	})
	def(m, "abs", func(t *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		p, ok := strArg(args, kwargs, 0, "filepath")
		if !ok {
			return nil, evalErr("read() takes exactly one argument (0 given)")
		}
		rp, err := rootPath(t, p)
		if err == nil {
			_, err = fs.Stat(t.FS, rp)
		}
		if err != nil {
			return nil, evalErr("Could not get the absolute path of %s", p)
		}
		return value.Str(absPath(t, rp)), nil
	})
	def(m, "size", func(t *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		p, ok := strArg(args, kwargs, 0, "filepath")
		if !ok {
			return nil, evalErr("size() takes exactly one argument (0 given)")
		}
		rp, err := rootPath(t, p)
		var info fs.FileInfo
		if err == nil {
			info, err = fs.Stat(t.FS, rp)
		}
		if err != nil {
			return nil, evalErr("failed to get size of '%s': %s", p, ioText(err))
		}
		return value.Int(info.Size()), nil
	})
	// The program root is read-only: every write is refused. A missing source
	// of delete, cp or mv is reported first, with the official engine's words,
	// so a program the official engine also refuses gets its message.
	for _, name := range []string{"mkdir", "delete", "cp", "mv", "write", "append"} {
		name := name
		def(m, name, func(t *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
			if err := missingSource(t, name, args, kwargs); err != nil {
				return nil, err
			}
			return nil, evalErr("file.%s() is not allowed: the program root is read-only", name)
		})
	}
	// No environment is visible to programs: read_env finds nothing.
	def(m, "read_env", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		if _, ok := strArg(args, kwargs, 0, "key"); !ok {
			return nil, evalErr("read_env() requires 'key' argument")
		}
		return value.Undefined, nil
	})
}

// missingSource is the official engine's error for a delete, cp or mv whose
// source does not exist, or nil.
func missingSource(t *value.Thread, name string, args []value.Value, kwargs []value.KV) error {
	if name != "delete" && name != "cp" && name != "mv" {
		return nil
	}
	src, ok := strArg(args, kwargs, 0, "src")
	if !ok {
		return nil
	}
	rp, err := rootPath(t, src)
	if err != nil {
		return nil
	}
	if _, err = fs.Stat(t.FS, rp); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	dst, _ := strArg(args, kwargs, 1, "dest")
	switch name {
	case "delete":
		return evalErr("failed to delete '%s': %s", src, ioText(err))
	case "cp":
		return evalErr("Failed to copy from '%s' to '%s': %s", src, dst, ioText(err))
	}
	return evalErr("Failed to move '%s' to '%s': %s", src, dst, ioText(err))
}
