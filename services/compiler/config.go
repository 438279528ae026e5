// Package compiler is the compiler worker: a stateless gRPC service that fetches a
// Flux artifact, runs the pure-Go KCL engine on a program inside it and returns the
// Kubernetes objects, or the program's error located at file:line:col.
package compiler

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/kcl-lang/flux-kcl-controller/internal/artifact"
	"github.com/kcl-lang/flux-kcl-controller/internal/grpcworker"
	"github.com/kcl-lang/flux-kcl-controller/internal/kclpackage"
)

// Config holds the compiler's flags.
type Config struct {
	grpcworker.Endpoints
	artifact.CacheFlags

	// Concurrent bounds the engine runs in flight on this worker; more wait.
	Concurrent int
	// CompileTimeout caps the engine run of one request.
	CompileTimeout time.Duration
	// MaxOutputBytes caps the YAML output of one request.
	MaxOutputBytes int64
	// ResultCacheBytes bounds the result cache; 0 disables it.
	ResultCacheBytes int64

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
		Endpoints:        grpcworker.DefaultEndpoints(),
		CacheFlags:       artifact.DefaultCacheFlags(),
		Concurrent:       4,
		CompileTimeout:   30 * time.Second,
		MaxOutputBytes:   64 << 20,
		ResultCacheBytes: 256 << 20,
		Packages:         kclpackage.DefaultConfig(),
		PackagePolicy:    kclpackage.DefaultPolicy(),
	}
}

// BindFlags registers the flags on fs, defaulting to the values already in c.
func (c *Config) BindFlags(fs *pflag.FlagSet) {
	c.Endpoints.BindFlags(fs)
	fs.IntVar(&c.Concurrent, "concurrent", c.Concurrent, "The number of concurrent compilations.")
	fs.DurationVar(&c.CompileTimeout, "compile-timeout", c.CompileTimeout, "The maximum duration of one compilation (requests may ask for less).")
	fs.Int64Var(&c.MaxOutputBytes, "max-output-bytes", c.MaxOutputBytes, "The maximum size of the YAML output of one compilation.")
	fs.Int64Var(&c.ResultCacheBytes, "result-cache-bytes", c.ResultCacheBytes, "The memory bound of the compile result cache; 0 disables it.")
	c.CacheFlags.BindFlags(fs)
	c.Packages.BindFlags(fs)
	c.PackagePolicy.BindFlags(fs)
}
