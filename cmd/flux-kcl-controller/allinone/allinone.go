package allinone

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/go-logr/logr"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sync/errgroup"
	"k8s.io/client-go/rest"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/kcl-lang/flux-kcl-controller/internal/metricsendpoint"
	"github.com/kcl-lang/flux-kcl-controller/internal/probes"
	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
	"github.com/kcl-lang/flux-kcl-controller/services/applier"
	"github.com/kcl-lang/flux-kcl-controller/services/compiler"
	"github.com/kcl-lang/flux-kcl-controller/services/resolver"
	"github.com/kcl-lang/flux-kcl-controller/services/watcher"
)

// Deps are the process's injected dependencies.
type Deps struct {
	// RestConfig reaches the cluster.
	RestConfig *rest.Config
	// Logger receives every service's logs.
	Logger logr.Logger
}

// Process is a running all-in-one controller.
type Process struct {
	cfg  Config
	deps Deps

	nats      *embeddedNATS
	started   chan struct{}
	applierUp <-chan struct{}
}

// New validates the configuration; Run starts everything.
func New(cfg Config, deps Deps) (*Process, error) {
	if deps.RestConfig == nil {
		return nil, errors.New("all-in-one needs a rest.Config")
	}
	// The embedded server is one node: a replicated stream could never be created.
	if cfg.Watcher.JetStreamReplicas > 1 || cfg.Applier.JetStreamReplicas > 1 {
		return nil, fmt.Errorf("--jetstream-replicas %d: the embedded NATS server is a single node, so its streams have one replica (run the split services against a NATS cluster to replicate them)",
			max(cfg.Watcher.JetStreamReplicas, cfg.Applier.JetStreamReplicas))
	}
	return &Process{cfg: cfg, deps: deps, started: make(chan struct{})}, nil
}

// Started is closed once NATS runs and every service was built and started.
func (p *Process) Started() <-chan struct{} { return p.started }

// NATSURL is the embedded NATS server's client URL for outside clients, valid
// after Started; empty when it listens nowhere.
func (p *Process) NATSURL() string {
	if p.nats == nil {
		return ""
	}
	return p.nats.url()
}

// Run starts NATS and the four services, and stops them when ctx ends or one
// of them fails.
func (p *Process) Run(ctx context.Context) error {
	log := p.deps.Logger
	embedded, err := startNATS(p.cfg.NATSAddr, p.cfg.NATSStoreDir, p.cfg.NATSLog)
	if err != nil {
		return err
	}
	p.nats = embedded
	defer embedded.stop()
	log.Info("embedded NATS server with JetStream started", "url", embedded.url(), "storeDir", embedded.storeDir)

	// Two in-process connections, as the split services would have.
	watcherConn, err := embedded.connect("watcher")
	if err != nil {
		return err
	}
	defer watcherConn.Close()
	applierConn, err := embedded.connect("applier")
	if err != nil {
		return err
	}
	defer applierConn.Close()

	// One registry for the services that take one; the watcher's metrics live
	// in controller-runtime's, served alongside.
	registry := prometheus.NewRegistry()
	services, closeWorkers, err := p.build(registry, watcherConn, applierConn)
	if err != nil {
		return err
	}
	defer closeWorkers()

	stopping := ctx
	g, ctx := errgroup.WithContext(ctx)
	for name, run := range services {
		g.Go(func() error {
			// A service still starting when the process is told to stop (SIGTERM, a
			// test's end) returns the cancellation: that is the stop asked for.
			if err := run(ctx); err != nil && !(stopping.Err() != nil && errors.Is(err, context.Canceled)) {
				return fmt.Errorf("%s: %w", name, err)
			}
			return nil
		})
	}
	p.serveHTTP(ctx, g, prometheus.Gatherers{ctrlmetrics.Registry, registry}, applierConn)
	close(p.started)
	return g.Wait()
}

// build wires the services with the settings only the all-in-one process has:
// no gRPC listeners, no per-service HTTP endpoints.
func (p *Process) build(registry *prometheus.Registry, watcherConn, applierConn *nats.Conn) (map[string]func(context.Context) error, func(), error) {
	log := p.deps.Logger
	compilerCfg := p.cfg.Compiler
	compilerCfg.GRPCAddr, compilerCfg.MetricsAddr, compilerCfg.HealthAddr = "", "", ""
	compilerSvc, err := compiler.New(compilerCfg, compiler.Deps{Registerer: registry, Logger: log.WithName("compiler")})
	if err != nil {
		return nil, nil, fmt.Errorf("compiler: %w", err)
	}
	resolverCfg := p.cfg.Resolver
	resolverCfg.GRPCAddr, resolverCfg.MetricsAddr, resolverCfg.HealthAddr = "", "", ""
	resolverSvc, err := resolver.New(resolverCfg, resolver.Deps{Registerer: registry, Logger: log.WithName("resolver")})
	if err != nil {
		return nil, nil, fmt.Errorf("resolver: %w", err)
	}
	workers, err := workerclient.NewInProcess(compilerSvc, resolverSvc)
	if err != nil {
		return nil, nil, fmt.Errorf("in-process workers: %w", err)
	}
	closeWorkers := func() { _ = workers.Close() }

	js, err := jetstream.New(watcherConn)
	if err != nil {
		closeWorkers()
		return nil, nil, fmt.Errorf("JetStream client: %w", err)
	}
	watcherCfg := p.cfg.Watcher
	watcherCfg.MetricsAddr, watcherCfg.HealthAddr = "0", "0"
	watcherSvc, err := watcher.New(watcherCfg, watcher.Deps{RestConfig: p.deps.RestConfig, JetStream: js, Logger: log})
	if err != nil {
		closeWorkers()
		return nil, nil, fmt.Errorf("watcher: %w", err)
	}
	applierCfg := p.cfg.Applier
	applierCfg.MetricsAddr, applierCfg.HealthAddr = "", ""
	applierSvc, err := applier.New(applierCfg, applier.Deps{
		RESTConfig: p.deps.RestConfig,
		NATS:       applierConn,
		Compiler:   workers,
		Resolver:   workers,
		Registerer: registry,
		Logger:     log.WithName("applier"),
		// One process: the applier reads what the watcher's caches hold.
		WatchCache: watcherSvc.CacheReader(),
	})
	if err != nil {
		closeWorkers()
		return nil, nil, fmt.Errorf("applier: %w", err)
	}
	p.applierUp = applierSvc.Up()
	return map[string]func(context.Context) error{
		"compiler": compilerSvc.Run,
		"resolver": resolverSvc.Run,
		"applier":  applierSvc.Run,
		"watcher":  watcherSvc.Run,
	}, closeWorkers, nil
}

// serveHTTP serves the shared metrics and health endpoints.
func (p *Process) serveHTTP(ctx context.Context, g *errgroup.Group, gatherer prometheus.Gatherer, nc *nats.Conn) {
	pprof := p.cfg.Applier.EnablePprof || p.cfg.Watcher.EnablePprof // --enable-pprof sets both
	g.Go(func() error { return probes.Serve(ctx, p.cfg.MetricsAddr, metricsendpoint.Handler(gatherer, pprof)) })
	g.Go(func() error {
		return probes.Serve(ctx, p.cfg.HealthAddr, probes.Health(func(*http.Request) error {
			select {
			case <-p.applierUp:
			default:
				return errors.New("applier not consuming yet")
			}
			if !nc.IsConnected() {
				return errors.New("not connected to NATS")
			}
			return nil
		}))
	})
}
