// Package resolver is the resolver worker: a stateless gRPC service that finds the
// $imagepolicy markers of a KCL program and turns the ImagePolicies' latest refs
// into substitutions for the compiler.
//
// Until the image-policy work lands it answers that a program has no markers; the
// contract (proto/resolver/v1) is already complete.
package resolver

import (
	"github.com/spf13/pflag"
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
	// Concurrent bounds the resolutions in flight on this worker; more wait.
	Concurrent int
}

// DefaultConfig is the configuration the flags start from.
func DefaultConfig() Config {
	return Config{GRPCAddr: ":9091", MetricsAddr: ":8080", HealthAddr: ":9440", Concurrent: 4}
}

// BindFlags registers the flags on fs, defaulting to the values already in c.
func (c *Config) BindFlags(fs *pflag.FlagSet) {
	fs.StringVar(&c.GRPCAddr, "grpc-addr", c.GRPCAddr, "The address the gRPC server binds to; empty disables it.")
	fs.StringVar(&c.MetricsAddr, "metrics-addr", c.MetricsAddr, "The address the metric endpoint binds to; empty disables it.")
	fs.StringVar(&c.HealthAddr, "health-addr", c.HealthAddr, "The address the health endpoint binds to; empty disables it.")
	fs.IntVar(&c.Concurrent, "concurrent", c.Concurrent, "The number of concurrent resolutions.")
}
