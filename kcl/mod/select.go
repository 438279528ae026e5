package mod

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Options of Resolve.
type Options struct {
	// Fetcher gets remote packages; nil resolves vendored and local packages only.
	Fetcher Fetcher
	// Vendor uses vendored packages only (kcl.mod dependencies under
	// vendor/<name>_<version>) and never calls the Fetcher.
	Vendor bool
	// Root bounds local `path` dependencies of the program: they must stay inside
	// it (the artifact). Empty means the program folder.
	Root string
	// DefaultRegistry and DefaultRepo place registry packages (name = "version");
	// empty takes ghcr.io and kcl-lang.
	DefaultRegistry, DefaultRepo string
	// External maps import names to package folders given by the user
	// (`kcl run -E name=path`, a settings file's package_maps). They win over
	// kcl.mod, wherever in the graph the name is declared: such a package is
	// neither fetched, nor looked up in vendor/ or the lock, nor are its own
	// dependencies resolved.
	External map[string]string
}

// Resolved is one package of the dependency graph.
type Resolved struct {
	// Name is the import name (the engine's -E name).
	Name    string
	Version string
	// Source is where the package came from: oci://..., a Git URL@ref, a path, vendor/...
	Source string
	Dir    string
	// Digest is the OCI manifest digest or the Git commit; empty for local packages.
	Digest string
	Sum    string
	// Locked: kcl.mod.lock pinned it and its sum matched.
	Locked bool
	// Vendored: served from the program's vendor/ folder.
	Vendored bool
	// Local: a `path` dependency, or a package given in Options.External.
	Local bool
}

// Resolution is a program's resolved dependency graph.
type Resolution struct {
	Packages []Resolved // by name
}

// ExternalPkgs maps import names to package roots, for kcl.Options.ExternalPkgs.
func (r *Resolution) ExternalPkgs() map[string]string {
	if r == nil || len(r.Packages) == 0 {
		return nil
	}
	m := make(map[string]string, len(r.Packages))
	for _, p := range r.Packages {
		m[p.Name] = p.Dir
	}
	return m
}

// Reproducible reports whether resolving again gives the same packages: every
// remote package was pinned by kcl.mod.lock (a tag or a branch may move).
func (r *Resolution) Reproducible() bool {
	if r == nil {
		return true
	}
	for _, p := range r.Packages {
		if !p.Locked && !p.Vendored && !p.Local {
			return false
		}
	}
	return true
}

// pending is a dependency waiting to be resolved: declared in the kcl.mod of
// the package in dir, whose local paths must stay inside bound.
type pending struct {
	dep        Dependency
	dir, bound string
	direct     bool
}

// selector chooses one version of every package of the graph, breadth first.
type selector struct {
	opts       Options
	programDir string
	lock       *Lock
	resolved   map[string]*Resolved
	queue      []pending
}

// Resolve resolves every dependency of the program in programDir, transitively,
// as kpm does: the program's kcl.mod.lock pins the source and checksum of each
// package it lists (a mismatch is an ErrVerification error, never a silent
// re-resolution); a package in vendor/ is used as is; the rest is fetched.
// When two packages ask for different versions of one package, the higher wins.
// A program without kcl.mod has no dependencies.
func Resolve(ctx context.Context, programDir string, opts Options) (*Resolution, error) {
	if opts.DefaultRegistry == "" {
		opts.DefaultRegistry = DefaultRegistry
	}
	if opts.DefaultRepo == "" {
		opts.DefaultRepo = DefaultRepo
	}
	if opts.Root == "" {
		opts.Root = programDir
	}
	file, err := ReadFile(programDir)
	if err != nil || file == nil {
		return &Resolution{}, err
	}
	lock, err := ReadLock(programDir)
	if err != nil {
		return nil, err
	}
	r := &selector{opts: opts, programDir: programDir, lock: lock, resolved: map[string]*Resolved{}}
	for name, dir := range opts.External {
		r.resolved[name] = &Resolved{Name: name, Version: packageVersion(dir, ""), Source: dir, Dir: dir, Local: true}
	}
	for _, d := range file.Dependencies {
		r.queue = append(r.queue, pending{dep: d, dir: programDir, bound: opts.Root, direct: true})
	}
	for len(r.queue) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p := r.queue[0]
		r.queue = r.queue[1:]
		if err := r.choose(ctx, p); err != nil {
			return nil, err
		}
	}
	res := &Resolution{}
	for _, p := range r.resolved {
		res.Packages = append(res.Packages, *p)
	}
	sort.Slice(res.Packages, func(i, j int) bool { return res.Packages[i].Name < res.Packages[j].Name })
	return res, nil
}

func (r *selector) choose(ctx context.Context, p pending) error {
	name := p.dep.ImportName()
	if have, ok := r.resolved[name]; ok {
		// The program's own declaration and a locked choice stand; otherwise the
		// higher version wins (kpm's minimal version selection).
		if have.Locked || have.Local || have.Vendored || !versionLess(have.Version, declaredVersion(p.dep)) || p.dep.Path != "" {
			return nil
		}
	}
	got, dir, err := r.locate(ctx, p)
	if err != nil {
		return err
	}
	r.resolved[name] = got
	sub, err := ReadFile(got.Dir)
	if err != nil {
		return fmt.Errorf("dependency %s: %w", p.dep.Name, err)
	}
	if sub != nil {
		for _, d := range sub.Dependencies {
			r.queue = append(r.queue, pending{dep: d, dir: got.Dir, bound: dir})
		}
	}
	return nil
}

