// Package compiler is the compiler worker: a stateless gRPC service that fetches a
// Flux artifact, runs the pure-Go KCL engine on a program inside it and returns the
// Kubernetes objects, or the program's error located at file:line:col.
package compiler

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/kcl-lang/flux-kcl-controller/internal/grpcworker"
	"github.com/kcl-lang/flux-kcl-controller/internal/kclpackage"
	"github.com/kcl-lang/flux-kcl-controller/internal/tlsfiles"
)

// Config holds the compiler's flags.
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

	// Concurrent bounds the engine runs in flight on this worker; more wait.
	Concurrent int
	// CompileTimeout caps the engine run of one request.
	CompileTimeout time.Duration
	// MaxOutputBytes caps the YAML output of one request.
	MaxOutputBytes int64
	// ResultCacheBytes bounds the result cache; 0 disables it.
	ResultCacheBytes int64

	// ArtifactCacheDir keeps unpacked artifacts by digest; empty uses a temporary folder.
	ArtifactCacheDir string
	// ArtifactCacheBytes bounds the artifact cache on disk.
	ArtifactCacheBytes int64
	// ArtifactMaxBytes refuses bigger artifacts.
	ArtifactMaxBytes int64

	// Packages configure the download of the programs' KCL packages (kcl.mod
	// dependencies): cache, size and time limits, registry mirrors, plain HTTP, CAs.
	Packages kclpackage.Config
	// PackagePolicy is the lockdown of package sources (--no-remote-packages,
	// --allowed-package-hosts, --allowed-package-networks).
	PackagePolicy kclpackage.Policy
}

// DefaultConfig is the configuration the flags start from.
func DefaultConfig() Config {
	return Config{
		GRPCAddr:           ":9090",
		MetricsAddr:        ":8080",
		HealthAddr:         ":9440",
		Concurrent:         4,
		CompileTimeout:     30 * time.Second,
		MaxOutputBytes:     64 << 20,
		ResultCacheBytes:   256 << 20,
		ArtifactCacheBytes: 1 << 30,
		ArtifactMaxBytes:   100 << 20,
		Packages:           kclpackage.DefaultConfig(),
		PackagePolicy:      kclpackage.DefaultPolicy(),
	}
}

// BindFlags registers the flags on fs, defaulting to the values already in c.
func (c *Config) BindFlags(fs *pflag.FlagSet) {
	fs.StringVar(&c.GRPCAddr, "grpc-addr", c.GRPCAddr, "The address the gRPC server binds to; empty disables it.")
	fs.StringVar(&c.MetricsAddr, "metrics-addr", c.MetricsAddr, "The address the metric endpoint binds to; empty disables it.")
	fs.StringVar(&c.HealthAddr, "health-addr", c.HealthAddr, "The address the health endpoint binds to; empty disables it.")
	fs.BoolVar(&c.EnablePprof, "enable-pprof", c.EnablePprof, "Serve the pprof endpoints under /debug/pprof/ on the metrics address.")
	grpcworker.BindTLSFlags(fs, &c.TLS)
	fs.IntVar(&c.Concurrent, "concurrent", c.Concurrent, "The number of concurrent compilations.")
	fs.DurationVar(&c.CompileTimeout, "compile-timeout", c.CompileTimeout, "The maximum duration of one compilation (requests may ask for less).")
	fs.Int64Var(&c.MaxOutputBytes, "max-output-bytes", c.MaxOutputBytes, "The maximum size of the YAML output of one compilation.")
	fs.Int64Var(&c.ResultCacheBytes, "result-cache-bytes", c.ResultCacheBytes, "The memory bound of the compile result cache; 0 disables it.")
	fs.StringVar(&c.ArtifactCacheDir, "artifact-cache-dir", c.ArtifactCacheDir, "The folder caching unpacked artifacts by digest; empty uses a temporary folder.")
	fs.Int64Var(&c.ArtifactCacheBytes, "artifact-cache-bytes", c.ArtifactCacheBytes, "The disk bound of the artifact cache.")
	fs.Int64Var(&c.ArtifactMaxBytes, "artifact-max-bytes", c.ArtifactMaxBytes, "The maximum size of an artifact.")
	c.Packages.BindFlags(fs)
	c.PackagePolicy.BindFlags(fs)
}
