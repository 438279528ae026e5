// Package resolver is the resolver worker: a stateless gRPC service that finds the
// $imagepolicy markers of a KCL program and turns the ImagePolicies' latest refs
// into substitutions for the compiler.
//
// Markers are found and resolved by internal/imagepolicy; this package adds the
// artifact fetch, a scan cache and the gRPC contract (proto/resolver/v1). It never
// reads the cluster: the caller passes the ImagePolicies, and is told which ones
// it did not pass.
package resolver

import (
	"github.com/spf13/pflag"

	"github.com/kcl-lang/flux-kcl-controller/internal/artifact"
	"github.com/kcl-lang/flux-kcl-controller/internal/grpcworker"
)

// Config holds the resolver's flags.
type Config struct {
	grpcworker.Endpoints
	artifact.CacheFlags

	// Concurrent bounds the resolutions in flight on this worker; more wait.
	Concurrent int
	// ScanCacheEntries bounds the cache of scanned programs (markers by artifact
	// digest and path); 0 disables it.
	ScanCacheEntries int
}

// DefaultConfig is the configuration the flags start from.
func DefaultConfig() Config {
	return Config{
		Endpoints:        grpcworker.DefaultEndpoints(),
		CacheFlags:       artifact.DefaultCacheFlags(),
		Concurrent:       4,
		ScanCacheEntries: 4096,
	}
}

// BindFlags registers the flags on fs, defaulting to the values already in c.
func (c *Config) BindFlags(fs *pflag.FlagSet) {
	c.Endpoints.BindFlags(fs)
	fs.IntVar(&c.Concurrent, "concurrent", c.Concurrent, "The number of concurrent resolutions.")
	fs.IntVar(&c.ScanCacheEntries, "scan-cache-entries", c.ScanCacheEntries, "The number of scanned programs kept in memory; 0 disables the cache.")
	c.CacheFlags.BindFlags(fs)
}
