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
// does through kpm, into opts.ExternalPkgs; -E mappings win. Registries are
// logged in with the user's Docker config; kpm's KPM_REG and KPM_REPO move the
// default registry (ghcr.io/kcl-lang) and OCI_REG_PLAIN_HTTP=on speaks plain
// HTTP to it. Packages are cached under the user's cache folder.
func addPackages(ctx context.Context, opts *kcl.Options, cwd string, vendor bool) error {
	modRoot := findModRoot(cwd)
	if modRoot == "" {
		return nil
	}
	file, err := mod.ReadFile(modRoot)
	if err != nil || file == nil || len(file.Dependencies) == 0 {
		return err
	}
	// On a workstation local path dependencies may be anywhere.
	resolveOpts := mod.Options{Vendor: vendor, Root: string(filepath.Separator)}
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
	for name, dir := range res.ExternalPkgs() {
		if opts.ExternalPkgs == nil {
			opts.ExternalPkgs = map[string]string{}
		}
		if _, given := opts.ExternalPkgs[name]; !given {
			opts.ExternalPkgs[name] = dir
		}
	}
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
