package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/go-containerregistry/pkg/authn"

	"github.com/kcl-lang/flux-kcl-controller/kcl"
	"github.com/kcl-lang/flux-kcl-controller/kcl/mod"
	"github.com/kcl-lang/flux-kcl-controller/kcl/mod/fetch"
)

// vendorFlag is --vendor's internal flag byte (it has no short form).
const vendorFlag = 0x01

// addPackages resolves the kcl.mod dependencies of the program, as `kcl run`
// does through kpm, into opts.ExternalPkgs. Packages the user gave (-E, and
// the settings files' package_maps under them) win over kcl.mod and are never
// fetched. Registries are logged in with the user's Docker config; kpm's
// KPM_REG and KPM_REPO move the default registry (ghcr.io/kcl-lang) and
// OCI_REG_PLAIN_HTTP=on speaks plain HTTP to it. Packages are cached under the
// user's cache folder.
func addPackages(ctx context.Context, opts *kcl.Options, cwd string, vendor bool) error {
	// A settings file that cannot be read is reported by the run itself.
	given, _ := kcl.PackageMaps(opts.WorkDir, opts.WorkDir, opts.Settings)
	for name, dir := range opts.ExternalPkgs {
		if given == nil {
			given = map[string]string{}
		}
		given[name] = dir
	}
	opts.ExternalPkgs = given
	modRoot := findModRoot(cwd)
	if modRoot == "" {
		return nil
	}
	file, err := mod.ReadFile(modRoot)
	if err != nil || file == nil || len(file.Dependencies) == 0 {
		return err
	}
	// On a workstation local path dependencies may be anywhere.
	resolveOpts := mod.Options{Vendor: vendor, Root: string(filepath.Separator), External: given}
	if !vendor {
		store, err := fetch.New(cliFetchOptions())
		if err != nil {
			return err
		}
		session := store.Session(nil)
		defer session.Release()
		resolveOpts.Fetcher = session
	}
	res, err := mod.Resolve(ctx, modRoot, resolveOpts)
	if err != nil {
		return err
	}
	opts.ExternalPkgs = res.ExternalPkgs()
	return nil
}

func cliFetchOptions() fetch.Options {
	cache := filepath.Join(os.TempDir(), "flux-kcl-controller-kcl-packages")
	if base, err := os.UserCacheDir(); err == nil {
		cache = filepath.Join(base, "flux-kcl-controller", "kcl-packages")
	}
	opts := fetch.Options{CacheDir: cache, Keychain: authn.DefaultKeychain}
	reg, repo := os.Getenv("KPM_REG"), os.Getenv("KPM_REPO")
	if reg != "" || repo != "" {
		if reg == "" {
			reg = mod.DefaultRegistry
		}
		if repo == "" {
			repo = mod.DefaultRepo
		}
		opts.Mirrors = []fetch.Mirror{{From: mod.DefaultRegistry + "/" + mod.DefaultRepo, To: reg + "/" + strings.Trim(repo, "/")}}
	}
	if v := strings.ToLower(os.Getenv("OCI_REG_PLAIN_HTTP")); v == "on" || v == "true" || v == "1" {
		opts.PlainHTTP = []string{reg}
	}
	return opts
}
