// Package watcher turns changes in the cluster into reconcile requests for
// KCLRuns on NATS JetStream. See README.md for what triggers a request.
package watcher

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/nats-io/nats.go/jetstream"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/fluxcd/pkg/runtime/events"
	"github.com/fluxcd/pkg/runtime/pprof"
	"k8s.io/utils/clock"

	kclv1 "github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/apiserveroutage"
	"github.com/kcl-lang/flux-kcl-controller/internal/kubescheme"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
)

// publishTimeout bounds one publish round trip to JetStream.
const publishTimeout = 10 * time.Second

// maxPublishRetries bounds the retries of one request; periodic requests
// cover a request dropped after that.
const maxPublishRetries = 15

// Deps are the watcher's injected dependencies.
type Deps struct {
	// RestConfig reaches the Kubernetes API server.
	RestConfig *rest.Config
	// JetStream publishes the reconcile requests.
	JetStream jetstream.JetStream
	// Logger receives the watcher's logs; the zero value discards them.
	Logger logr.Logger
	// Clock times ImageRollouts' bakes and freeze windows; the real clock when nil.
	Clock clock.WithDelayedExecution
}

// Service is a running watcher.
type Service struct {
	cfg       Config
	mgr       manager.Manager
	js        jetstream.JetStream
	publisher *reconcilerequest.Publisher
	log       logr.Logger

	queue    workqueue.TypedRateLimitingInterface[pending]
	schedule *schedule
	recent   *recentlyPublished

	// sourceKinds are the source kinds whose CRDs exist and are watched.
	sourceKinds map[string]bool
	// imagePolicies is whether the ImagePolicy CRD exists and is watched.
	imagePolicies bool
	// startID tells this start's resync requests from earlier ones.
	startID string

	readiness readiness

	clock clock.WithDelayedExecution
	// selector is --watch-label-selector: the KCLRuns of this shard.
	selector labels.Selector
	// events records the ImageRollouts' events.
	events events.Recorder
	// rollouts steps ImageRollouts on the elected replica; nil until it runs
	// (or when the CRDs are absent).
	rollouts *rollouts
}

// pending is one request waiting to be published, with its de-duplication id.
type pending struct {
	req   reconcilerequest.Request
	msgID string
}

// New builds a watcher; nothing runs until Run.
func New(cfg Config, deps Deps) (*Service, error) {
	selector, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	if deps.RestConfig == nil || deps.JetStream == nil {
		return nil, errors.New("watcher needs a rest.Config and a JetStream client")
	}
	scheme, err := kubescheme.New()
	if err != nil {
		return nil, err
	}
	// The informers wait out an apiserver outage and list again as soon as it
	// is back, not after the reflector's backoff (see internal/apiserveroutage).
	outage, err := apiserveroutage.New(deps.RestConfig)
	if err != nil {
		return nil, err
	}
	metrics := metricsserver.Options{BindAddress: cfg.MetricsAddr}
	if cfg.EnablePprof {
		metrics.ExtraHandlers = pprof.GetHandlers()
	}
	mgr, err := manager.New(deps.RestConfig, manager.Options{
		Scheme: scheme,
		Logger: deps.Logger,
		Cache: cache.Options{
			ByObject: map[client.Object]cache.ByObject{
				&kclv1.KCLRun{}: {Label: selector},
			},
			DefaultTransform: cacheTransform(),
			NewInformer: func(lw toolscache.ListerWatcher, obj runtime.Object, resync time.Duration, indexers toolscache.Indexers) toolscache.SharedIndexInformer {
				// The cache is listed only through the field indexes (index.go), never by
				// namespace: without controller-runtime's namespace index, a set per tenant
				// namespace and kind (300 B per object, about 9 MiB at 10,000 tenants) goes.
				// A List in one namespace fails loudly ("index namespace does not exist").
				kept := toolscache.Indexers{}
				for name, fn := range indexers {
					if name != toolscache.NamespaceIndex {
						kept[name] = fn
					}
				}
				return toolscache.NewSharedIndexInformer(outage.ListerWatcher(lw), obj, resync, kept)
			},
		},
		Metrics:                       metrics,
		HealthProbeBindAddress:        cfg.HealthAddr,
		LeaderElection:                cfg.EnableLeaderElection,
		LeaderElectionID:              cfg.Shard.WatcherLeaderElectionID(),
		LeaderElectionNamespace:       cfg.LeaderElectionNamespace,
		LeaderElectionReleaseOnCancel: true,
	})
	if err != nil {
		return nil, fmt.Errorf("creating watcher manager: %w", err)
	}
	if err := registerIndexes(context.Background(), mgr.GetFieldIndexer()); err != nil {
		return nil, err
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return nil, fmt.Errorf("adding health check: %w", err)
	}
	js := deps.JetStream
	s := &Service{
		cfg:         cfg,
		mgr:         mgr,
		js:          js,
		publisher:   reconcilerequest.NewPublisher(js, cfg.Shard),
		log:         deps.Logger.WithName("watcher"),
		queue:       workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[pending]()),
		schedule:    newSchedule(cfg.IntervalJitterPercentage),
		recent:      newRecentlyPublished(),
		sourceKinds: map[string]bool{},
		startID:     strconv.FormatInt(time.Now().UnixNano(), 10),
		clock:       deps.Clock,
		selector:    selector,
	}
	if s.clock == nil {
		s.clock = clock.RealClock{}
	}
	if s.events, err = newEventRecorder(mgr, deps.Logger, cfg.EventsAddr); err != nil {
		return nil, err
	}
	if err := mgr.AddReadyzCheck("ready", s.ready); err != nil {
		return nil, fmt.Errorf("adding ready check: %w", err)
	}
	if err := mgr.Add(&cacheSync{s}); err != nil {
		return nil, fmt.Errorf("adding cache sync: %w", err)
	}
	if err := mgr.Add(&dispatcher{s}); err != nil {
		return nil, fmt.Errorf("adding watcher dispatcher: %w", err)
	}
	return s, nil
}

