package modules

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

// errOutsideRoot is returned for paths that leave the program root.
var errOutsideRoot = errors.New("the path is outside the program root")

// ioText renders an fs error the way Rust's io::Error prints the common cases.
func ioText(err error) string {
	var errno syscall.Errno
	switch {
	case errors.As(err, &errno):
		return rustIOError(err)
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

// rustIOError prints an OS error as Rust's io::Error displays it: the C
// library's text and the number, "Is a directory (os error 21)". An error
// without an errno prints as itself.
func rustIOError(err error) string {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return err.Error()
	}
	return fmt.Sprintf("%s (os error %d)", strerror(errno), int(errno))
}

// rustIODebug prints an OS error as Rust's io::Error debug-prints it:
// `Os { code: 2, kind: NotFound, message: "No such file or directory" }`.
// An error without an errno prints as itself.
func rustIODebug(err error) string {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return err.Error()
	}
	kind, ok := rustErrorKinds[errno]
	if !ok {
		kind = "Uncategorized"
	}
	return fmt.Sprintf("Os { code: %d, kind: %s, message: %q }", int(errno), kind, strerror(errno))
}

// strerror is the C library's text: Go's own is glibc's, first letter lowered.
func strerror(errno syscall.Errno) string {
	s := errno.Error()
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// rustErrorKinds names the io::ErrorKind Rust decodes an errno to (its
// decode_error_kind), for the errors writes meet.
var rustErrorKinds = map[syscall.Errno]string{
	syscall.ENOENT:       "NotFound",
	syscall.EACCES:       "PermissionDenied",
	syscall.EPERM:        "PermissionDenied",
	syscall.EEXIST:       "AlreadyExists",
	syscall.EISDIR:       "IsADirectory",
	syscall.ENOTDIR:      "NotADirectory",
	syscall.ENOTEMPTY:    "DirectoryNotEmpty",
	syscall.EROFS:        "ReadOnlyFilesystem",
	syscall.ENOSPC:       "StorageFull",
	syscall.ELOOP:        "FilesystemLoop",
	syscall.ENAMETOOLONG: "InvalidFilename",
	syscall.EFBIG:        "FileTooLarge",
	syscall.EBUSY:        "ResourceBusy",
	syscall.ETXTBSY:      "ExecutableFileBusy",
	syscall.EXDEV:        "CrossesDevices",
	syscall.EINVAL:       "InvalidInput",
	syscall.EINTR:        "Interrupted",
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

// The readers have two sources. With a Host (bin/kcl) they read the machine
// as 0.12.1 reads it through std::fs: relative paths against the process's
// working directory, absolute ones and ".." anywhere. Without one (the
// controller) they read the Thread's FS: relative paths against the work
// dir, and nothing outside it. The messages are the same for both.

func readFile(t *value.Thread, p string) ([]byte, error) {
	var b []byte
	var err error
	if t != nil && t.Host != nil {
		b, err = t.Host.ReadFile(p)
	} else {
		var rp string
		if rp, err = rootPath(t, p); err != nil {
			return nil, &fs.PathError{Op: "open", Path: p, Err: err}
		}
		if b, err = fs.ReadFile(t.FS, rp); err != nil {
			return nil, &fs.PathError{Op: "open", Path: p, Err: err}
		}
	}
	if err != nil {
		return nil, err
	}
	if t.MaxOutputBytes > 0 && int64(len(b)) > t.MaxOutputBytes {
		return nil, &fs.PathError{Op: "read", Path: p, Err: errors.New("file too large")}
	}
	return b, nil
}

// errNotUTF8 is read_to_string's error for a file that is not text.
var errNotUTF8 = errors.New("stream did not contain valid UTF-8")

// readText is file.read's read: with a Host, as read_to_string, text only.
func readText(t *value.Thread, p string) (string, error) {
	b, err := readFile(t, p)
	if err == nil && t.Host != nil && !utf8.Valid(b) {
		err = errNotUTF8
	}
	return string(b), err
}

// statFile is std::fs::metadata, or a stat of the program root.
func statFile(t *value.Thread, p string) (fs.FileInfo, error) {
	if t != nil && t.Host != nil {
		return t.Host.Stat(p)
	}
	rp, err := rootPath(t, p)
	if err != nil {
		return nil, err
	}
	return fs.Stat(t.FS, rp)
}

// canonical is std::fs::canonicalize, or the path joined to the work dir
// when the program root holds it.
func canonical(t *value.Thread, p string) (string, error) {
	if t != nil && t.Host != nil {
		return t.Host.Canonical(p)
	}
	rp, err := rootPath(t, p)
	if err == nil {
		_, err = fs.Stat(t.FS, rp)
	}
	if err != nil {
		return "", err
	}
	return absPath(t, rp), nil
}

// globFiles is file.glob's listing: the Rust glob crate's with a Host, the
// program root's fs.Glob without.
func globFiles(t *value.Thread, pattern string) ([]string, error) {
	if t != nil && t.Host != nil {
		return hostGlob(t.Host, pattern)
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
	for i, mt := range matches {
		if abs {
			matches[i] = absPath(t, mt)
		} else {
			matches[i] = filepath.FromSlash(mt)
		}
	}
	return matches, nil
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
		p, ok := pathArg(t, args, kwargs, 0, "filepath")
		if !ok {
			return nil, evalErr("read() takes exactly one argument (0 given)")
		}
		s, err := readText(t, p)
		if err != nil {
			return nil, evalErr("failed to access the file '%s': %s", p, ioText(err))
		}
		return value.Str(s), nil
	})
	def(m, "glob", func(t *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		pattern, ok := pathArg(t, args, kwargs, 0, "pattern")
		if !ok {
			return nil, evalErr("glob() takes exactly one argument (0 given)")
		}
		matches, err := globFiles(t, pattern)
		if err != nil {
			return nil, err
		}
		out := make([]value.Value, len(matches))
		for i, mt := range matches {
			out[i] = value.Str(mt)
		}
		return value.NewList(out), nil
	})
	def(m, "modpath", func(t *value.Thread, _ *value.Builtin, _ []value.Value, _ []value.KV) (value.Value, error) {
		if t == nil {
			return value.Str(""), nil
		}
		return value.Str(absPath(t, t.ModRoot)), nil
	})
	// The work dir kcl run gives the runtime (Host.ProgramWorkdir); the
	// controller's runs have none: "".
	def(m, "workdir", func(t *value.Thread, _ *value.Builtin, _ []value.Value, _ []value.KV) (value.Value, error) {
		if t != nil && t.Host != nil {
			return value.Str(t.Host.ProgramWorkdir()), nil
		}
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
		p, ok := pathArg(t, args, kwargs, 0, "filepath")
		if !ok {
			return nil, evalErr("read() takes exactly one argument (0 given)")
		}
		_, err := statFile(t, p)
		return value.Bool(err == nil), nil
	})
	def(m, "abs", func(t *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		p, ok := pathArg(t, args, kwargs, 0, "filepath")
		if !ok {
			return nil, evalErr("read() takes exactly one argument (0 given)")
		}
		abs, err := canonical(t, p)
		if err != nil {
			return nil, evalErr("Could not get the absolute path of %s", p)
		}
		return value.Str(abs), nil
	})
	def(m, "size", func(t *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		p, ok := pathArg(t, args, kwargs, 0, "filepath")
		if !ok {
			return nil, evalErr("size() takes exactly one argument (0 given)")
		}
		info, err := statFile(t, p)
		if err != nil {
			return nil, evalErr("failed to get size of '%s': %s", p, ioText(err))
		}
		return value.Int(info.Size()), nil
	})
	// With a Host (bin/kcl) the writes and read_env do what 0.12.1 does, its
	// messages included. Without one (the controller) the program root is
	// read-only: every write is refused. A missing source of delete, cp or
	// mv is reported first, with the official engine's words, so a program
	// the official engine also refuses gets its message.
	for name, write := range map[string]func(value.Host, []value.Value, []value.KV) (value.Value, error){
		"mkdir": mkdir, "delete": deleteFile, "cp": copyFile, "mv": moveFile, "write": writeFile, "append": appendFile,
	} {
		def(m, name, func(t *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
			if t != nil && t.Host != nil {
				return write(t.Host, args, kwargs)
			}
			if err := missingSource(t, name, args, kwargs); err != nil {
				return nil, err
			}
			return nil, evalErr("file.%s() is not allowed: the program root is read-only", name)
		})
	}
	// Without a Host no environment is visible: read_env finds nothing.
	def(m, "read_env", func(t *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		key, ok := hostArg(args, kwargs, 0, "key")
		if !ok {
			return nil, evalErr("read_env() requires 'key' argument")
		}
		if t == nil || t.Host == nil {
			return value.Undefined, nil
		}
		if v, ok := t.Host.LookupEnv(key); ok {
			return value.Str(v), nil
		}
		return value.Undefined, nil
	})
}

// pathArg is a reader's path: with a Host as 0.12.1 reads it (hostArg: None
// is ""), without one as the controller always has (None is no argument).
func pathArg(t *value.Thread, args []value.Value, kwargs []value.KV, i int, name string) (string, bool) {
	if t != nil && t.Host != nil {
		return hostArg(args, kwargs, i, name)
	}
	return strArg(args, kwargs, i, name)
}

// hostArg is get_call_arg_str as 0.12.1's writes and read_env see their
// arguments: anything but a string, None included, is "".
func hostArg(args []value.Value, kwargs []value.KV, i int, name string) (string, bool) {
	v, ok := arg(args, kwargs, i, name)
	if !ok {
		return "", false
	}
	s, _ := v.(value.Str)
	return string(s), true
}

func mkdir(h value.Host, args []value.Value, kwargs []value.KV) (value.Value, error) {
	dir, ok := hostArg(args, kwargs, 0, "directory")
	if !ok {
		return nil, evalErr("mkdir() takes exactly one argument (0 given)")
	}
	exists, _ := boolArg(args, kwargs, 1, "exists")
	if err := h.MkdirAll(dir); err != nil && !(exists && errors.Is(err, fs.ErrExist)) {
		return nil, evalErr("Failed to create directory '%s': %s", dir, rustIOError(err))
	}
	return value.None, nil
}

func deleteFile(h value.Host, args []value.Value, kwargs []value.KV) (value.Value, error) {
	p, ok := hostArg(args, kwargs, 0, "filepath")
	if !ok {
		return nil, evalErr("delete() takes exactly one argument (0 given)")
	}
	if err := h.Delete(p); err != nil {
		return nil, evalErr("failed to delete '%s': %s", p, rustIOError(err))
	}
	return value.None, nil
}

func copyFile(h value.Host, args []value.Value, kwargs []value.KV) (value.Value, error) {
	src, dst, err := srcDest("cp", args, kwargs)
	if err != nil {
		return nil, err
	}
	if err := h.Copy(src, dst); err != nil {
		return nil, evalErr("Failed to copy from '%s' to '%s': %s", src, dst, rustIOError(err))
	}
	return value.None, nil
}

func moveFile(h value.Host, args []value.Value, kwargs []value.KV) (value.Value, error) {
	src, dst, err := srcDest("mv", args, kwargs)
	if err != nil {
		return nil, err
	}
	if err := h.Rename(src, dst); err != nil {
		return nil, evalErr("Failed to move '%s' to '%s': %s", src, dst, rustIOError(err))
	}
	return value.None, nil
}

func srcDest(fn string, args []value.Value, kwargs []value.KV) (string, string, error) {
	src, ok := hostArg(args, kwargs, 0, "src")
	if !ok {
		return "", "", evalErr("%s() missing 'src_path' argument", fn)
	}
	dst, ok := hostArg(args, kwargs, 1, "dest")
	if !ok {
		return "", "", evalErr("%s() missing 'dest_path' argument", fn)
	}
	return src, dst, nil
}

func writeFile(h value.Host, args []value.Value, kwargs []value.KV) (value.Value, error) {
	p, content, err := fileContent("write", "missing", args, kwargs)
	if err != nil {
		return nil, err
	}
	if err := h.WriteFile(p, []byte(content)); err != nil {
		if failedWrite(err) {
			return nil, evalErr("Failed to write to '%s': %s", p, rustIOError(err))
		}
		return nil, evalErr("Failed to create file '%s': %s", p, rustIOError(err))
	}
	return value.None, nil
}

func appendFile(h value.Host, args []value.Value, kwargs []value.KV) (value.Value, error) {
	p, content, err := fileContent("append", "requires", args, kwargs)
	if err != nil {
		return nil, err
	}
	if err := h.AppendFile(p, []byte(content)); err != nil {
		if failedWrite(err) {
			return nil, evalErr("Failed to append to file '%s': %s", p, rustIOError(err))
		}
		return nil, evalErr("Failed to open or create file '%s': %s", p, rustIOError(err))
	}
	return value.None, nil
}

// fileContent reads write's and append's arguments; the two word their
// missing ones differently ("missing", "requires").
func fileContent(fn, verb string, args []value.Value, kwargs []value.KV) (string, string, error) {
	p, ok := hostArg(args, kwargs, 0, "filepath")
	if !ok {
		return "", "", evalErr("%s() %s 'filepath' argument", fn, verb)
	}
	content, ok := hostArg(args, kwargs, 1, "content")
	if !ok {
		return "", "", evalErr("%s() %s 'content' argument", fn, verb)
	}
	return p, content, nil
}

// failedWrite tells a Host's failed write from a failed open (Op "write").
func failedWrite(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && pe.Op == "write"
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