// locate finds or fetches one package; it returns the package and the folder
// its own local dependencies must stay inside.
func (r *selector) locate(ctx context.Context, p pending) (*Resolved, string, error) {
	d := p.dep
	name := d.ImportName()
	if d.Path != "" {
		dir := filepath.Join(p.dir, filepath.FromSlash(d.Path))
		if !inside(p.bound, dir) {
			return nil, "", fmt.Errorf("%w: dependency %s: path %q leaves the artifact", ErrUnsafe, d.Name, d.Path)
		}
		if info, err := os.Stat(dir); err != nil || !info.IsDir() {
			return nil, "", fmt.Errorf("%w: dependency %s: path %q is not a folder inside the artifact", ErrInvalid, d.Name, d.Path)
		}
		return &Resolved{Name: name, Version: packageVersion(dir, ""), Source: d.Path, Dir: dir, Local: true}, p.bound, nil
	}

	locked, isLocked := r.lock.lookup(d.Name)
	if isLocked && p.direct {
		if err := consistent(d, locked); err != nil {
			return nil, "", err
		}
	}
	if dir, ok := r.vendored(d, locked); ok {
		got := &Resolved{Name: name, Version: packageVersion(dir, firstNonEmpty(locked.Version, declaredVersion(d))),
			Source: filepath.ToSlash(mustRel(r.programDir, dir)), Dir: dir, Vendored: true}
		if isLocked && locked.Sum != "" {
			sum, err := Sum(dir)
			if err != nil {
				return nil, "", fmt.Errorf("dependency %s: %w", d.Name, err)
			}
			if sum != locked.Sum {
				return nil, "", &VerificationError{Name: d.Name, Source: got.Source, Want: locked.Sum, Got: sum}
			}
			got.Sum = sum
		}
		return got, r.opts.Root, nil
	}
	if r.opts.Vendor {
		return nil, "", fmt.Errorf("%w: dependency %s is not vendored (vendor/%s); run `kcl mod vendor` and commit vendor/",
			ErrNotVendored, d.Name, fullName(d, locked))
	}
	if r.opts.Fetcher == nil {
		return nil, "", fmt.Errorf("%w: dependency %s is not vendored (vendor/%s) and this build fetches no packages",
			ErrNotVendored, d.Name, fullName(d, locked))
	}
	src, pkgName, err := r.source(d, locked, isLocked)
	if err != nil {
		return nil, "", err
	}
	fetched, err := r.opts.Fetcher.Fetch(ctx, src)
	if err != nil {
		return nil, "", fmt.Errorf("dependency %s (%s): %w", d.Name, src, err)
	}
	dir, err := findPackage(fetched.Dir, pkgName, src.Kind == GitSource)
	if err != nil {
		return nil, "", fmt.Errorf("dependency %s (%s): %w", d.Name, src, err)
	}
	sum := fetched.Sum
	if dir != fetched.Dir || sum == "" {
		if sum, err = Sum(dir); err != nil {
			return nil, "", fmt.Errorf("dependency %s (%s): %w", d.Name, src, err)
		}
	}
	got := &Resolved{Name: name, Source: src.String(), Dir: dir, Digest: fetched.Digest, Sum: sum}
	if isLocked && locked.Sum != "" {
		if sum != locked.Sum {
			return nil, "", &VerificationError{Name: d.Name, Source: src.String(), Want: locked.Sum, Got: sum}
		}
		got.Locked = true
	}
	got.Version = packageVersion(dir, firstNonEmpty(locked.Version, declaredVersion(d), src.Tag, src.GitTag))
	return got, fetched.Dir, nil
}

// source is where to fetch a dependency: exactly what the lock pins, or what
// kcl.mod declares.
func (r *selector) source(d Dependency, l Locked, isLocked bool) (Source, string, error) {
	pkgName := firstNonEmpty(d.Package, l.Package)
	if isLocked {
		switch {
		case l.URL != "":
			return Source{Kind: GitSource, URL: l.URL, Commit: l.Commit, Branch: l.Branch, GitTag: l.GitTag}, pkgName, nil
		case l.Repo != "" || l.OCITag != "":
			reg := firstNonEmpty(l.Reg, r.opts.DefaultRegistry)
			repo := firstNonEmpty(l.Repo, r.opts.DefaultRepo+"/"+firstNonEmpty(pkgName, d.Name))
			tag := firstNonEmpty(l.OCITag, l.Version)
			return Source{Kind: OCISource, Registry: reg, Repository: repo, Tag: tag}, pkgName, nil
		}
	}
	switch {
	case d.Git != "":
		return Source{Kind: GitSource, URL: d.Git, Commit: d.Commit, Branch: d.Branch, GitTag: d.Tag}, pkgName, nil
	case d.OCI != "":
		reg, repo, err := parseOCI(d.OCI)
		if err != nil {
			return Source{}, "", fmt.Errorf("dependency %s: %w", d.Name, err)
		}
		return Source{Kind: OCISource, Registry: reg, Repository: repo, Tag: firstNonEmpty(d.Tag, d.Version, "latest")}, pkgName, nil
	default:
		return Source{Kind: OCISource, Registry: r.opts.DefaultRegistry,
			Repository: r.opts.DefaultRepo + "/" + firstNonEmpty(pkgName, d.Name), Tag: d.Version}, pkgName, nil
	}
}