// Run ensures the stream exists and watches until ctx ends.
func (s *Service) Run(ctx context.Context) error {
	// NATS may come up after the watcher (split deployment): keep trying.
	for attempt := 0; ; attempt++ {
		_, err := reconcilerequest.EnsureStream(ctx, s.js, s.cfg.Shard, s.streamOptions()...)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return err
		}
		s.log.Error(err, "JetStream not available yet, retrying", "attempt", attempt)
		select {
		case <-ctx.Done():
			return err
		case <-time.After(min(time.Duration(attempt+1)*time.Second, 10*time.Second)):
		}
	}
	if err := s.mgr.Start(ctx); err != nil {
		return fmt.Errorf("running watcher: %w", err)
	}
	return nil
}

func (s *Service) streamOptions() []reconcilerequest.StreamOption {
	if s.cfg.JetStreamReplicas > 1 {
		return []reconcilerequest.StreamOption{reconcilerequest.WithReplicas(s.cfg.JetStreamReplicas)}
	}
	return nil
}

// eventComponent reports the watcher's events (the ImageRollouts').
const eventComponent = "flux-kcl-controller"

// newEventRecorder records Kubernetes events and, with --events-addr, posts
// them to notification-controller, as Flux's controllers do.
func newEventRecorder(mgr manager.Manager, log logr.Logger, addr string) (events.Recorder, error) {
	if log.GetSink() == nil {
		// Flux's recorder calls the sink directly: give it a silent one.
		log = funcr.New(func(string, string) {}, funcr.Options{})
	}
	r, err := events.NewRecorder(log.WithName("events"), addr, eventComponent,
		events.WithScheme(mgr.GetScheme()), events.WithLegacyEventRecorder(mgr.GetEventRecorderFor(eventComponent)), events.WithRetryMax(2))
	if err != nil {
		return nil, fmt.Errorf("building event recorder: %w", err)
	}
	return r, nil
}

// dispatcher runs only on the elected replica: it registers the event
// handlers and publishes. The caches run on every replica, ready for failover.
type dispatcher struct{ s *Service }

func (d *dispatcher) NeedLeaderElection() bool { return true }

func (d *dispatcher) Start(ctx context.Context) error {
	s := d.s
	handlers, err := s.watch(ctx)
	if err != nil {
		return err
	}
	s.readiness.handlersSynced.Store(true)
	defer s.readiness.handlersSynced.Store(false)
	var wg sync.WaitGroup
	for range s.cfg.Concurrent {
		wg.Go(func() {
			for s.publishNext(ctx) {
			}
		})
	}
	wg.Go(func() {
		for s.tickNext(ctx) {
		}
	})
	if s.rollouts != nil {
		wg.Go(func() { s.rollouts.run(ctx) })
	}
	s.log.Info("watching KCLRuns", "sourceKinds", len(s.sourceKinds), "labelSelector", s.cfg.WatchLabelSelector, "shard", s.cfg.Shard)
	<-ctx.Done()
	for _, h := range handlers {
		_ = h.remove()
	}
	s.queue.ShutDown()
	s.schedule.queue.ShutDown()
	wg.Wait()
	return nil
}

// enqueue queues a request; identical pending requests collapse in the queue.
func (s *Service) enqueue(req reconcilerequest.Request, msgID string) {
	s.queue.Add(pending{req: req, msgID: msgID})
}

func (s *Service) publishNext(ctx context.Context) bool {
	item, shutdown := s.queue.Get()
	if shutdown {
		return false
	}
	defer s.queue.Done(item)
	reason := string(item.req.Reason)
	if s.recent.remembers(item.req, item.msgID) {
		s.queue.Forget(item)
		requestsPublished.WithLabelValues(reason, "skipped").Inc()
		return true
	}
	pubCtx, cancel := context.WithTimeout(ctx, publishTimeout)
	defer cancel()
	// The applier beside this watcher (all-in-one) may answer it from these caches.
	item.req.Publisher = s.startID
	res, err := s.publisher.Publish(pubCtx, item.req, item.msgID)
	if err != nil {
		publishErrors.WithLabelValues(reason).Inc()
		if ctx.Err() != nil {
			return true
		}
		if errors.Is(err, jetstream.ErrNoStreamResponse) {
			// The stream is gone (deleted by hand, a NATS store wiped): recreate it.
			s.recent.forget()
			if _, ensureErr := reconcilerequest.EnsureStream(ctx, s.js, s.cfg.Shard, s.streamOptions()...); ensureErr != nil {
				s.log.Error(ensureErr, "recreating the reconcile-request stream")
			}
		}
		if s.queue.NumRequeues(item) < maxPublishRetries {
			s.log.Error(err, "publishing reconcile request, will retry", "kclrun", item.req.Key(), "reason", reason)
			s.queue.AddRateLimited(item)
			return true
		}
		s.log.Error(err, "dropping reconcile request after retries", "kclrun", item.req.Key(), "reason", reason)
		s.queue.Forget(item)
		return true
	}
	s.queue.Forget(item)
	s.recent.taken(item.req, item.msgID, res)
	result := "published"
	if res.Duplicate {
		result = "duplicate"
	}
	requestsPublished.WithLabelValues(reason, result).Inc()
	s.log.V(1).Info("published reconcile request", "kclrun", item.req.Key(), "reason", reason,
		"trigger", item.req.Trigger, "revision", item.req.Revision, "duplicate", res.Duplicate, "seq", res.Sequence)
	return true
}
