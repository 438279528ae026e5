package kcl

import (
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

// Host lets a program read and write files anywhere and read the
// environment (Options.Host).
type Host = value.Host

// OSHost is the machine itself, used as the official `kcl run` 0.12.1 uses
// it: each method does what its Rust std::fs call does, errors included, so
// bin/kcl reads and writes what it does and fails where it fails.
type OSHost struct {
	// Workdir is what file.workdir() returns (ProgramWorkdir).
	Workdir string
}

var _ Host = OSHost{}

// ReadFile fails to open as *fs.PathError{Op: "open"}, to read (a
// directory) as Op "read".
func (OSHost) ReadFile(name string) ([]byte, error) {
	return os.ReadFile(name)
}

// Stat is os.Stat: symlinks followed, as std::fs::metadata.
func (OSHost) Stat(name string) (fs.FileInfo, error) {
	return os.Stat(name)
}

// Lstat is os.Lstat, as std::fs::symlink_metadata.
func (OSHost) Lstat(name string) (fs.FileInfo, error) {
	return os.Lstat(name)
}

// ReadDir lists the names alone: the glob that reads them sorts them itself.
func (OSHost) ReadDir(name string) ([]string, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

// Canonical is realpath(3). The kernel must find the path as written (a
// file followed by "/." is not a directory), and each symlink is resolved
// before a ".." after it applies, which filepath.Abs's lexical Clean would
// get wrong: EvalSymlinks of the path joined, uncleaned, to the working
// directory does both.
func (OSHost) Canonical(name string) (string, error) {
	if _, err := os.Stat(name); err != nil {
		return "", err
	}
	if !filepath.IsAbs(name) {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		name = wd + string(filepath.Separator) + name
	}
	return filepath.EvalSymlinks(name)
}

// ProgramWorkdir is the Workdir the CLI set.
func (h OSHost) ProgramWorkdir() string {
	return h.Workdir
}

// WriteFile fails to open as *fs.PathError{Op: "open"}, to write as Op "write".
func (OSHost) WriteFile(name string, data []byte) error {
	return writeTo(name, data, os.O_WRONLY|os.O_CREATE|os.O_TRUNC)
}

// AppendFile fails like WriteFile.
func (OSHost) AppendFile(name string, data []byte) error {
	return writeTo(name, data, os.O_WRONLY|os.O_CREATE|os.O_APPEND)
}

func writeTo(name string, data []byte, flag int) error {
	f, err := os.OpenFile(name, flag, 0o666)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = &fs.PathError{Op: "write", Path: name, Err: cerr}
	}
	return err
}

// MkdirAll is create_dir_all rather than os.MkdirAll: a file in the way is
// "File exists" (file.mkdir's exists=True ignores it), not "not a directory".
func (h OSHost) MkdirAll(name string) error {
	if name == "" {
		return nil
	}
	err := os.Mkdir(name, 0o777)
	if err == nil || isDir(name) {
		return nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	parent := filepath.Dir(name)
	if parent == name {
		return err
	}
	if err := h.MkdirAll(parent); err != nil {
		return err
	}
	if err := os.Mkdir(name, 0o777); err != nil && !isDir(name) {
		return err
	}
	return nil
}

// Delete unlinks name and only when nothing is there tries rmdir: a
// directory is refused with "Is a directory", as file.delete refuses it.
func (OSHost) Delete(name string) error {
	err := syscall.Unlink(name)
	if errors.Is(err, fs.ErrNotExist) {
		err = syscall.Rmdir(name)
	}
	if err != nil {
		return &fs.PathError{Op: "remove", Path: name, Err: err}
	}
	return nil
}

// Copy copies a file with its permissions (fs::copy), or a directory (a
// symlink to one too) into dst, created if missing: its files and
// directories, merged into what dst holds; symlinks inside are skipped.
func (h OSHost) Copy(src, dst string) error {
	if isDir(src) {
		return copyDir(src, dst)
	}
	return copyFile(src, dst)
}

func copyDir(src, dst string) error {
	if _, err := os.Stat(dst); err != nil {
		if err := (OSHost{}).MkdirAll(dst); err != nil {
			return err
		}
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range entries {
		from, to := filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())
		switch {
		case e.Type().IsDir():
			err = copyDir(from, to)
		case e.Type().IsRegular():
			err = copyFile(from, to)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return errors.New("the source path is neither a regular file nor a symlink to a regular file")
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, info.Mode().Perm())
	if err != nil {
		return err
	}
	if err := out.Chmod(info.Mode().Perm()); err != nil {
		out.Close()
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// Rename is rename(2) itself: os.Rename refuses any existing directory as
// the target, rename(2) replaces an empty one.
func (OSHost) Rename(src, dst string) error {
	if err := syscall.Rename(src, dst); err != nil {
		return &os.LinkError{Op: "rename", Old: src, New: dst, Err: err}
	}
	return nil
}

// LookupEnv, like Rust's env::var, finds nothing in a value that is not UTF-8.
func (OSHost) LookupEnv(key string) (string, bool) {
	v, ok := os.LookupEnv(key)
	if !ok || !utf8.ValidString(v) {
		return "", false
	}
	return v, true
}

// FQDN follows the runtime's: the hostname when name is empty, its first
// address (ToSocketAddrs), that address's name (getnameinfo, which has no
// trailing dot), name when a step fails.
func (OSHost) FQDN(name string) string {
	if name == "" {
		h, err := os.Hostname()
		if err != nil {
			return ""
		}
		name = h
	}
	ips, err := net.LookupIP(name)
	if err != nil || len(ips) == 0 {
		return name
	}
	names, err := net.LookupAddr(ips[0].String())
	if err != nil || len(names) == 0 {
		return name
	}
	return strings.TrimSuffix(names[0], ".")
}

func isDir(name string) bool {
	info, err := os.Stat(name)
	return err == nil && info.IsDir()
}
