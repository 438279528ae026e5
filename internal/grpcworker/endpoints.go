package grpcworker

import (
	"github.com/spf13/pflag"

	"github.com/kcl-lang/flux-kcl-controller/internal/tlsfiles"
)

// Endpoints are where a worker listens, the flags every worker has.
type Endpoints struct {
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
	// --grpc-tls-ca-file), the files re-read when they change; zero serves plaintext.
	// Probes use HealthAddr over plain HTTP, so they need no client certificate.
	TLS tlsfiles.Files
}

// DefaultEndpoints are the ports of the chart and deploy/.
func DefaultEndpoints() Endpoints {
	return Endpoints{GRPCAddr: ":9090", MetricsAddr: ":8080", HealthAddr: ":9440"}
}

// BindFlags registers the flags on fs, defaulting to the values already in e.
func (e *Endpoints) BindFlags(fs *pflag.FlagSet) {
	fs.StringVar(&e.GRPCAddr, "grpc-addr", e.GRPCAddr, "The address the gRPC server binds to; empty disables it.")
	fs.StringVar(&e.MetricsAddr, "metrics-addr", e.MetricsAddr, "The address the metric endpoint binds to; empty disables it.")
	fs.StringVar(&e.HealthAddr, "health-addr", e.HealthAddr, "The address the health endpoint binds to; empty disables it.")
	fs.BoolVar(&e.EnablePprof, "enable-pprof", e.EnablePprof, "Serve the pprof endpoints under /debug/pprof/ on the metrics address.")
	BindTLSFlags(fs, &e.TLS)
}
