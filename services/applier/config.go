// Package applier consumes reconcile requests from JetStream and reconciles
// KCLRuns the way Flux's kustomize-controller reconciles Kustomizations:
// finalizer, suspend, dependencies, source artifact, arguments, image policy
// resolution and compilation through the workers, server-side apply, prune,
// health checks, status, events and drift correction. Writes for one KCLRun
// never overlap, across goroutines and replicas: see README.md.
package applier

import (
	"os"
	"time"

	"github.com/spf13/pflag"
	cliflag "k8s.io/component-base/cli/flag"

	"github.com/kcl-lang/flux-kcl-controller/internal/applyrules"
	"github.com/kcl-lang/flux-kcl-controller/internal/shard"
)

// FieldManager is the server-side apply field manager of every write.
const FieldManager = applyrules.FieldManager

// LegacyFieldManager is the field manager of the original
// kcl-lang/flux-kcl-controller, whose objects the applier takes over.
const LegacyFieldManager = "kcl-controller"

// Config holds the applier's flags.
type Config struct {
	// Concurrent is the number of KCLRuns reconciled in parallel.
	Concurrent int
	// EventsAddr receives Flux event JSON (notification-controller); empty disables it.
	EventsAddr string
	// DefaultServiceAccount is impersonated when a KCLRun names none.
	DefaultServiceAccount string
	// DefaultKubeConfigServiceAccount is the ServiceAccount (in the KCLRun's
	// namespace) whose token a kubeConfig.configMapRef without
	// serviceAccountName uses, instead of the controller's own identity.
	DefaultKubeConfigServiceAccount string
	// NoCrossNamespaceRefs refuses sources and dependencies in other namespaces.
	NoCrossNamespaceRefs bool
	// MetricsAddr serves Prometheus metrics on /metrics; empty disables it.
	MetricsAddr string
	// HealthAddr serves /healthz and /readyz; empty disables it.
	HealthAddr string
	// EnablePprof serves the pprof endpoints under /debug/pprof/ on the metrics address.
	EnablePprof bool

	// LeaseTTL is how long a per-KCLRun write lease survives a dead holder.
	LeaseTTL time.Duration
	// RequeueDependency is the retry delay while a dependency is not ready.
	RequeueDependency time.Duration
	// FullCheckOnInterval makes IntervalElapsed requests compile and apply even
	// when nothing changed, as a safety net behind drift detection. Without
	// drift detection the interval is always a full check.
	FullCheckOnInterval bool
	// DriftDetection watches applied objects and corrects edits at once.
	DriftDetection bool
	// JetStreamReplicas is the replica count of the reconcile-request stream and the
	// applier's KV buckets in a NATS cluster; the watcher's --jetstream-replicas must
	// match, since both ensure the stream at start.
	JetStreamReplicas int
	// MaxBackoff caps the exponential retry delay of transient failures.
	MaxBackoff time.Duration
	// InstanceName identifies this replica in leases and events; defaults to the host name.
	InstanceName string
	// ProgressStatusDelay is how long a reconcile of a new generation or
	// revision runs before its status shows Reconciling. Reconciles that end
	// sooner go straight to their verdict, one status write fewer; 0 writes
	// the progress at once, as Flux controllers do.
	ProgressStatusDelay time.Duration
	// FeatureGates switches Flux's optional features, as --feature-gates
	// does on Flux controllers; the only one is ObjectLevelWorkloadIdentity.
	FeatureGates map[string]bool
	// Shard names the stream, consumer and key-value buckets the applier uses
	// (internal/shard); each --watch-label-selector shard sharing a NATS needs its own.
	Shard shard.Name
	// WatchLabelSelector is the shard's KCLRuns, as the watcher's and Flux's
	// --watch-label-selector: a KCLRun outside it is left to its own shard, even
	// when a request for it arrives (this applier's drift watcher sees the
	// objects of every shard).
	WatchLabelSelector string

	// StoragePath is the folder of the artifacts that KCLRuns in mode
	// ExternalArtifact publish; empty disables publishing (such KCLRuns
	// are not Ready, PublishFailed).
	StoragePath string
	// StorageAddr serves StoragePath over HTTP, as source-controller's --storage-addr.
	StorageAddr string
	// StorageAdvAddr is host:port in the published artifacts' URLs (the
	// Service in front of the applier); empty uses the listener's address,
	// the host name for an unspecified host.
	StorageAdvAddr string
	// ArtifactRetentionRecords is how many artifacts are kept per
	// ExternalArtifact, the current one included.
	ArtifactRetentionRecords int

	// OverrideManagers are field managers whose fields every apply takes
	// over (Flux's --override-manager); the default takes over the original
	// controller's objects.
	OverrideManagers []string
}

