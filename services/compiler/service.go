package compiler

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sync/singleflight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/kcl-lang/flux-kcl-controller/internal/artifact"
	"github.com/kcl-lang/flux-kcl-controller/internal/grpcworker"
	"github.com/kcl-lang/flux-kcl-controller/internal/metricsendpoint"
	"github.com/kcl-lang/flux-kcl-controller/kcl/mod/fetch"
	compilerv1 "github.com/kcl-lang/flux-kcl-controller/proto/compiler/v1"
)

// ServiceName is the gRPC service name, also used for health checks.
const ServiceName = "fluxkcl.compiler.v1.Compiler"

// ArtifactFetcher gets the artifacts the requests name (see artifact.Opener).
type ArtifactFetcher = artifact.Opener

// Deps are the compiler's injected dependencies.
type Deps struct {
	// Fetcher gets artifacts; nil builds one from the artifact flags of Config.
	Fetcher ArtifactFetcher
	// Registerer receives the metrics; nil uses a private registry, served on
	// Config.MetricsAddr.
	Registerer prometheus.Registerer
	// Logger receives one line per compilation at V(1), errors at V(0).
	Logger logr.Logger
	// Packages is the KCL package store; nil opens one from Config.Packages.
	Packages *fetch.Store
}

// Service is the compiler gRPC service.
type Service struct {
	compilerv1.UnimplementedCompilerServer

	cfg      Config
	fetcher  ArtifactFetcher
	packages *fetch.Store
	log      logr.Logger
	metrics  *metrics
	gatherer prometheus.Gatherer
	cache    *resultCache
	slots    chan struct{}
	inflight singleflight.Group
	health   *health.Server
}

// New validates the configuration and builds the service.
func New(cfg Config, deps Deps) (*Service, error) {
	if cfg.Concurrent < 1 {
		return nil, fmt.Errorf("--concurrent must be at least 1, got %d", cfg.Concurrent)
	}
	if cfg.CompileTimeout <= 0 {
		return nil, fmt.Errorf("--compile-timeout must be positive, got %s", cfg.CompileTimeout)
	}
	if cfg.MaxOutputBytes <= 0 {
		return nil, fmt.Errorf("--max-output-bytes must be positive, got %d", cfg.MaxOutputBytes)
	}
	fetcher := deps.Fetcher
	if fetcher == nil {
		var err error
		if fetcher, err = cfg.CacheFlags.Opener("compiler"); err != nil {
			return nil, fmt.Errorf("artifact fetcher: %w", err)
		}
	}
	registerer, gatherer := metricsendpoint.Registries(deps.Registerer)
	m, err := newMetrics(registerer)
	if err != nil {
		return nil, fmt.Errorf("registering metrics: %w", err)
	}
	packages := deps.Packages
	if packages == nil {
		pkgCfg := cfg.Packages
		if pkgCfg.Policy, err = cfg.PackagePolicy.Fetch(); err != nil {
			return nil, err
		}
		if packages, err = pkgCfg.Open(nil); err != nil {
			return nil, fmt.Errorf("KCL package store: %w", err)
		}
	}
	if err := registerPackageMetrics(registerer, packages); err != nil {
		return nil, fmt.Errorf("registering metrics: %w", err)
	}
	s := &Service{
		cfg:      cfg,
		fetcher:  fetcher,
		packages: packages,
		log:      deps.Logger,
		metrics:  m,
		gatherer: gatherer,
		cache:    newResultCache(cfg.ResultCacheBytes),
		slots:    make(chan struct{}, cfg.Concurrent),
		health:   health.NewServer(),
	}
	s.health.SetServingStatus(ServiceName, healthpb.HealthCheckResponse_SERVING)
	return s, nil
}

// Register adds the Compiler service to a gRPC server (the service's own in Run,
// or an in-process one in all-in-one mode).
func (s *Service) Register(r grpc.ServiceRegistrar) {
	compilerv1.RegisterCompilerServer(r, s)
}

// Health is the service's gRPC health server, for servers built by the caller.
func (s *Service) Health() *health.Server { return s.health }

// ServerOptions are the options a gRPC server hosting the service needs: replies
// can be as big as the output limit allows; connections are recycled every few
// minutes so clients re-resolve the service name and find new replicas (the DNS
// resolver does not poll); clients' keepalive pings are welcome.
func (s *Service) ServerOptions() []grpc.ServerOption {
	return append(grpcworker.ConnectionOptions(s.cfg.CompileTimeout+10*time.Second),
		grpc.MaxSendMsgSize(int(maxMessageBytes(s.cfg.MaxOutputBytes))))
}

// maxMessageBytes leaves room for JSON being a little bigger than YAML.
func maxMessageBytes(maxOutput int64) int64 {
	return 2*maxOutput + 1<<20
}

// Run serves gRPC on Config.GRPCAddr (if set) plus the metrics and health
// endpoints, until ctx ends.
func (s *Service) Run(ctx context.Context) error {
	return grpcworker.Run(ctx, s.cfg.GRPCAddr, s.worker())
}

// Serve is Run on a listener the caller opened (nil serves no gRPC).
func (s *Service) Serve(ctx context.Context, lis net.Listener) error {
	return grpcworker.Serve(ctx, lis, s.worker())
}

func (s *Service) worker() grpcworker.Worker {
	return grpcworker.Worker{
		Register:      s.Register,
		ServerOptions: s.ServerOptions(),
		Health:        s.health,
		Gatherer:      s.gatherer,
		Endpoints:     s.cfg.Endpoints,
	}
}
