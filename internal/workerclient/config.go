// Package workerclient is the applier's client for the compiler and resolver
// workers. It spreads calls over every replica behind an address (client-side
// round-robin), retries a call on another replica when one dies mid-call (the
// calls are idempotent), and can run against in-process servers so the
// all-in-one binary opens no port.
package workerclient

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/kcl-lang/flux-kcl-controller/internal/tlsfiles"
)

// Config holds the client's flags.
type Config struct {
	// CompilerAddr and ResolverAddr are gRPC targets: "dns:///name:port" (every
	// address the name resolves to is used, re-resolved when one fails), a bare
	// "host:port" (dialled as dns:///host:port), or a comma-separated list of
	// host:port served round-robin.
	CompilerAddr string
	ResolverAddr string
	// MaxAttempts bounds the tries of one call on UNAVAILABLE (gRPC caps it at 5).
	MaxAttempts int
	// MaxMessageBytes bounds a reply (objects can be many megabytes).
	MaxMessageBytes int
	// KeepaliveTime pings an idle connection so a vanished replica is noticed.
	KeepaliveTime time.Duration
	// TLS dials the workers over mutual TLS: this client's certificate and key, and the
	// CA the workers' certificates must chain to; re-read when the files change. Zero
	// dials plaintext.
	TLS tlsfiles.Files
	// TLSServerName is the name the workers' certificates must hold; empty uses the
	// host of each address (kcl-compiler for dns:///kcl-compiler:9090).
	TLSServerName string
}

// DefaultConfig is the configuration the flags start from.
func DefaultConfig() Config {
	return Config{
		CompilerAddr:    "dns:///kcl-compiler:9090",
		ResolverAddr:    "dns:///kcl-resolver:9090",
		MaxAttempts:     5,
		MaxMessageBytes: 256 << 20,
		KeepaliveTime:   30 * time.Second,
	}
}

// BindFlags registers the flags on fs, defaulting to the values already in c.
func (c *Config) BindFlags(fs *pflag.FlagSet) {
	fs.StringVar(&c.CompilerAddr, "compiler-addr", c.CompilerAddr, "The gRPC target of the compiler workers (dns:///name:port, host:port or a comma-separated list).")
	fs.StringVar(&c.ResolverAddr, "resolver-addr", c.ResolverAddr, "The gRPC target of the resolver workers (dns:///name:port, host:port or a comma-separated list).")
	fs.IntVar(&c.MaxAttempts, "worker-max-attempts", c.MaxAttempts, "The attempts of one worker call on UNAVAILABLE, each on another replica when there are several.")
	c.TLS.BindFlags(fs, "grpc-tls", "PEM CA bundle the workers' certificates must chain to; with --grpc-tls-cert-file and --grpc-tls-key-file the workers are dialled over mutual TLS.")
	fs.StringVar(&c.TLSServerName, "grpc-tls-server-name", c.TLSServerName, "The name the workers' certificates must hold; empty uses the host of --compiler-addr and --resolver-addr.")
}
