package localbuild

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/google/go-containerregistry/pkg/authn"

	"github.com/kcl-lang/flux-kcl-controller/internal/kclpackage"
	"github.com/kcl-lang/flux-kcl-controller/kcl/mod"
)

// DefaultPackages is the package configuration of a workstation: the user's
// cache folder, the compiler's limits.
func DefaultPackages() kclpackage.Config {
	c := kclpackage.DefaultConfig()
	c.CacheDir = kclpackage.UserCacheDir()
	return c
}

// resolvePackages resolves the program's kcl.mod dependencies as the compiler
// does and logs what each resolved to.
func resolvePackages(ctx context.Context, opts Options, log io.Writer) (*mod.Resolution, func(), error) {
	external := map[string]string{}
	for name, dir := range opts.External {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, nil, fmt.Errorf("package %s: %w", name, err)
		}
		external[name] = abs
	}
	resolveOpts := mod.Options{Vendor: opts.Vendor, External: external}
	release := func() {}
	if file, err := mod.ReadFile(opts.Dir); err != nil || file == nil || len(file.Dependencies) == 0 {
		res := &mod.Resolution{}
		for name, dir := range external {
			res.Packages = append(res.Packages, mod.Resolved{Name: name, Source: dir, Dir: dir, Local: true})
		}
		return res, release, err
	}
	if !opts.Vendor {
		store, err := opts.Packages.Open(authn.DefaultKeychain)
		if err != nil {
			return nil, nil, err
		}
		session := store.Session(nil)
		resolveOpts.Fetcher, release = session, session.Release
	}
	res, err := mod.Resolve(ctx, opts.Dir, resolveOpts)
	if err != nil {
		release()
		return nil, nil, err
	}
	for _, p := range res.Packages {
		pinned := "not locked"
		switch {
		case p.Locked:
			pinned = "locked, sum verified"
		case p.Vendored:
			pinned = "vendored"
		case p.Local && opts.External[p.Name] != "":
			pinned = "given with -E"
		case p.Local:
			pinned = "local"
		}
		at := ""
		if p.Digest != "" {
			at = " @ " + p.Digest
		}
		fmt.Fprintf(log, "package %s %s ← %s%s (%s)\n", p.Name, p.Version, p.Source, at, pinned)
	}
	return res, release, nil
}
