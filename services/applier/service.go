package applier

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/fluxcd/pkg/auth"
	"github.com/fluxcd/pkg/cache"
	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/apiserveroutage"
	"github.com/kcl-lang/flux-kcl-controller/internal/kubescheme"
	"github.com/kcl-lang/flux-kcl-controller/internal/metricsendpoint"
	"github.com/kcl-lang/flux-kcl-controller/internal/probes"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
	"github.com/kcl-lang/flux-kcl-controller/services/applier/drift"
	"github.com/kcl-lang/flux-kcl-controller/services/applier/lease"
)

// Deps are the applier's injected collaborators.
type Deps struct {
	// RESTConfig reaches the cluster the KCLRuns live in; impersonated copies
	// of it apply the objects.
	RESTConfig *rest.Config
	// Client reads and writes KCLRuns, sources and arguments; nil builds one from RESTConfig.
	Client client.Client
	// NATS carries the reconcile requests and the leases.
	NATS *nats.Conn
	// Compiler and Resolver are the workers: a *workerclient.Client for both.
	Compiler Compiler
	// Resolver may be nil: programs are then compiled without image-policy substitutions.
	Resolver Resolver
	// Registerer receives the gotk_* metrics; nil uses a private registry served on MetricsAddr.
	Registerer prometheus.Registerer
	// Logger of the service.
	Logger logr.Logger
	// Hooks observe reconciles (tests and instrumentation); zero value is fine.
	Hooks Hooks
	// WatchCache is the watcher's caches when it runs in this process; nil
	// reads the apiserver (the split deployment).
	WatchCache WatchCache
}

// Hooks are called around every reconcile that holds the KCLRun's lease.
type Hooks struct {
	// Enter runs when a reconcile starts writing for key ("namespace/name").
	Enter func(key string)
	// Exit runs when that reconcile stops, before the message is acked.
	Exit func(key string, out Outcome)
	// FingerprintWrite, when set, runs before every write to the fingerprint
	// bucket (a store or a drop) for its key, lease.Key(namespace, name); an error fails the
	// write as an unavailable bucket would. Tests use it to lose writes.
	FingerprintWrite func(key string) error
}

// tokenCacheSize bounds the workload identity tokens kept (one per
// kubeConfig.configMapRef identity), as kustomize-controller's default.
const tokenCacheSize = 100

// Service is the applier.
type Service struct {
	cfg      Config
	log      logr.Logger
	client   client.Client
	rest     *rest.Config
	scheme   *runtime.Scheme
	js       jetstream.JetStream
	nc       *nats.Conn
	compiler Compiler
	resolver Resolver
	hooks    Hooks
	// selector is --watch-label-selector: the KCLRuns of this shard.
	selector labels.Selector

	leases       *lease.Leases
	here         *runningHere
	fingerprints *fingerprintBucket
	publisher    *reconcilerequest.Publisher
	clusters     *clusterClients
	events       *eventRecorder
	metrics      *metrics
	registry     *prometheus.Registry
	drift        *drift.Watcher
	remoteDrift  *remoteDrift // with drift, for spec.kubeConfig clusters
	// outage tells when the apiserver is back after a reconcile found it down.
	outage *apiserveroutage.Gate
	// rollouts are the ImageRollouts, read by the markers they govern.
	rollouts *imageRollouts
	// watchCache answers reads of the requests its watcher published.
	watchCache WatchCache
	// storage holds what KCLRuns in mode ExternalArtifact publish; nil
	// without --storage-path.
	storage *artifactStorage

	ready sync.Once
	isUp  chan struct{}
}

