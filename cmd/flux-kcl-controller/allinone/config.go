// Package allinone runs the four services of flux-kcl-controller in one
// process: an embedded NATS server with JetStream, the compiler and resolver
// served over in-process gRPC, the applier and the watcher — the code paths of
// the split deployment, without ports between them.
package allinone

import (
	"github.com/spf13/pflag"

	"github.com/kcl-lang/flux-kcl-controller/services/applier"
	"github.com/kcl-lang/flux-kcl-controller/services/compiler"
	"github.com/kcl-lang/flux-kcl-controller/services/resolver"
	"github.com/kcl-lang/flux-kcl-controller/services/watcher"
)

// Config is the configuration of every service plus the process's own.
type Config struct {
	Watcher  watcher.Config
	Applier  applier.Config
	Compiler compiler.Config
	Resolver resolver.Config

	// NATSAddr is where the embedded NATS server also listens for outside
	// clients (the nats CLI, a split service); empty listens nowhere. Port 0
	// picks a free port.
	NATSAddr string
	// NATSStoreDir holds the JetStream store; empty uses a temporary folder
	// removed at exit (pending requests are then lost on restart).
	NATSStoreDir string
	// NATSLog turns on the NATS server's own log.
	NATSLog bool
	// MetricsAddr serves the metrics of all services; empty disables it.
	MetricsAddr string
	// HealthAddr serves /healthz and /readyz; empty disables it.
	HealthAddr string
}

// DefaultConfig returns the defaults of the services and of the process.
func DefaultConfig() Config {
	return Config{
		Watcher:      watcher.DefaultConfig(),
		Applier:      applier.DefaultConfig(),
		Compiler:     compiler.DefaultConfig(),
		Resolver:     resolver.DefaultConfig(),
		NATSAddr:     "", // in-process only: no port unless asked for
		NATSStoreDir: "",
		MetricsAddr:  ":8080",
		HealthAddr:   ":9440",
	}
}

// ownFlags are the services' flags the all-in-one process replaces: one
// metrics and one health endpoint, no gRPC listeners, no worker addresses.
var ownFlags = map[string]bool{
	"metrics-addr": true, "health-addr": true, "grpc-addr": true,
	"grpc-tls-cert-file": true, "grpc-tls-key-file": true, "grpc-tls-ca-file": true,
}

// BindFlags registers the process's flags and every service's flags; a flag
// several services share (--concurrent) sets all of them.
func (c *Config) BindFlags(fs *pflag.FlagSet) {
	fs.StringVar(&c.NATSAddr, "nats-addr", c.NATSAddr, "Address the embedded NATS server also listens on for outside clients (no authentication: keep it on loopback); empty, the default, keeps NATS in-process. Port 0 picks one.")
	fs.StringVar(&c.NATSStoreDir, "nats-store-dir", c.NATSStoreDir, "Folder of the embedded JetStream store; empty uses a temporary folder.")
	fs.BoolVar(&c.NATSLog, "nats-log", c.NATSLog, "Log the embedded NATS server's messages.")
	fs.StringVar(&c.MetricsAddr, "metrics-addr", c.MetricsAddr, "The address the metric endpoint of all services binds to; empty disables it.")
	fs.StringVar(&c.HealthAddr, "health-addr", c.HealthAddr, "The address the health endpoint binds to; empty disables it.")

	sets := []*pflag.FlagSet{
		pflag.NewFlagSet("watcher", pflag.ContinueOnError),
		pflag.NewFlagSet("applier", pflag.ContinueOnError),
		pflag.NewFlagSet("compiler", pflag.ContinueOnError),
		pflag.NewFlagSet("resolver", pflag.ContinueOnError),
	}
	// BindFlags resets the values to the flag defaults; keep ours.
	w, a, co, r := c.Watcher, c.Applier, c.Compiler, c.Resolver
	c.Watcher.BindFlags(sets[0])
	c.Applier.BindFlags(sets[1])
	c.Compiler.BindFlags(sets[2])
	c.Resolver.BindFlags(sets[3])
	c.Watcher, c.Applier, c.Compiler, c.Resolver = w, a, co, r
	mergeFlags(fs, ownFlags, sets...)
}
