package localbuild

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/google/go-containerregistry/pkg/authn"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/imagepolicy"
	"github.com/kcl-lang/flux-kcl-controller/kcl"
	"github.com/kcl-lang/flux-kcl-controller/kcl/mod"
)

// buildDirect runs the engine itself, for packages given with -E: the controller has no
// such input (a settings file's package_maps inside the artifact is its way), so its
// workers cannot render such a build. The output is the engine's YAML as it is.
func buildDirect(ctx context.Context, opts Options, out, log io.Writer) error {
	if opts.Namespace == "" {
		opts.Namespace = "default"
	}
	policies, err := readPolicyFiles(opts.PolicyFiles, opts.Namespace)
	if err != nil {
		return err
	}
	programDir := filepath.Join(opts.Dir, opts.Path)
	markers, err := imagepolicy.ScanProgram(os.DirFS(programDir), ".")
	if err != nil {
		return err
	}
	lookup := func(ctx context.Context, ns, name string) (*imagepolicy.LatestRef, bool, error) {
		if ref, ok := policies[ns+"/"+name]; ok {
			return ref, true, nil
		}
		if opts.Cluster == nil {
			return nil, false, nil
		}
		return readClusterPolicy(ctx, opts.Cluster, ns, name)
	}
	res, err := imagepolicy.Resolve(ctx, markers, lookup, imagepolicy.Options{
		Namespace: opts.Namespace, NoCrossNamespaceRefs: opts.NoCrossNamespaceRefs,
	})
	if err != nil {
		return err
	}
	if len(res.Holds) > 0 {
		return &HoldError{Holds: res.Holds}
	}
	overrides, err := rewrite(programDir, res.Substitutions)
	if err != nil {
		return err
	}
	for _, s := range res.Substitutions {
		if s.Changed() {
			fmt.Fprintf(log, "%s: %s → %s (policy %s)\n", s.Location(), s.Literal, s.New, s.PolicyKey)
		}
	}
	packages, release, err := resolvePackages(ctx, programDir, opts, log)
	if err != nil {
		return err
	}
	defer release()
	cfg := opts.Config
	if cfg == nil {
		cfg = &v1alpha1.ConfigSpec{}
	}
	result, err := kcl.Run(ctx, kcl.Options{
		WorkDir: programDir, Root: opts.Dir, Arguments: append(append([]string(nil), cfg.Arguments...), opts.Arguments...),
		Settings: cfg.Settings, Overrides: cfg.Overrides, PathSelectors: cfg.PathSelectors,
		SortKeys: cfg.SortKeys, ShowHidden: cfg.ShowHidden, DisableNone: cfg.DisableNone,
		FileOverrides: overrides, ExternalPkgs: packages.ExternalPkgs(),
	})
	if err != nil {
		return err
	}
	_, err = out.Write(result.YAML)
	return err
}

// rewrite applies the substitutions file by file, for kcl.Options.FileOverrides.
func rewrite(dir string, subs []imagepolicy.Substitution) (map[string][]byte, error) {
	byFile := map[string][]imagepolicy.Substitution{}
	for _, s := range subs {
		byFile[s.File] = append(byFile[s.File], s)
	}
	overrides := map[string][]byte{}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("opening program folder: %w", err)
	}
	defer root.Close()
	for file, fileSubs := range byFile {
		src, err := root.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", file, err)
		}
		if overrides[file], err = imagepolicy.Rewrite(src, fileSubs); err != nil {
			return nil, err
		}
	}
	return overrides, nil
}

// resolvePackages resolves the program's kcl.mod dependencies as the compiler
// does and logs what each resolved to.
func resolvePackages(ctx context.Context, programDir string, opts Options, log io.Writer) (*mod.Resolution, func(), error) {
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
	if file, err := mod.ReadFile(programDir); err != nil || file == nil || len(file.Dependencies) == 0 {
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
	res, err := mod.Resolve(ctx, programDir, resolveOpts)
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