// New checks the configuration and wires the service; Run starts it.
func New(cfg Config, deps Deps) (*Service, error) {
	if cfg.Concurrent < 1 {
		return nil, fmt.Errorf("--concurrent must be at least 1, got %d", cfg.Concurrent)
	}
	if cfg.LeaseTTL < 3*time.Second {
		return nil, fmt.Errorf("--lease-ttl must be at least 3s, got %s", cfg.LeaseTTL)
	}
	if cfg.StoragePath != "" && cfg.ArtifactRetentionRecords < 1 {
		return nil, fmt.Errorf("--artifact-retention-records must be at least 1, got %d", cfg.ArtifactRetentionRecords)
	}
	if err := cfg.Shard.Validate(); err != nil {
		return nil, fmt.Errorf("--shard: %w", err)
	}
	selector := labels.Everything()
	if cfg.WatchLabelSelector != "" {
		var err error
		if selector, err = labels.Parse(cfg.WatchLabelSelector); err != nil {
			return nil, fmt.Errorf("parsing --watch-label-selector %q: %w", cfg.WatchLabelSelector, err)
		}
	}
	if deps.RESTConfig == nil || deps.NATS == nil || deps.Compiler == nil {
		return nil, errors.New("applier needs a REST config, a NATS connection and a compiler client")
	}
	if cfg.InstanceName == "" {
		cfg.InstanceName = DefaultConfig().InstanceName
	}
	if cfg.MaxBackoff <= 0 {
		cfg.MaxBackoff = DefaultConfig().MaxBackoff
	}
	if deps.Logger.GetSink() == nil {
		// Flux's event recorder calls the sink directly; give it a silent one.
		deps.Logger = funcr.New(func(string, string) {}, funcr.Options{})
	}
	if deps.RESTConfig.WarningHandler == nil && deps.RESTConfig.WarningHandlerWithContext == nil {
		// Each distinct apiserver warning once: every KCLRun write repeats
		// that Flux's finalizer name has no path.
		deps.RESTConfig = rest.CopyConfig(deps.RESTConfig)
		deps.RESTConfig.WarningHandlerWithContext = ctrllog.NewKubeAPIWarningLogger(ctrllog.KubeAPIWarningLoggerOptions{Deduplicate: true})
	}
	scheme, err := kubescheme.New()
	if err != nil {
		return nil, err
	}
	c := deps.Client
	if c == nil {
		c, err = client.New(deps.RESTConfig, client.Options{Scheme: scheme})
		if err != nil {
			return nil, fmt.Errorf("building Kubernetes client: %w", err)
		}
	}
	js, err := jetstream.New(deps.NATS)
	if err != nil {
		return nil, fmt.Errorf("opening JetStream: %w", err)
	}
	s := &Service{
		cfg: cfg, log: deps.Logger, client: c, rest: deps.RESTConfig, scheme: scheme, js: js, nc: deps.NATS,
		compiler: deps.Compiler, resolver: deps.Resolver, hooks: deps.Hooks, selector: selector,
		publisher:  reconcilerequest.NewPublisher(js, cfg.Shard),
		isUp:       make(chan struct{}),
		here:       newRunningHere(),
		watchCache: deps.WatchCache,
	}
	if cfg.StoragePath != "" {
		// Not created here: a folder that cannot be written fails the
		// KCLRuns that publish (PublishFailed, naming it), not the applier.
		s.storage = &artifactStorage{root: cfg.StoragePath, retention: cfg.ArtifactRetentionRecords}
	}
	for gate, on := range cfg.FeatureGates {
		if gate != FeatureGateObjectLevelWorkloadIdentity {
			return nil, fmt.Errorf("--feature-gates: %q is not supported (only %s)", gate, FeatureGateObjectLevelWorkloadIdentity)
		}
		if on {
			auth.EnableObjectLevelWorkloadIdentity()
		}
	}
	if err := lockDownKubeConfigIdentity(cfg.DefaultKubeConfigServiceAccount); err != nil {
		return nil, err
	}
	tokens, err := cache.NewTokenCache(tokenCacheSize)
	if err != nil {
		return nil, fmt.Errorf("building token cache: %w", err)
	}
	s.clusters = newClusterClients(deps.RESTConfig, scheme, tokens)
	if s.outage, err = apiserveroutage.New(deps.RESTConfig); err != nil {
		return nil, err
	}

	s.registry = prometheus.NewRegistry()
	reg := deps.Registerer
	if reg == nil {
		reg = s.registry
	}
	if s.metrics, err = newMetrics(reg); err != nil {
		return nil, err
	}
	if s.events, err = newEventRecorder(deps.Logger, deps.RESTConfig, scheme, cfg.EventsAddr); err != nil {
		return nil, err
	}
	if cfg.DriftDetection {
		opts := drift.Options{
			OwnerGroup:   v1alpha1.GroupVersion.Group,
			FieldManager: FieldManager,
			Logger:       deps.Logger.WithName("drift"),
			OnDrift:      s.onDrift,
		}
		// A remote cluster's watcher waits for its own apiserver (drift.New makes its Gate).
		s.remoteDrift = newRemoteDrift(opts, deps.Logger.WithName("drift"))
		opts.Outage = s.outage
		if s.drift, err = drift.New(deps.RESTConfig, opts); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Up is closed once Run consumes requests.
func (s *Service) Up() <-chan struct{} { return s.isUp }

// Run consumes reconcile requests until ctx ends.
func (s *Service) Run(ctx context.Context) error {
	if err := s.openState(ctx); err != nil {
		return err
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var err error
	if s.rollouts, err = startImageRollouts(ctx, s.rest, s.scheme); err != nil {
		return err
	}

	s.serveHTTP(ctx, &wg)
	if s.storage != nil {
		// Before the first reconcile: a published URL names the listener.
		l, err := s.storage.listen(s.cfg.StorageAddr, s.cfg.StorageAdvAddr)
		if err != nil {
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.storage.serve(ctx, l); err != nil {
				s.log.Error(err, "artifact server failed", "addr", s.cfg.StorageAddr)
			}
		}()
	}
	s.events.start(ctx, &wg)
	if s.drift != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.drift.Run(ctx)
		}()
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.remoteDrift.run(ctx)
		}()
	}
	return s.consume(ctx, &wg)
}

