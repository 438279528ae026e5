package v1alpha1

import (
	"time"

	"github.com/fluxcd/pkg/apis/kustomize"
	"github.com/fluxcd/pkg/apis/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

const (
	// KCLRunKind is the kind of the KCLRun object.
	KCLRunKind = "KCLRun"
	// KCLRunFinalizer guards the prune of applied objects on deletion.
	KCLRunFinalizer = "finalizers.fluxcd.io"
	// LegacyKCLRunFinalizer is the finalizer of the original
	// kcl-lang/flux-kcl-controller; the applier replaces it with KCLRunFinalizer.
	LegacyKCLRunFinalizer = "finalizers.krm.kcl.dev.fluxcd"
	// MaxConditionMessageLength bounds condition messages, as Flux does.
	MaxConditionMessageLength = 20000

	// DefaultTimeout applies when neither spec.timeout nor a long interval say otherwise.
	DefaultTimeout = 5 * time.Minute
)

// Condition types beyond the meta.ReadyCondition / ReconcilingCondition / StalledCondition
// / HealthyCondition that Flux defines.
const (
	// ImagesResolvedCondition reports whether every $imagepolicy marker resolved.
	ImagesResolvedCondition = "ImagesResolved"
)

// Reasons written on KCLRun conditions, in Flux's vocabulary where one exists.
const (
	CompileFailedReason        = "CompileFailed"
	ArtifactFailedReason       = meta.ArtifactFailedReason
	ReconciliationSucceeded    = meta.ReconciliationSucceededReason
	ReconciliationFailed       = meta.ReconciliationFailedReason
	DependencyNotReadyReason   = meta.DependencyNotReadyReason
	ImagePolicyHeldReason      = "ImagePolicyHeld"
	PruneFailedReason          = "PruneFailed"
	HealthCheckFailedReason    = meta.HealthCheckFailedReason
	ArgumentsNotFoundReason    = "ArgumentsNotFound"
	InvalidCELExpressionReason = meta.InvalidCELExpressionReason
	HealthCheckCanceledReason  = meta.HealthCheckCanceledReason
	ProgressingReason          = meta.ProgressingReason
	SucceededReason            = meta.SucceededReason
	// GarbageCollectionSkippedReason is the event of a deletion that released
	// the KCLRun without deleting its objects: the impersonated account or its
	// namespace is going away.
	GarbageCollectionSkippedReason = "GarbageCollectionSkipped"
	// TerminationTimeoutReason is the event of a WaitForTermination deletion
	// whose objects were not gone within spec.timeout.
	TerminationTimeoutReason = "TerminationTimeout"
	// AccessDeniedReason stalls a KCLRun whose source is in a namespace
	// cross-namespace references may not reach (Flux's apis/acl reason).
	AccessDeniedReason = "AccessDenied"
	// InvalidRequestReason stalls a KCLRun the workers refuse as invalid, or
	// whose spec.driftDetection.mode or spec.output.mode is none of its words.
	InvalidRequestReason = "InvalidRequest"
	// PrunedReason is the event of the objects a deletion pruned, and of an
	// ExternalArtifact deleted because the KCLRun no longer publishes it.
	PrunedReason = "Pruned"
	// ImageUpdatedReason is the event of an image moved by an ImagePolicy.
	ImageUpdatedReason = "ImageUpdated"
	// DriftDetectedReason: objects in the cluster differ from what was last
	// applied (the drift watcher's reconcile requests, and drift events).
	DriftDetectedReason = "DriftDetected"
	// DriftResolvedReason: in drift detection's warn mode, the objects that
	// had drifted are back to what was last applied (undone by hand, say).
	DriftResolvedReason = "DriftResolved"
	// DependencyRefusedReason: the compiler's package-source policy refused a
	// kcl.mod dependency (the message names the host and the flag).
	DependencyRefusedReason = "DependencyRefused"
	// PublishFailedReason: with spec.output.mode ExternalArtifact, the rendered
	// objects could not be published (the storage cannot be written, the
	// ExternalArtifact CRD is missing or its write is refused).
	PublishFailedReason = "PublishFailed"
)

// KCLRunSpec is the desired state of a KCLRun.
type KCLRunSpec struct {
	// SourceRef names the Flux source whose artifact holds the KCL program.
	// +required
	SourceRef CrossNamespaceSourceReference `json:"sourceRef"`

	// Path to the directory of the KCL program (holding kcl.mod or main.k),
	// relative to the artifact root. Defaults to the root.
	// +optional
	Path string `json:"path,omitempty"`

	// Interval at which the KCLRun is reconciled even when nothing changed.
	// +kubebuilder:default:="10m"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern="^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$"
	// +optional
	Interval metav1.Duration `json:"interval"`

	// RetryInterval is the interval at which a failed reconciliation is retried.
	// Defaults to Interval.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern="^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$"
	// +optional
	RetryInterval *metav1.Duration `json:"retryInterval,omitempty"`

	// Timeout bounds compile, apply and health checks of one reconciliation.
	// Defaults to the interval less 30s, at least 30s, at most 5m when unset.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern="^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$"
	// +optional
	Timeout *metav1.Duration `json:"timeout,omitempty"`

	// Prune enables garbage collection of objects no longer rendered.
	// +kubebuilder:default:=false
	// +optional
	Prune bool `json:"prune"`

	// DeletionPolicy decides what deleting the KCLRun does to the objects it
	// applied, as a Flux Kustomization's: MirrorPrune (the default) deletes them
	// when spec.prune is true; Delete always deletes them; WaitForTermination
	// deletes them and keeps the KCLRun until they are gone or spec.timeout
	// passes; Orphan leaves them.
	// +kubebuilder:validation:Enum=MirrorPrune;Delete;WaitForTermination;Orphan
	// +optional
	DeletionPolicy string `json:"deletionPolicy,omitempty"`

	// Wait makes the KCLRun wait for every applied object to become healthy.
	// When set, HealthChecks are ignored.
	// +optional
	Wait bool `json:"wait,omitempty"`

	// HealthChecks lists the objects whose health gates readiness.
	// +optional
	HealthChecks []meta.NamespacedObjectKindReference `json:"healthChecks,omitempty"`

	// HealthCheckExprs tell, in CEL, when objects of an apiVersion and kind
	// are current, in progress or failed, as on a Flux Kustomization; they
	// apply to the objects Wait or HealthChecks check.
	// +optional
	HealthCheckExprs []kustomize.CustomHealthCheck `json:"healthCheckExprs,omitempty"`

	// DependsOn lists KCLRuns that must be Ready before this one is
	// reconciled; one from the same source must have applied the same
	// revision. A ReadyExpr (CEL over dep and self) must hold as well, as with
	// Flux's AdditiveCELDependencyCheck.
	// +optional
	DependsOn []meta.DependencyReference `json:"dependsOn,omitempty"`

	// Suspend stops subsequent reconciliations; running ones finish.
	// +optional
	Suspend bool `json:"suspend,omitempty"`

	// ServiceAccountName is the service account impersonated to apply and prune.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +optional
	ServiceAccountName string `json:"serviceAccountName,omitempty"`

	// TargetNamespace sets the namespace of every namespaced object, overriding
	// the one the program gave, as a Kustomization's does (kustomize's namespace
	// transformer: a Namespace object is renamed to it, RoleBinding subjects
	// named "default" point at it); other cluster-scoped objects are untouched.
	// Without it, objects that name no namespace go to the KCLRun's.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +optional
	TargetNamespace string `json:"targetNamespace,omitempty"`

	// CommonMetadata is added to every applied object, overriding equal keys.
	// +optional
	CommonMetadata *CommonMetadata `json:"commonMetadata,omitempty"`

	// Force recreates objects whose patch fails on an immutable field.
	// +kubebuilder:default:=false
	// +optional
	Force bool `json:"force,omitempty"`

	// KubeConfig makes the KCLRun apply to a remote cluster.
	// +optional
	KubeConfig *meta.KubeConfigReference `json:"kubeConfig,omitempty"`

	// PersistentClient, as in the original controller, says the Kubernetes
	// clients are reused across reconciliations: they always are (one per
	// service account and kubeconfig revision), so only true (the default) is
	// accepted.
	// +kubebuilder:validation:XValidation:rule="self",message="persistentClient: false is not supported: the controller always reuses its Kubernetes clients (one per service account and kubeconfig revision); remove the field"
	// +optional
	PersistentClient *bool `json:"persistentClient,omitempty"`

	// Params is given to the program as option("params"), a dict of these
	// values, as the original controller's v0.4.0 passed it (kcl -D
	// params=<JSON>). A "params" key in argumentsReferences overrides it.
	// Values are any JSON (numbers, strings, lists, dicts).
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	Params map[string]runtime.RawExtension `json:"params,omitempty"`

	// Config is the KCL compile configuration.
	// +optional
	Config *ConfigSpec `json:"config,omitempty"`

	// Ignore lists JSON pointer (RFC 6901) paths that are left out of drift
	// detection and of the apply, for the objects each rule's target selects
	// (all objects without a target), as a Kustomization's spec.ignore: fields
	// another controller manages (an HPA's replicas, say) are neither reported
	// as drift nor reverted.
	// +optional
	Ignore []IgnoreRule `json:"ignore,omitempty"`

	// ArgumentsReferences lists ConfigMaps and Secrets in the KCLRun's namespace
	// whose data become top-level arguments (option()) of the program.
	// +optional
	ArgumentsReferences []ArgumentReference `json:"argumentsReferences,omitempty"`

	// DriftDetection says what happens when applied objects are changed by
	// someone else, in a HelmRelease's words.
	// +optional
	DriftDetection *DriftDetection `json:"driftDetection,omitempty"`

	// Output says what becomes of the rendered objects: applied to the
	// cluster (Apply, the default) or published as a Flux ExternalArtifact
	// that a Kustomization applies (ExternalArtifact).
	// +optional
	Output *Output `json:"output,omitempty"`
}

// Output modes of spec.output.mode.
const (
	// OutputApply server-side applies the objects (the default).
	OutputApply = "Apply"
	// OutputExternalArtifact publishes the objects as a tarball that a Flux
	// ExternalArtifact (source.toolkit.fluxcd.io/v1) points at; nothing is
	// applied, pruned, health checked or watched for drift.
	OutputExternalArtifact = "ExternalArtifact"
)

// Output is what becomes of a KCLRun's rendered objects.
type Output struct {
	// Mode is Apply (the objects are applied, the default) or
	// ExternalArtifact (they are published as an ExternalArtifact's
	// artifact, for a Kustomization with sourceRef.kind ExternalArtifact).
	// +kubebuilder:validation:Enum=Apply;ExternalArtifact
	// +optional
	Mode string `json:"mode,omitempty"`

	// ExternalArtifact configures the ExternalArtifact of mode ExternalArtifact.
	// +optional
	ExternalArtifact *ExternalArtifactOutput `json:"externalArtifact,omitempty"`
}

// ExternalArtifactOutput names the ExternalArtifact a KCLRun publishes.
type ExternalArtifactOutput struct {
	// Name of the ExternalArtifact, in the KCLRun's namespace; defaults to
	// the KCLRun's name.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Name string `json:"name,omitempty"`
}

// Drift detection modes of spec.driftDetection.mode, spelled as a HelmRelease's.
const (
	// DriftDetectionEnabled corrects drift at once (the default).
	DriftDetectionEnabled = "enabled"
	// DriftDetectionWarn reports drift in status.drift and a warning event, and corrects nothing.
	DriftDetectionWarn = "warn"
	// DriftDetectionDisabled neither watches nor corrects drift: objects are
	// applied when the inputs change or a reconcile is requested.
	DriftDetectionDisabled = "disabled"
)

// DriftDetection configures the drift watch of a KCLRun.
type DriftDetection struct {
	// Mode is enabled (drift is corrected at once, the default), warn (drift
	// is reported in status.drift and a warning event, and not corrected) or
	// disabled (drift is not looked for). spec.ignore applies in every mode.
	// +kubebuilder:validation:Enum=enabled;warn;disabled
	// +optional
	Mode string `json:"mode,omitempty"`
}

// DriftedObject is an applied object that no longer is what was applied.
type DriftedObject struct {
	// ID is the object's identifier in the inventory's format
	// "<namespace>_<name>_<group>_<kind>".
	ID string `json:"id"`
	// Version is the API version of the object.
	Version string `json:"v"`
	// Deleted is true when the object is gone.
	// +optional
	Deleted bool `json:"deleted,omitempty"`
	// Paths are the JSON pointers (RFC 6901) of the fields that differ from
	// what an apply would write; values are never recorded (Secrets stay masked).
	// +optional
	Paths []string `json:"paths,omitempty"`
}

// CrossNamespaceSourceReference names a Flux source, possibly in another namespace.
type CrossNamespaceSourceReference struct {
	// APIVersion of the referent.
	// +optional
	APIVersion string `json:"apiVersion,omitempty"`

	// Kind of the referent.
	// +kubebuilder:validation:Enum=GitRepository;OCIRepository;Bucket;ExternalArtifact
	// +required
	Kind string `json:"kind"`

	// Name of the referent.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Name string `json:"name"`

	// Namespace of the referent, defaults to the namespace of the KCLRun.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Namespace string `json:"namespace,omitempty"`
}

// IgnoreRule selects the changes to objects that the applier disregards.
type IgnoreRule struct {
	// Paths are JSON pointers (RFC 6901) into the objects, such as /spec/replicas.
	// +kubebuilder:validation:MinItems=1
	// +required
	Paths []string `json:"paths"`

	// Target selects the objects the paths apply to; all objects when unset.
	// +optional
	Target *kustomize.Selector `json:"target,omitempty"`
}

// CommonMetadata holds labels and annotations added to every applied object.
type CommonMetadata struct {
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
}

// ConfigSpec is the KCL compile configuration, as the kcl run flags.
type ConfigSpec struct {
	// Arguments are top-level arguments for option(), as "name=value" (kcl run -D).
	// +optional
	Arguments []string `json:"arguments,omitempty"`
	// Settings are settings files inside the artifact (kcl run -Y).
	// +optional
	Settings []string `json:"settings,omitempty"`
	// Overrides are override specs such as app.image="v2" (kcl run -O).
	// +optional
	Overrides []string `json:"overrides,omitempty"`
	// PathSelectors select parts of the output, such as a.b.c (kcl run -S).
	// +optional
	PathSelectors []string `json:"pathSelectors,omitempty"`
	// Vendor compiles with the artifact's vendored packages only.
	// +optional
	Vendor bool `json:"vendor,omitempty"`
	// SortKeys sorts the keys of the output (kcl run --sort_keys).
	// +optional
	SortKeys bool `json:"sortKeys,omitempty"`
	// ShowHidden keeps hidden (_-prefixed) attributes in the output.
	// +optional
	ShowHidden bool `json:"showHidden,omitempty"`
	// DisableNone drops None values from the output (kcl run -n).
	// +optional
	DisableNone bool `json:"disableNone,omitempty"`
	// RegistrySecretRef names a Secret in the KCLRun's namespace, of type
	// kubernetes.io/dockerconfigjson, whose logins are used to download the
	// program's KCL packages (kcl.mod dependencies) from private OCI registries.
	// The credentials serve this KCLRun only: they never appear in logs, events
	// or status, and a package only they may read is never served to another
	// KCLRun from the compiler's cache.
	// +optional
	RegistrySecretRef *meta.LocalObjectReference `json:"registrySecretRef,omitempty"`
}

// ArgumentReference names a ConfigMap or Secret whose data become arguments.
type ArgumentReference struct {
	// Kind of the referent.
	// +kubebuilder:validation:Enum=Secret;ConfigMap
	// +required
	Kind string `json:"kind"`
	// Name of the referent, in the KCLRun's namespace.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Name string `json:"name"`
	// Optional tolerates the referent's absence.
	// +kubebuilder:default:=false
	// +optional
	Optional bool `json:"optional,omitempty"`
}

// KCLRunStatus is the observed state of a KCLRun.
type KCLRunStatus struct {
	meta.ReconcileRequestStatus `json:",inline"`

	// ObservedGeneration is the last reconciled generation.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// LastAppliedRevision is the source revision last applied successfully.
	// +optional
	LastAppliedRevision string `json:"lastAppliedRevision,omitempty"`

	// LastAttemptedRevision is the source revision of the last attempt.
	// +optional
	LastAttemptedRevision string `json:"lastAttemptedRevision,omitempty"`

	// LastAttemptedRevisionDigest is the artifact digest of the last attempt.
	// +optional
	LastAttemptedRevisionDigest string `json:"lastAttemptedRevisionDigest,omitempty"`

	// Inventory lists the objects applied by the last successful reconciliation.
	// +optional
	Inventory *ResourceInventory `json:"inventory,omitempty"`

	// History holds the last reconciliations that compiled (at most 5, the
	// latest first), as Flux's Kustomization history: the digest of the
	// compiled objects, the revision in the metadata, the first and last time
	// the digest was reconciled, the duration and the Ready reason.
	// +optional
	History meta.History `json:"history,omitempty"`

	// ImagePolicies lists the ImagePolicies ("namespace/name") the program's
	// $imagepolicy markers referenced in the last attempt; the watcher indexes it.
	// +optional
	ImagePolicies []string `json:"imagePolicies,omitempty"`

	// Images lists the images resolved from ImagePolicies in the last applied revision.
	// +optional
	Images []ResolvedImage `json:"images,omitempty"`

	// Packages lists the KCL packages (kcl.mod dependencies, transitively) the
	// last compiled revision used: what kcl.mod.lock pinned, or, without a
	// lock, what the tags and branches resolved to.
	// +optional
	Packages []ResolvedPackage `json:"packages,omitempty"`

	// ImageRollouts lists, for each policy of the program that an
	// ImageRollout governs, the image the rollout gave the last attempt, and
	// the target it holds back while the KCLRun's stage is not admitted.
	// +optional
	ImageRollouts []KCLRunRollout `json:"imageRollouts,omitempty"`

	// Drift lists, in drift detection's warn mode, the objects that differ
	// from what was last applied, as of the last check; empty when none do.
	// +optional
	Drift []DriftedObject `json:"drift,omitempty"`

	// Artifact is, with spec.output.mode ExternalArtifact, the artifact last
	// published: what the ExternalArtifact's status.artifact points at.
	// +optional
	Artifact *meta.Artifact `json:"artifact,omitempty"`
}

// KCLRunRollout is what an ImageRollout gave a KCLRun for one policy.
type KCLRunRollout struct {
	// Rollout is the ImageRollout as "namespace/name".
	Rollout string `json:"rollout"`
	// Policy is the ImagePolicy as "namespace/name".
	Policy string `json:"policy"`
	// Stage is the KCLRun's stage; empty when no stage selects it (it is
	// given last good until the rollout completes).
	// +optional
	Stage string `json:"stage,omitempty"`
	// Image is the election the markers resolved to in the last attempt
	// (RolloutImage.String).
	Image string `json:"image"`
	// HeldBack is the rollout's target when Image is not it: the rollout
	// holds the KCLRun at last good.
	// +optional
	HeldBack string `json:"heldBack,omitempty"`
}

// ResolvedPackage is one KCL package a program imported.
type ResolvedPackage struct {
	// Name is the import name.
	Name string `json:"name"`
	// Version of the package.
	// +optional
	Version string `json:"version,omitempty"`
	// Source is oci://registry/repository:tag, a Git URL@ref, a local path or vendor/<name>.
	Source string `json:"source"`
	// Digest is the OCI manifest digest or the Git commit.
	// +optional
	Digest string `json:"digest,omitempty"`
	// Sum is kpm's checksum of the package contents, as kcl.mod.lock records it.
	// +optional
	Sum string `json:"sum,omitempty"`
	// Locked is true when kcl.mod.lock pinned the package and its sum matched.
	// +optional
	Locked bool `json:"locked,omitempty"`
}

// ResolvedImage records one $imagepolicy substitution: an audit trail without Git.
type ResolvedImage struct {
	// Policy is the ImagePolicy as "namespace/name".
	Policy string `json:"policy"`
	// Location is the marked literal as file:line, relative to the program root.
	Location string `json:"location"`
	// From is the literal as written in the program.
	From string `json:"from"`
	// To is the value applied.
	To string `json:"to"`
}

// ResourceInventory lists applied Kubernetes objects.
type ResourceInventory struct {
	// Entries of Kubernetes objects IDs.
	Entries []ResourceRef `json:"entries"`
}

// ResourceRef identifies an applied object.
type ResourceRef struct {
	// ID is the object's string identifier in Flux's format
	// "<namespace>_<name>_<group>_<kind>".
	ID string `json:"id"`
	// Version is the API version of the object.
	Version string `json:"v"`
}

// KCLRun delivers a KCL program from a Flux source to the cluster.
// +genclient
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=kcl;kclrun
// +kubebuilder:metadata:labels="app.kubernetes.io/part-of=flux";"app.kubernetes.io/component=flux-kcl-controller"
// +kubebuilder:printcolumn:name="Ready",type="string",JSONPath=".status.conditions[?(@.type==\"Ready\")].status",description=""
// +kubebuilder:printcolumn:name="Status",type="string",JSONPath=".status.conditions[?(@.type==\"Ready\")].message",description=""
// +kubebuilder:printcolumn:name="Revision",type="string",JSONPath=".status.lastAppliedRevision",description=""
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description=""
type KCLRun struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   KCLRunSpec   `json:"spec,omitempty"`
	Status KCLRunStatus `json:"status,omitempty"`
}

