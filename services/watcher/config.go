package watcher

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kcl-lang/flux-kcl-controller/internal/shard"
)

// Config holds the watcher's settings; BindFlags maps them to Flux's flag names.
type Config struct {
	// Concurrent is the number of goroutines publishing reconcile requests.
	Concurrent int
	// WatchLabelSelector shards KCLRuns between watcher deployments, as Flux's
	// --watch-label-selector: only KCLRuns matching it are watched.
	WatchLabelSelector string
	// Shard names the stream the requests go to and the leader-election Lease
	// (internal/shard); each --watch-label-selector shard sharing a NATS needs its own.
	Shard shard.Name
	// IntervalJitterPercentage spreads periodic requests by ±this percentage
	// of the interval, as Flux's --interval-jitter-percentage.
	IntervalJitterPercentage int
	// EnableLeaderElection makes only one of several watcher replicas publish.
	EnableLeaderElection bool
	// LeaderElectionNamespace holds the lease; empty uses the pod's namespace.
	LeaderElectionNamespace string
	// MetricsAddr serves Prometheus metrics; "0" disables it.
	MetricsAddr string
	// HealthAddr serves /healthz and /readyz; "0" disables it.
	HealthAddr string
	// EnablePprof serves the pprof endpoints under /debug/pprof/ on the metrics address.
	EnablePprof bool
	// JetStreamReplicas is the replica count of the reconcile-request stream in a NATS
	// cluster. The applier ensures the same stream with its own --jetstream-replicas:
	// both must be given the same value, or each start scales the stream the other way.
	JetStreamReplicas int
	// MinInterval bounds the periodic requests of KCLRuns with a tiny or zero
	// interval, so one misconfigured object can't flood the stream.
	MinInterval time.Duration
	// NoCrossNamespaceRefs, as the applier's: an ImageRollout then governs
	// only the KCLRuns of its own namespace, the only ones that may follow its policy.
	NoCrossNamespaceRefs bool
	// EventsAddr is notification-controller's event receiver; the
	// ImageRollouts' events go there as well as to Kubernetes events.
	EventsAddr string
}

// DefaultConfig is the configuration BindFlags starts from.
func DefaultConfig() Config {
	return Config{
		Concurrent:               4,
		IntervalJitterPercentage: 5,
		MetricsAddr:              ":8080",
		HealthAddr:               ":9440",
		JetStreamReplicas:        1,
		MinInterval:              time.Second,
	}
}

// BindFlags registers the watcher's flags with their defaults.
func (c *Config) BindFlags(fs *pflag.FlagSet) {
	d := DefaultConfig()
	fs.IntVar(&c.Concurrent, "concurrent", d.Concurrent, "The number of goroutines publishing reconcile requests.")
	fs.StringVar(&c.WatchLabelSelector, "watch-label-selector", d.WatchLabelSelector, "Watch only the KCLRuns matching this label selector (sharding).")
	shard.BindFlag(fs, &c.Shard)
	fs.IntVar(&c.IntervalJitterPercentage, "interval-jitter-percentage", d.IntervalJitterPercentage, "Percentage of jitter applied to KCLRun intervals (0-100).")
	fs.BoolVar(&c.EnableLeaderElection, "enable-leader-election", d.EnableLeaderElection, "Publish from one watcher replica at a time, elected through a Lease.")
	fs.StringVar(&c.LeaderElectionNamespace, "leader-election-namespace", d.LeaderElectionNamespace, "Namespace of the leader election Lease; defaults to the pod's namespace.")
	fs.StringVar(&c.MetricsAddr, "metrics-addr", d.MetricsAddr, "The address the metric endpoint binds to; 0 disables it.")
	fs.StringVar(&c.HealthAddr, "health-addr", d.HealthAddr, "The address the health endpoint binds to; 0 disables it.")
	fs.BoolVar(&c.EnablePprof, "enable-pprof", d.EnablePprof, "Serve the pprof endpoints under /debug/pprof/ on the metrics address.")
	fs.IntVar(&c.JetStreamReplicas, "jetstream-replicas", d.JetStreamReplicas, "Replicas of the reconcile-request JetStream stream in a NATS cluster (give the applier the same --jetstream-replicas).")
	// The flag's first name, kept so existing deployments still start.
	fs.IntVar(&c.JetStreamReplicas, "stream-replicas", d.JetStreamReplicas, "Replicas of the reconcile-request JetStream stream.")
	_ = fs.MarkDeprecated("stream-replicas", "use --jetstream-replicas, the applier's name for the same setting")
	fs.DurationVar(&c.MinInterval, "min-interval", d.MinInterval, "Lower bound of the periodic reconcile interval.")
	fs.BoolVar(&c.NoCrossNamespaceRefs, "no-cross-namespace-refs", d.NoCrossNamespaceRefs, "When set to true, references between custom resources are allowed only if the reference and the referee are in the same namespace.")
	fs.StringVar(&c.EventsAddr, "events-addr", d.EventsAddr, "The address of the events receiver (notification-controller).")
}

func (c Config) validate() (labels.Selector, error) {
	if c.Concurrent < 1 {
		return nil, fmt.Errorf("--concurrent must be at least 1, got %d", c.Concurrent)
	}
	if c.JetStreamReplicas < 0 || c.JetStreamReplicas > 5 {
		return nil, fmt.Errorf("--jetstream-replicas must be between 1 and 5 (JetStream's limit; 0 means 1), got %d", c.JetStreamReplicas)
	}
	if c.IntervalJitterPercentage < 0 || c.IntervalJitterPercentage >= 100 {
		return nil, fmt.Errorf("--interval-jitter-percentage must be in [0, 100), got %d", c.IntervalJitterPercentage)
	}
	if err := c.Shard.Validate(); err != nil {
		return nil, fmt.Errorf("--shard: %w", err)
	}
	sel := labels.Everything()
	if c.WatchLabelSelector != "" {
		var err error
		if sel, err = labels.Parse(c.WatchLabelSelector); err != nil {
			return nil, fmt.Errorf("parsing --watch-label-selector %q: %w", c.WatchLabelSelector, err)
		}
	}
	return sel, nil
}
