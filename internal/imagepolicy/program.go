package imagepolicy

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
)

// ScanProgram returns the markers of a program: every .k file of the package in pkgDir
// and, transitively, of the local packages it imports. fsys is the artifact (so nothing
// outside it can be read); pkgDir is slash-separated and relative to it. Marker files
// are named relative to fsys's root.
func ScanProgram(fsys fs.FS, pkgDir string) ([]Marker, error) {
	return ScanEntries(fsys, pkgDir, nil)
}

// ScanEntries is ScanProgram plus the entry files settings list (slash-separated,
// relative to fsys's root), wherever they lie in the artifact, with what they
// import: a base/overlay layout's ../base/base.k holds markers too.
func ScanEntries(fsys fs.FS, pkgDir string, files []string) ([]Marker, error) {
	pkgDir = path.Clean(strings.TrimPrefix(pkgDir, "/"))
	if pkgDir == "" {
		pkgDir = "."
	}
	s := &programScan{fsys: fsys, modRoot: findModRoot(fsys, pkgDir), done: map[string]bool{}}
	if err := s.scanDir(pkgDir); err != nil {
		return nil, err
	}
	for _, f := range files {
		f = path.Clean(f)
		if f == ".." || strings.HasPrefix(f, "../") || !fs.ValidPath(f) {
			continue // outside the artifact: the engine refuses it
		}
		st, err := fs.Lstat(fsys, f)
		switch {
		case err != nil || st.Mode()&fs.ModeSymlink != 0:
			continue // the compiler reports a missing entry; symlinks are never followed
		case st.IsDir():
			err = s.scanDir(f)
		default:
			err = s.scanFile(f)
		}
		if err != nil {
			return nil, err
		}
	}
	sort.SliceStable(s.markers, func(i, j int) bool {
		if s.markers[i].File != s.markers[j].File {
			return s.markers[i].File < s.markers[j].File
		}
		return s.markers[i].Start < s.markers[j].Start
	})
	return s.markers, nil
}

type programScan struct {
	fsys    fs.FS
	modRoot string
	done    map[string]bool
	markers []Marker
}

// findModRoot is the nearest directory at or above pkgDir holding kcl.mod, or pkgDir.
func findModRoot(fsys fs.FS, pkgDir string) string {
	for dir := pkgDir; ; dir = path.Dir(dir) {
		if st, err := fs.Stat(fsys, path.Join(dir, "kcl.mod")); err == nil && !st.IsDir() {
			return dir
		}
		if dir == "." {
			return pkgDir
		}
	}
}

func (s *programScan) scanDir(dir string) error {
	if s.done[dir] {
		return nil
	}
	s.done[dir] = true
	entries, err := fs.ReadDir(s.fsys, dir)
	if err != nil {
		return fmt.Errorf("reading package %s: %w", dir, err)
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".k") || strings.HasSuffix(name, "_test.k") {
			continue
		}
		if e.Type()&fs.ModeSymlink != 0 {
			continue // the engine refuses symlinks too; never follow them out of the artifact
		}
		if err := s.scanFile(path.Join(dir, name)); err != nil {
			return err
		}
	}
	return nil
}

func (s *programScan) scanFile(file string) error {
	if s.done[file] {
		return nil
	}
	s.done[file] = true
	src, err := fs.ReadFile(s.fsys, file)
	if err != nil {
		return fmt.Errorf("reading %s: %w", file, err)
	}
	markers, err := ScanFile(file, src)
	if err != nil {
		return err
	}
	s.markers = append(s.markers, markers...)
	mod, err := syntax.ParseFile(file, src)
	if err != nil {
		// A syntax error is the compiler's to report, with its position; markers found
		// so far stand.
		return nil
	}
	for _, st := range mod.Body {
		imp, ok := st.(*syntax.ImportStmt)
		if !ok {
			continue
		}
		if err := s.scanImport(path.Dir(file), imp.RawPath); err != nil {
			return err
		}
	}
	return nil
}

// scanImport follows a local import: ".a.b" relative to the importing file's directory,
// "a.b" relative to the module root. Anything else (system modules, external packages)
// holds no markers of this program.
func (s *programScan) scanImport(fromDir, importPath string) error {
	base := s.modRoot
	rest := importPath
	if strings.HasPrefix(importPath, ".") {
		base = fromDir
		rest = strings.TrimPrefix(importPath, ".")
		for strings.HasPrefix(rest, ".") {
			base = path.Dir(base)
			rest = strings.TrimPrefix(rest, ".")
		}
	}
	if rest == "" {
		return nil
	}
	target := path.Join(base, strings.ReplaceAll(rest, ".", "/"))
	if target == ".." || strings.HasPrefix(target, "../") {
		return nil // outside the artifact: the engine refuses it
	}
	if st, err := fs.Stat(s.fsys, target); err == nil && st.IsDir() {
		return s.scanDir(target)
	}
	if st, err := fs.Stat(s.fsys, target+".k"); err == nil && !st.IsDir() {
		return s.scanFile(target + ".k")
	}
	return nil
}