// KCLRunList is a list of KCLRuns.
// +kubebuilder:object:root=true
type KCLRunList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []KCLRun `json:"items"`
}

func init() {
	SchemeBuilder.Register(&KCLRun{}, &KCLRunList{})
}

// GetConditions returns the status conditions (Flux's conditions.Getter).
func (in *KCLRun) GetConditions() []metav1.Condition { return in.Status.Conditions }

// SetConditions sets the status conditions (Flux's conditions.Setter).
func (in *KCLRun) SetConditions(c []metav1.Condition) { in.Status.Conditions = c }

// GetRequeueAfter is the interval to the next periodic reconciliation.
func (in *KCLRun) GetRequeueAfter() time.Duration { return in.Spec.Interval.Duration }

// GetRetryInterval is the interval to the next attempt after a failure.
func (in *KCLRun) GetRetryInterval() time.Duration {
	if in.Spec.RetryInterval != nil {
		return in.Spec.RetryInterval.Duration
	}
	return in.GetRequeueAfter()
}

// GetTimeout bounds one reconciliation.
func (in *KCLRun) GetTimeout() time.Duration {
	if in.Spec.Timeout != nil {
		return in.Spec.Timeout.Duration
	}
	d := in.Spec.Interval.Duration - 30*time.Second
	if d > DefaultTimeout {
		d = DefaultTimeout
	}
	if d < 30*time.Second {
		d = 30 * time.Second
	}
	return d
}