// openState binds the stream, the consumer and the KV buckets, retrying while
// NATS is unavailable so that a replica can start before the server.
func (s *Service) openState(ctx context.Context) error {
	var err error
	for attempt := 0; ; attempt++ {
		err = s.tryOpenState(ctx)
		if err == nil {
			return nil
		}
		s.log.Error(err, "JetStream not ready, retrying")
		select {
		case <-ctx.Done():
			return errors.Join(ctx.Err(), err)
		case <-time.After(backoff(attempt, 10*time.Second)):
		}
	}
}

func (s *Service) tryOpenState(ctx context.Context) error {
	var opts []reconcilerequest.StreamOption
	if s.cfg.JetStreamReplicas > 1 {
		opts = append(opts, reconcilerequest.WithReplicas(s.cfg.JetStreamReplicas))
	}
	if _, err := reconcilerequest.EnsureStream(ctx, s.js, s.cfg.Shard, opts...); err != nil {
		return err
	}
	if _, err := reconcilerequest.EnsureConsumer(ctx, s.js, s.cfg.Shard); err != nil {
		return err
	}
	leases, err := lease.Open(ctx, s.js, lease.Config{
		Bucket: s.cfg.Shard.LeaseBucket(), TTL: s.cfg.LeaseTTL, Holder: s.cfg.InstanceName, Replicas: s.cfg.JetStreamReplicas,
	})
	if err != nil {
		return err
	}
	fp, err := s.js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      s.cfg.Shard.FingerprintBucket(),
		Description: "flux-kcl-controller: inputs of the last successful apply per KCLRun",
		History:     1,
		Storage:     jetstream.FileStorage,
		Replicas:    max(1, s.cfg.JetStreamReplicas),
	})
	if err != nil {
		return fmt.Errorf("opening bucket %s: %w", s.cfg.Shard.FingerprintBucket(), err)
	}
	s.leases, s.fingerprints = leases, newFingerprintBucket(fp)
	s.fingerprints.beforeWrite = s.hooks.FingerprintWrite
	return nil
}

func (s *Service) serveHTTP(ctx context.Context, wg *sync.WaitGroup) {
	serve := func(addr string, h http.Handler) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := probes.Serve(ctx, addr, h); err != nil {
				s.log.Error(err, "HTTP server failed", "addr", addr)
			}
		}()
	}
	serve(s.cfg.MetricsAddr, metricsendpoint.Handler(s.registry, s.cfg.EnablePprof))
	serve(s.cfg.HealthAddr, probes.Health(func(*http.Request) error { return s.Ready() }))
}

// Ready reports whether the applier can reconcile: it consumes requests, its
// NATS connection is up and its drift informers have listed.
func (s *Service) Ready() error {
	select {
	case <-s.isUp:
	default:
		return errors.New("not consuming yet")
	}
	if st := s.nc.Status(); st != nats.CONNECTED {
		return fmt.Errorf("NATS connection %s", st)
	}
	if s.drift != nil && !s.drift.HasSynced() {
		return errors.New("drift informers not synced yet")
	}
	return nil
}

// Scheme returns the scheme the applier's clients use.
func (s *Service) Scheme() *runtime.Scheme { return s.scheme }
