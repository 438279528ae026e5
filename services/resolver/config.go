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

	"github.com/kcl-lang/flux-kcl-controller/internal/grpcworker"
	"github.com/kcl-lang/flux-kcl-controller/internal/tlsfiles"
)

// Config holds the resolver's flags.
type Config struct {
	// GRPCAddr is where the gRPC server listens; empty opens no listener (all-in-one
	// mode registers the service on an in-process server instead).
	GRPCAddr string
	// MetricsAddr serves Prometheus metrics on /metrics; empty disables it.
	MetricsAddr string
	// HealthAddr serves /healthz and /readyz for HTTP probes; empty disables it.
	HealthAddr string
	// EnablePprof serves the pprof endpoints under /debug/pprof/ on the metrics address.
	EnablePprof bool
	// TLS serves gRPC over mutual TLS (--grpc-tls-cert-file, --grpc-tls-key-file,
	// --grpc-tls-ca-file); zero serves plaintext.
	TLS tlsfiles.Files
	// Concurrent bounds the resolutions in flight on this worker; more wait.
	Concurrent int
	// ScanCacheEntries bounds the cache of scanned programs (markers by artifact
	// digest and path); 0 disables it.
	ScanCacheEntries int

	// ArtifactCacheDir keeps unpacked artifacts by digest; empty uses a temporary folder.
	ArtifactCacheDir string
	// ArtifactCacheBytes bounds the artifact cache on disk.
	ArtifactCacheBytes int64
	// ArtifactMaxBytes refuses bigger artifacts.
	ArtifactMaxBytes int64
}

// DefaultConfig is the configuration the flags start from.
func DefaultConfig() Config {
	return Config{
		GRPCAddr:           ":9090",
		MetricsAddr:        ":8080",
		HealthAddr:         ":9440",
		Concurrent:         4,
		ScanCacheEntries:   4096,
		ArtifactCacheBytes: 1 << 30,
		ArtifactMaxBytes:   100 << 20,
	}
}

// BindFlags registers the flags on fs, defaulting to the values already in c.
func (c *Config) BindFlags(fs *pflag.FlagSet) {
	fs.StringVar(&c.GRPCAddr, "grpc-addr", c.GRPCAddr, "The address the gRPC server binds to; empty disables it.")
	fs.StringVar(&c.MetricsAddr, "metrics-addr", c.MetricsAddr, "The address the metric endpoint binds to; empty disables it.")
	fs.StringVar(&c.HealthAddr, "health-addr", c.HealthAddr, "The address the health endpoint binds to; empty disables it.")
	fs.BoolVar(&c.EnablePprof, "enable-pprof", c.EnablePprof, "Serve the pprof endpoints under /debug/pprof/ on the metrics address.")
	grpcworker.BindTLSFlags(fs, &c.TLS)
	fs.IntVar(&c.Concurrent, "concurrent", c.Concurrent, "The number of concurrent resolutions.")
	fs.IntVar(&c.ScanCacheEntries, "scan-cache-entries", c.ScanCacheEntries, "The number of scanned programs kept in memory; 0 disables the cache.")
	fs.StringVar(&c.ArtifactCacheDir, "artifact-cache-dir", c.ArtifactCacheDir, "The folder caching unpacked artifacts by digest; empty uses a temporary folder.")
	fs.Int64Var(&c.ArtifactCacheBytes, "artifact-cache-bytes", c.ArtifactCacheBytes, "The disk bound of the artifact cache.")
	fs.Int64Var(&c.ArtifactMaxBytes, "artifact-max-bytes", c.ArtifactMaxBytes, "The maximum size of an artifact.")
}