// Deletion policies of spec.deletionPolicy, spelled as Flux's.
const (
	DeletionPolicyMirrorPrune        = "MirrorPrune"
	DeletionPolicyDelete             = "Delete"
	DeletionPolicyWaitForTermination = "WaitForTermination"
	DeletionPolicyOrphan             = "Orphan"
)

// GetDeletionPolicy is spec.deletionPolicy, MirrorPrune when unset.
func (in *KCLRun) GetDeletionPolicy() string {
	if in.Spec.DeletionPolicy == "" {
		return DeletionPolicyMirrorPrune
	}
	return in.Spec.DeletionPolicy
}

// GetTargetNamespace is where namespaced objects go: all of them with
// spec.targetNamespace, else those that name no namespace.
func (in *KCLRun) GetTargetNamespace() string {
	if in.Spec.TargetNamespace != "" {
		return in.Spec.TargetNamespace
	}
	return in.Namespace
}

// GetDependsOn returns the KCLRuns this one waits for.
func (in *KCLRun) GetDependsOn() []meta.DependencyReference { return in.Spec.DependsOn }

// GetDriftDetectionMode is spec.driftDetection.mode, enabled when unset.
func (in *KCLRun) GetDriftDetectionMode() string {
	if in.Spec.DriftDetection == nil || in.Spec.DriftDetection.Mode == "" {
		return DriftDetectionEnabled
	}
	return in.Spec.DriftDetection.Mode
}

// GetOutputMode is spec.output.mode, Apply when unset.
func (in *KCLRun) GetOutputMode() string {
	if in.Spec.Output == nil || in.Spec.Output.Mode == "" {
		return OutputApply
	}
	return in.Spec.Output.Mode
}

// GetExternalArtifactName is the ExternalArtifact that mode ExternalArtifact
// writes: spec.output.externalArtifact.name, else the KCLRun's name.
func (in *KCLRun) GetExternalArtifactName() string {
	if in.Spec.Output != nil && in.Spec.Output.ExternalArtifact != nil && in.Spec.Output.ExternalArtifact.Name != "" {
		return in.Spec.Output.ExternalArtifact.Name
	}
	return in.Name
}

// SourceNamespace is the namespace of the referenced source.
func (in *KCLRun) SourceNamespace() string {
	if in.Spec.SourceRef.Namespace != "" {
		return in.Spec.SourceRef.Namespace
	}
	return in.Namespace
}
