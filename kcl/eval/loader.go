package eval

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// sandbox reads files only below its roots: the program root and the roots of
// external packages. os.Root refuses paths (and symlinks) that leave a root.
type sandbox struct {
	roots     []sandboxRoot
	overrides map[string][]byte // absolute path -> content
	// listed holds the status of files seen while listing package
	// directories, so that the parse cache checks them without a walk per file.
	listed map[string]fs.FileInfo
	// stats remembers Stat results for the run: every file of a package
	// resolves the same imports, and a walk inside a root costs a system
	// call per path component.
	stats map[string]statResult
}

type statResult struct {
	fi  fs.FileInfo
	err error
}

type sandboxRoot struct {
	dir  string // absolute, cleaned
	root *os.Root
}

func newSandbox(dirs []string, overrides map[string][]byte) (*sandbox, error) {
	sb := &sandbox{overrides: overrides}
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("sandbox root %s: %w", d, err)
		}
		r, err := os.OpenRoot(abs)
		if err != nil {
			return nil, fmt.Errorf("sandbox root %s: %w", d, err)
		}
		sb.roots = append(sb.roots, sandboxRoot{dir: filepath.Clean(abs), root: r})
	}
	return sb, nil
}

func (sb *sandbox) Close() {
	for _, r := range sb.roots {
		r.root.Close()
	}
}

// locate finds the root holding abs and the path relative to it.
func (sb *sandbox) locate(abs string) (*os.Root, string, error) {
	return sb.locateClean(filepath.Clean(abs))
}

// locateClean is locate of a path already clean.
func (sb *sandbox) locateClean(abs string) (*os.Root, string, error) {
	for _, r := range sb.roots {
		// abs and r.dir are clean: abs is inside when r.dir is a prefix that
		// ends at a separator (what filepath.Rel would find, without its
		// cost on every file of every run).
		if rel, ok := within(r.dir, abs); ok {
			return r.root, rel, nil
		}
	}
	return nil, "", fmt.Errorf("%s: %w", abs, fs.ErrPermission)
}

// within returns the path of abs relative to dir when abs lies inside dir
// (or is dir, "."); both are clean absolute paths.
func within(dir, abs string) (string, bool) {
	if abs == dir {
		return ".", true
	}
	if !strings.HasPrefix(abs, dir) {
		return "", false
	}
	rest := abs[len(dir):]
	switch {
	case strings.HasSuffix(dir, string(filepath.Separator)):
		return rest, rest != ""
	case rest[0] == filepath.Separator:
		return rest[1:], true
	}
	return "", false
}

// entryPath is the path kcl run reads a main-package file by, its canonical
// one: a symlinked entry is where it points, and its relative imports climb
// from there. abs itself when it is no link, or when the link leaves the
// sandbox: the sandbox then refuses to read it, as before.
func (sb *sandbox) entryPath(abs string) string {
	if _, ok := sb.overrides[filepath.Clean(abs)]; ok {
		return abs
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil || real == abs {
		return abs
	}
	if _, _, err := sb.locate(real); err != nil {
		return abs
	}
	return real
}

func (sb *sandbox) ReadFile(abs string) ([]byte, error) {
	if b, ok := sb.overrides[filepath.Clean(abs)]; ok {
		return b, nil
	}
	r, rel, err := sb.locate(abs)
	if err != nil {
		return nil, err
	}
	return r.ReadFile(rel)
}

func (sb *sandbox) Stat(abs string) (fs.FileInfo, error) {
	abs = filepath.Clean(abs)
	if _, ok := sb.overrides[abs]; ok {
		return fakeFileInfo{name: filepath.Base(abs)}, nil
	}
	if r, ok := sb.stats[abs]; ok {
		return r.fi, r.err
	}
	r, rel, err := sb.locate(abs)
	if err != nil {
		return nil, err
	}
	fi, err := r.Stat(rel)
	if sb.stats == nil {
		sb.stats = map[string]statResult{}
	}
	sb.stats[abs] = statResult{fi, err}
	return fi, err
}

func (sb *sandbox) IsDir(abs string) bool {
	fi, err := sb.Stat(abs)
	return err == nil && fi.IsDir()
}

func (sb *sandbox) IsFile(abs string) bool {
	fi, err := sb.Stat(abs)
	return err == nil && !fi.IsDir()
}

// KFiles lists the .k files of a package directory in name order, without tests.
func (sb *sandbox) KFiles(abs string) ([]string, error) {
	r, rel, err := sb.locate(abs)
	if err != nil {
		return nil, err
	}
	entries, err := fs.ReadDir(r.FS(), filepath.ToSlash(rel))
	if err != nil {
		return nil, err
	}
	// abs is clean and a name from the listing holds no separator, so the
	// file's path is their concatenation (filepath.Join would clean it again).
	dir := filepath.Clean(abs)
	if !strings.HasSuffix(dir, string(filepath.Separator)) {
		dir += string(filepath.Separator)
	}
	var out []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".k") || strings.HasSuffix(n, "_test.k") {
			continue
		}
		p := dir + n
		out = append(out, p)
		if info, err := e.Info(); err == nil {
			if sb.listed == nil {
				sb.listed = map[string]fs.FileInfo{}
			}
			sb.listed[p] = info
		}
	}
	sort.Strings(out)
	return out, nil
}

// FS exposes dir, the program's directory inside the first root, to the file
// module; symlinks may lead anywhere inside that root.
func (sb *sandbox) FS(dir string) (fs.FS, error) {
	if len(sb.roots) == 0 {
		return nil, nil
	}
	r := sb.roots[0]
	rel, ok := within(r.dir, filepath.Clean(dir))
	switch {
	case !ok:
		return nil, fmt.Errorf("the program directory %s is outside the sandbox %s", dir, r.dir)
	case rel == ".":
		return r.root.FS(), nil
	}
	return fs.Sub(r.root.FS(), filepath.ToSlash(rel))
}

type fakeFileInfo struct {
	fs.FileInfo
	name string
}

func (f fakeFileInfo) Name() string { return f.name }
func (f fakeFileInfo) IsDir() bool  { return false }

// cleanSlash joins import path parts.
func importDir(base string, parts []string) string {
	return filepath.Join(append([]string{base}, parts...)...)
}

var _ = path.Join