// vendored finds the dependency under the program's vendor/ folder, where
// `kcl mod vendor` puts it (vendor/<full_name>).
func (r *selector) vendored(d Dependency, l Locked) (string, bool) {
	for _, folder := range []string{l.FullName, fullName(d, l), d.Name} {
		if folder == "" || strings.HasSuffix(folder, "_") || strings.ContainsAny(folder, `/\`) || folder == ".." {
			continue
		}
		dir := filepath.Join(r.programDir, VendorDir, folder)
		if info, err := os.Lstat(dir); err == nil && info.IsDir() && inside(r.opts.Root, dir) {
			return dir, true
		}
	}
	return "", false
}

// consistent refuses a lock that no longer matches kcl.mod: the lock would
// silently pin something else than what the program asks for.
func consistent(d Dependency, l Locked) error {
	stale := func(what, mod, lock string) error {
		return fmt.Errorf("%w: %s is out of date: dependency %s asks for %s %s in kcl.mod but the lock pins %s; run `kcl mod update`",
			ErrInvalid, LockFileName, d.Name, what, mod, lock)
	}
	switch {
	case d.Git != "":
		if l.URL != "" && l.URL != d.Git {
			return stale("git", d.Git, l.URL)
		}
		if d.Tag != "" && l.GitTag != "" && d.Tag != l.GitTag {
			return stale("tag", d.Tag, l.GitTag)
		}
		if d.Commit != "" && l.Commit != "" && !strings.HasPrefix(l.Commit, d.Commit) {
			return stale("commit", d.Commit, l.Commit)
		}
		if d.Branch != "" && l.Branch != "" && d.Branch != l.Branch {
			return stale("branch", d.Branch, l.Branch)
		}
	case d.OCI != "":
		if tag := firstNonEmpty(d.Tag, d.Version); tag != "" && l.OCITag != "" && tag != l.OCITag {
			return stale("tag", tag, l.OCITag)
		}
	default:
		if d.Version != "" && firstNonEmpty(l.OCITag, l.Version) != d.Version && l.Version != d.Version {
			return stale("version", d.Version, firstNonEmpty(l.OCITag, l.Version))
		}
	}
	return nil
}

// findPackage picks the package inside fetched contents: the root, or the
// folder whose kcl.mod names the wanted package (a Git repository of several
// packages, or a renamed one).
func findPackage(root, want string, searchNested bool) (string, error) {
	if want == "" {
		return root, nil
	}
	if f, err := ReadFile(root); err == nil && f != nil && f.Package.Name == want {
		return root, nil
	}
	if !searchNested {
		return root, nil
	}
	found := ""
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || found != "" {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.IsDir() && path != root {
			if f, err := ReadFile(path); err == nil && f != nil && f.Package.Name == want {
				found = path
				return filepath.SkipAll
			}
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if found == "" {
		return "", fmt.Errorf("%w: no kcl.mod names package %q", ErrInvalid, want)
	}
	return found, nil
}

func fullName(d Dependency, l Locked) string {
	if l.FullName != "" {
		return l.FullName
	}
	return d.Name + "_" + firstNonEmpty(l.Version, declaredVersion(d))
}

func declaredVersion(d Dependency) string {
	return firstNonEmpty(d.Version, d.Tag, d.Commit, d.Branch)
}

// packageVersion is the [package] version of the kcl.mod in dir, else fallback.
func packageVersion(dir, fallback string) string {
	if f, err := ReadFile(dir); err == nil && f != nil && f.Package.Version != "" {
		return f.Package.Version
	}
	return fallback
}

// versionLess compares dotted versions numerically where both parts are
// numbers ("1.9" < "1.29"), textually otherwise.
func versionLess(a, b string) bool {
	pa := strings.Split(strings.TrimPrefix(a, "v"), ".")
	pb := strings.Split(strings.TrimPrefix(b, "v"), ".")
	for i := 0; i < len(pa) && i < len(pb); i++ {
		na, errA := strconv.Atoi(pa[i])
		nb, errB := strconv.Atoi(pb[i])
		switch {
		case errA == nil && errB == nil && na != nb:
			return na < nb
		case (errA != nil || errB != nil) && pa[i] != pb[i]:
			return pa[i] < pb[i]
		}
	}
	return len(pa) < len(pb)
}

func inside(root, dir string) bool {
	rel, err := filepath.Rel(root, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func mustRel(base, path string) string {
	if rel, err := filepath.Rel(base, path); err == nil {
		return rel
	}
	return path
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}
