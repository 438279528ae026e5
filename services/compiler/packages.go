package compiler

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kcl-lang/flux-kcl-controller/kcl"
	"github.com/kcl-lang/flux-kcl-controller/kcl/mod"
	"github.com/kcl-lang/flux-kcl-controller/kcl/mod/fetch"
	compilerv1 "github.com/kcl-lang/flux-kcl-controller/proto/compiler/v1"
)

// Error kinds of the program's KCL packages (kcl.mod dependencies).
const (
	// KindDependencyVerification: a package differs from the sum kcl.mod.lock records.
	KindDependencyVerification = "DependencyVerificationFailed"
	// KindDependencyNotFound: the registry or Git server has no such package (retried).
	KindDependencyNotFound = "DependencyNotFound"
	// KindDependencyUnauthorized: the registry refused the credentials (retried).
	KindDependencyUnauthorized = "DependencyUnauthorized"
	// KindDependencyFetch: the package could not be downloaded (retried).
	KindDependencyFetch = "DependencyFetchFailed"
	// KindDependencyRefused: the package-source policy refused the package's
	// host or address (not retried: only a new spec or revision changes it).
	// The applier writes it as the KCLRun's reason, v1alpha1.DependencyRefusedReason.
	KindDependencyRefused = "DependencyRefused"
	// KindRegistryCredentials: the request's registry credentials are malformed.
	KindRegistryCredentials = "RegistryCredentialsInvalid"
)

// requestCredentials parses the request's registry credentials (nil when none).
// The error text never quotes them.
func requestCredentials(req *compilerv1.CompileRequest) (*fetch.Credentials, error) {
	data := req.GetRegistryCredentials().GetDockerConfigJson()
	if len(data) == 0 {
		return nil, nil
	}
	return fetch.ParseDockerConfig(data)
}

// resolvePackages resolves the program's kcl.mod dependencies: vendored ones
// from the artifact, the others through the shared package store with this
// request's credentials. Packages the settings files map (package_maps, the
// settings' -E) win over kcl.mod and are never fetched; they must lie inside
// the artifact. The caller releases the session once the engine ran.
func (s *Service) resolvePackages(ctx context.Context, root, programDir string, settings []string, vendor bool, creds *fetch.Credentials) (*mod.Resolution, *fetch.Session, error) {
	opts := mod.Options{Vendor: vendor, Root: root}
	// A settings file that cannot be read is reported by the engine run.
	given, _ := kcl.PackageMaps(root, programDir, settings)
	for name, dir := range given {
		if rel, err := filepath.Rel(root, dir); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, nil, fmt.Errorf("%w: package_maps: package %s leaves the artifact", mod.ErrUnsafe, name)
		}
	}
	opts.External = given
	var session *fetch.Session
	if !vendor {
		session = s.packages.Session(creds)
		opts.Fetcher = session
	}
	res, err := mod.Resolve(ctx, programDir, opts)
	if err != nil {
		if session != nil {
			session.Release()
		}
		return nil, nil, err
	}
	if session == nil {
		session = s.packages.Session(nil) // nothing to release
	}
	return res, session, nil
}

// packageFailure turns a resolution error into the response: the program's
// own faults (a bad kcl.mod, a stale lock, a checksum mismatch, a missing
// vendored package) are compile-stage errors; download failures are
// artifact-stage errors, which the applier retries with backoff.
func packageFailure(err error, hide func(string) string) *compilerv1.CompileResponse {
	msg := hide(err.Error())
	switch {
	case errors.Is(err, fetch.ErrRefused):
		return failure(compilerv1.Error_STAGE_COMPILE, KindDependencyRefused, msg)
	case errors.Is(err, mod.ErrVerification):
		return failure(compilerv1.Error_STAGE_COMPILE, KindDependencyVerification, msg)
	case errors.Is(err, mod.ErrInvalid), errors.Is(err, mod.ErrNotVendored), errors.Is(err, mod.ErrUnsafe), errors.Is(err, fetch.ErrTooLarge):
		return failure(compilerv1.Error_STAGE_COMPILE, KindDependency, msg)
	case errors.Is(err, fetch.ErrNotFound):
		return failure(compilerv1.Error_STAGE_ARTIFACT, KindDependencyNotFound, msg)
	case errors.Is(err, fetch.ErrUnauthorized):
		return failure(compilerv1.Error_STAGE_ARTIFACT, KindDependencyUnauthorized, msg)
	default:
		return failure(compilerv1.Error_STAGE_ARTIFACT, KindDependencyFetch, msg)
	}
}

// packageList is the resolution as the response reports it.
func packageList(res *mod.Resolution) []*compilerv1.Package {
	if res == nil {
		return nil
	}
	out := make([]*compilerv1.Package, 0, len(res.Packages))
	for _, p := range res.Packages {
		out = append(out, &compilerv1.Package{
			Name: p.Name, Version: p.Version, Source: p.Source, Digest: p.Digest, Sum: p.Sum, Locked: p.Locked, Vendored: p.Vendored,
		})
	}
	return out
}

// packagePaths rewrites the cache folders of fetched packages in messages as
// name@version, which users recognise.
func packagePaths(res *mod.Resolution) *strings.Replacer {
	var pairs []string
	if res != nil {
		for _, p := range res.Packages {
			if !p.Local && !p.Vendored {
				pairs = append(pairs, p.Dir+string(filepath.Separator), p.Name+"@"+p.Version+"/", p.Dir, p.Name+"@"+p.Version)
			}
		}
	}
	return strings.NewReplacer(pairs...)
}

// registerPackageMetrics exposes the package cache's use.
func registerPackageMetrics(r prometheus.Registerer, store *fetch.Store) error {
	for _, c := range []prometheus.Collector{
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "flux_kcl_package_cache_hits_total", Help: "KCL packages served from the package cache.",
		}, func() float64 { return float64(store.Stats().Hits) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "flux_kcl_package_cache_misses_total", Help: "KCL packages downloaded.",
		}, func() float64 { return float64(store.Stats().Misses) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "flux_kcl_package_cache_bytes", Help: "Bytes of KCL packages on disk.",
		}, func() float64 { return float64(store.Stats().Bytes) }),
	} {
		if err := r.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// PackageStats reports the package cache's use (hits, misses, bytes).
func (s *Service) PackageStats() fetch.Stats { return s.packages.Stats() }
