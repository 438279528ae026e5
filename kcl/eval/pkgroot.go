package eval

import (
	"path/filepath"
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

// Every package belongs to a package root: the main program's module root, or
// the directory of an external package (-E name=path). An absolute import
// inside an external package resolves against that package's root first (the
// k8s module's files import "apimachinery.pkg.apis.meta.v1", meaning
// "k8s.apimachinery.pkg.apis.meta.v1"), then against the external packages.

// fileRoot returns the package root and the external package name ("" for
// the main program) a file imports from. External package paths always start
// with the external package's name, so the root follows from the path; main
// package files given as ${name:KCL_MOD}/... belong to package name.
func (in *Interp) fileRoot(f *fileUnit) (root, extName string) {
	if f.pkg.path == value.MainPkg {
		if name, ok := in.cfg.EntryPkgs[f.path]; ok {
			return in.cfg.ExternalPkgs[name], name
		}
		if !in.cfg.ModFile && in.cfg.ModRoot != "" {
			return filepath.Dir(f.path), ""
		}
		return in.modRoot(), ""
	}
	first, _, _ := strings.Cut(f.pkg.path, ".")
	if ext, ok := in.cfg.ExternalPkgs[first]; ok {
		return ext, first
	}
	return in.modRoot(), ""
}

// resolveAbsImport finds the directory and package path an absolute import
// (no leading dot) names when written in a file of package from.
// The answer depends on the importing file's root and the path only, and the
// files of a package import the same few packages (forty files of the k8s
// module's core/v1 import meta/v1): it is found once per run.
func (in *Interp) resolveAbsImport(from *fileUnit, raw string) (dir, pkgPath string) {
	root, extName := in.fileRoot(from)
	key := absImportKey{root: root, ext: extName, raw: raw}
	if r, ok := in.absImports[key]; ok {
		return r[0], r[1]
	}
	dir, pkgPath = in.findAbsImport(root, extName, raw)
	if in.absImports == nil {
		in.absImports = map[absImportKey][2]string{}
	}
	in.absImports[key] = [2]string{dir, pkgPath}
	return dir, pkgPath
}

type absImportKey struct{ root, ext, raw string }

func (in *Interp) findAbsImport(root, extName, raw string) (dir, pkgPath string) {
	parts := strings.Split(raw, ".")
	if extName != "" {
		// Internal to the external package: its own root comes first.
		internal := importDir(root, parts)
		if in.sb.IsDir(internal) || in.sb.IsFile(internal+".k") {
			return internal, extName + "." + raw
		}
	}
	if ext, ok := in.cfg.ExternalPkgs[parts[0]]; ok {
		return importDir(ext, parts[1:]), raw
	}
	if extName != "" {
		// Neither its own nor another package: 0.12.1 names the folder
		// below the main package's root (see foreignImport).
		return importDir(in.modRoot(), parts), raw
	}
	return importDir(root, parts), raw
}

// relImportPath names the package a relative import resolved to dir: the path
// below the importing package's root, prefixed with the external package's
// name when there is one; raw when dir is outside the root.
func (in *Interp) relImportPath(from *fileUnit, dir, raw string) string {
	root, extName := in.fileRoot(from)
	rel, err := filepath.Rel(root, dir)
	if err != nil || strings.HasPrefix(rel, "..") {
		return raw
	}
	p := strings.ReplaceAll(filepath.ToSlash(rel), "/", ".")
	switch {
	case extName == "":
		return p
	case rel == ".":
		return extName
	}
	return extName + "." + p
}