// DefaultConfig returns the flag defaults.
func DefaultConfig() Config {
	host, _ := os.Hostname()
	return Config{
		Concurrent:          4,
		MetricsAddr:         ":8080",
		HealthAddr:          ":9440",
		LeaseTTL:            30 * time.Second,
		RequeueDependency:   30 * time.Second,
		FullCheckOnInterval: false,
		DriftDetection:      true,
		JetStreamReplicas:   1,
		MaxBackoff:          5 * time.Minute,
		InstanceName:        host,
		ProgressStatusDelay: 2 * time.Second,
		OverrideManagers:    []string{LegacyFieldManager},

		StorageAddr:              ":9090",
		ArtifactRetentionRecords: 2,
	}
}

// BindFlags registers the flags, Flux names where Flux has them.
func (c *Config) BindFlags(fs *pflag.FlagSet) {
	d := DefaultConfig()
	fs.IntVar(&c.Concurrent, "concurrent", d.Concurrent, "The number of concurrent KCLRun reconciles.")
	fs.StringVar(&c.EventsAddr, "events-addr", "", "The address of the events receiver.")
	fs.StringVar(&c.DefaultServiceAccount, "default-service-account", "", "Default service account used for impersonation.")
	fs.StringVar(&c.DefaultKubeConfigServiceAccount, "default-kubeconfig-service-account", "", "Default service account (in the object's namespace) whose token a kubeConfig.configMapRef without serviceAccountName uses, instead of the controller's; requires --feature-gates=ObjectLevelWorkloadIdentity=true.")
	fs.BoolVar(&c.NoCrossNamespaceRefs, "no-cross-namespace-refs", false, "When set to true, references between custom resources are allowed only if the reference and the referee are in the same namespace.")
	fs.StringVar(&c.MetricsAddr, "metrics-addr", d.MetricsAddr, "The address the metric endpoint binds to.")
	fs.StringVar(&c.HealthAddr, "health-addr", d.HealthAddr, "The address the health endpoint binds to.")
	fs.BoolVar(&c.EnablePprof, "enable-pprof", d.EnablePprof, "Serve the pprof endpoints under /debug/pprof/ on the metrics address.")
	fs.DurationVar(&c.LeaseTTL, "lease-ttl", d.LeaseTTL, "How long a per-KCLRun write lease outlives a replica that stopped renewing it.")
	fs.DurationVar(&c.RequeueDependency, "requeue-dependency", d.RequeueDependency, "The interval at which failing dependencies are reevaluated.")
	fs.BoolVar(&c.FullCheckOnInterval, "full-check-on-interval", d.FullCheckOnInterval, "Compile and apply at every interval even when nothing changed, as a safety net behind drift detection (always so with --drift-detection=false).")
	fs.BoolVar(&c.DriftDetection, "drift-detection", d.DriftDetection, "Watch applied objects and undo changes to them without waiting for the interval.")
	fs.IntVar(&c.JetStreamReplicas, "jetstream-replicas", d.JetStreamReplicas, "Replicas of the reconcile-request JetStream stream and the applier's key-value buckets in a NATS cluster (give the watcher the same --jetstream-replicas).")
	fs.DurationVar(&c.MaxBackoff, "max-retry-backoff", d.MaxBackoff, "The longest delay between retries of a transient failure.")
	fs.StringVar(&c.InstanceName, "instance-name", d.InstanceName, "Name of this replica in leases and events.")
	fs.Var(cliflag.NewMapStringBool(&c.FeatureGates), "feature-gates", "A comma separated list of key=value pairs switching optional features, as Flux's: ObjectLevelWorkloadIdentity=true lets kubeConfig.configMapRef name a ServiceAccount.")
	fs.StringSliceVar(&c.OverrideManagers, "override-manager", d.OverrideManagers, "Field manager disallowed to perform changes on managed resources: every apply takes over its fields (repeat the flag or give a comma-separated list).")
	shard.BindFlag(fs, &c.Shard)
	fs.StringVar(&c.WatchLabelSelector, "watch-label-selector", d.WatchLabelSelector, "Reconcile only the KCLRuns matching this label selector (sharding; give the watcher the same).")
	fs.StringVar(&c.StoragePath, "storage-path", d.StoragePath, "The local storage path of the artifacts KCLRuns with spec.output.mode ExternalArtifact publish; empty disables publishing.")
	fs.StringVar(&c.StorageAddr, "storage-addr", d.StorageAddr, "The address the static file server serving the published artifacts binds to (with --storage-path).")
	fs.StringVar(&c.StorageAdvAddr, "storage-adv-addr", d.StorageAdvAddr, "The advertised address of the static file server, host:port in the artifacts' URLs (the applier's Service); empty uses the host name and the port of --storage-addr.")
	fs.IntVar(&c.ArtifactRetentionRecords, "artifact-retention-records", d.ArtifactRetentionRecords, "The maximum number of artifacts kept per ExternalArtifact, the current one included.")
	fs.DurationVar(&c.ProgressStatusDelay, "progress-status-delay", d.ProgressStatusDelay, "How long a reconcile runs before its status shows Reconciling; faster reconciles write only their verdict. 0 writes the progress at once.")
}
