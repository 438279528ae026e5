package resolver

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/kcl-lang/flux-kcl-controller/internal/artifact"
	"github.com/kcl-lang/flux-kcl-controller/internal/grpcworker"
	"github.com/kcl-lang/flux-kcl-controller/internal/metricsendpoint"
	resolverv1 "github.com/kcl-lang/flux-kcl-controller/proto/resolver/v1"
)

// ServiceName is the gRPC service name, also used for health checks.
const ServiceName = "fluxkcl.resolver.v1.Resolver"

// ArtifactFetcher gets the artifacts the requests name (see artifact.Opener).
type ArtifactFetcher = artifact.Opener

// Deps are the resolver's injected dependencies.
type Deps struct {
	// Fetcher gets artifacts; nil builds one from the artifact flags of Config.
	Fetcher ArtifactFetcher
	// Registerer receives the metrics; nil uses a private registry, served on
	// Config.MetricsAddr.
	Registerer prometheus.Registerer
	Logger     logr.Logger
}

// Service is the resolver gRPC service.
type Service struct {
	resolverv1.UnimplementedResolverServer

	cfg      Config
	fetcher  ArtifactFetcher
	scans    *scanCache
	slots    chan struct{}
	log      logr.Logger
	gatherer prometheus.Gatherer
	requests *prometheus.CounterVec
	health   *health.Server
}

// New validates the configuration and builds the service.
func New(cfg Config, deps Deps) (*Service, error) {
	if cfg.Concurrent < 1 {
		return nil, fmt.Errorf("--concurrent must be at least 1, got %d", cfg.Concurrent)
	}
	fetcher := deps.Fetcher
	if fetcher == nil {
		var err error
		if fetcher, err = cfg.CacheFlags.Opener("resolver"); err != nil {
			return nil, fmt.Errorf("artifact fetcher: %w", err)
		}
	}
	registerer, gatherer := metricsendpoint.Registries(deps.Registerer)
	requests := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "flux_kcl_resolve_total",
		Help: "Resolve requests by outcome (resolved, held, missing, error).",
	}, []string{"result"})
	if err := registerer.Register(requests); err != nil {
		return nil, fmt.Errorf("registering metrics: %w", err)
	}
	s := &Service{
		cfg:      cfg,
		fetcher:  fetcher,
		scans:    newScanCache(cfg.ScanCacheEntries),
		slots:    make(chan struct{}, cfg.Concurrent),
		log:      deps.Logger,
		gatherer: gatherer,
		requests: requests,
		health:   health.NewServer(),
	}
	s.health.SetServingStatus(ServiceName, healthpb.HealthCheckResponse_SERVING)
	return s, nil
}

// Register adds the Resolver service to a gRPC server.
func (s *Service) Register(r grpc.ServiceRegistrar) {
	resolverv1.RegisterResolverServer(r, s)
}

// Health is the service's gRPC health server, for servers built by the caller.
func (s *Service) Health() *health.Server { return s.health }

// ServerOptions are the options a gRPC server hosting the service needs:
// connections are recycled every few minutes so clients re-resolve the service
// name and find new replicas (the DNS resolver does not poll); clients'
// keepalive pings are welcome.
func (s *Service) ServerOptions() []grpc.ServerOption {
	return grpcworker.ConnectionOptions(time.Minute)
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
