package v1alpha1

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ImageRolloutKind is the kind of the ImageRollout object.
const ImageRolloutKind = "ImageRollout"

// On-failure policies of spec.onFailure.
const (
	// OnFailureHalt stops the rollout at the failed stage; its KCLRuns keep the target.
	OnFailureHalt = "Halt"
	// OnFailureRollback stops the rollout and returns the failed stage's KCLRuns to last good.
	OnFailureRollback = "Rollback"
)

// Stage states of status.stages[].state.
const (
	StagePending          = "Pending"
	StageProgressing      = "Progressing"
	StageBaking           = "Baking"
	StageAwaitingApproval = "AwaitingApproval"
	StageFrozen           = "Frozen"
	StageSucceeded        = "Succeeded"
	StageFailed           = "Failed"
)

// Reasons of ImageRollout conditions and events, spelled once here.
const (
	// StageAdmittedReason: a stage's KCLRuns were given the target (event).
	StageAdmittedReason = "StageAdmitted"
	// StagePassedReason: every KCLRun of a stage was Ready at the target for its bake (event).
	StagePassedReason = "StagePassed"
	// StageFailedReason: a KCLRun of the current stage went Ready=False at the target.
	StageFailedReason = "StageFailed"
	// RolledBackReason: the failed stage's KCLRuns were returned to last good.
	RolledBackReason = "RolledBack"
	// RolloutCompletedReason: every stage passed; the target is the new last good.
	RolloutCompletedReason = "RolloutCompleted"
	// RolloutSupersededReason: a newer election replaced the target of a running rollout.
	RolloutSupersededReason = "Superseded"
	// RolloutProgressingReason: a stage is admitted and not yet passed.
	RolloutProgressingReason = "Progressing"
	// AwaitingApprovalReason: the next stage waits for the approval annotation.
	AwaitingApprovalReason = "AwaitingApproval"
	// ApprovedReason: the approval annotation admitted a stage (event naming who approved).
	ApprovedReason = "Approved"
	// FrozenReason: a freeze window holds the next admission.
	FrozenReason = "Frozen"
	// RolloutSuspendedReason: spec.suspend holds the next admission.
	RolloutSuspendedReason = "Suspended"
	// UpToDateReason: nothing to roll out, every stage is at last good.
	UpToDateReason = "UpToDate"

	// Bad input: the rollout is Ready=False and Stalled until its spec or the cluster changes.

	// RolloutPolicyNotFoundReason: spec.imagePolicyRef names no ImagePolicy, or it has no latestRef yet.
	RolloutPolicyNotFoundReason = "ImagePolicyNotFound"
	// OverlappingStagesReason: a KCLRun is selected by more than one stage.
	OverlappingStagesReason = "OverlappingStages"
	// ConflictingRolloutReason: an older ImageRollout already governs the policy.
	ConflictingRolloutReason = "ConflictingRollout"
	// InvalidFreezeWindowReason: a freeze window's schedule or time zone does not parse.
	InvalidFreezeWindowReason = "InvalidFreezeWindow"
	// EmptyStageReason: a stage selects no KCLRun that follows the policy.
	EmptyStageReason = "EmptyStage"
	// InvalidStagesReason: stage names repeat, or a stage without selectors is not the last.
	InvalidStagesReason = "InvalidStages"
)

// ImagesHeldByRolloutReason is the event of a KCLRun whose image an ImageRollout holds back.
const ImagesHeldByRolloutReason = "ImageHeldByRollout"

// ApprovalAnnotationPrefix starts the annotation that approves a stage: the
// key is the prefix and the stage name, the value an encoded Approval. An
// approval counts for the target it names only, so approving one election
// never admits the next. See the package documentation.
const ApprovalAnnotationPrefix = "approval.krm.kcl.dev.fluxcd/"

// ApprovalAnnotation is the annotation key that approves the stage.
func ApprovalAnnotation(stage string) string { return ApprovalAnnotationPrefix + stage }

// Approval is the value of an approval annotation, as JSON:
// {"target":"ghcr.io/org/web:1.4.0","by":"alice@example.com","at":"2026-12-04T20:00:00Z"}.
type Approval struct {
	// Target is the image approved, as RolloutImage.String spells status.target.
	Target string `json:"target"`
	// By names who approved; the Approved event repeats it.
	By string `json:"by"`
	// At is when the approval was given.
	At metav1.Time `json:"at"`
}

// Encode is the annotation value of the approval.
func (a Approval) Encode() string {
	b, _ := json.Marshal(a) // a struct of strings and a time: cannot fail
	return string(b)
}

// ParseApproval reads an approval annotation value.
func ParseApproval(value string) (Approval, error) {
	var a Approval
	if err := json.Unmarshal([]byte(value), &a); err != nil {
		return Approval{}, fmt.Errorf("approval %q is not {\"target\",\"by\",\"at\"} JSON: %w", value, err)
	}
	if a.Target == "" {
		return Approval{}, fmt.Errorf("approval %q names no target", value)
	}
	return a, nil
}

// ImageRolloutSpec is the desired rollout of an ImagePolicy's elections.
type ImageRolloutSpec struct {
	// ImagePolicyRef names the ImagePolicy, in the rollout's namespace, whose
	// elections roll out.
	// +required
	ImagePolicyRef meta.LocalObjectReference `json:"imagePolicyRef"`

	// Stages are admitted in order. A KCLRun belongs to the first stage whose
	// selectors match it; a stage without selectors (the last one only) takes
	// every other KCLRun that follows the policy.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	// +listType=map
	// +listMapKey=name
	// +required
	Stages []RolloutStage `json:"stages"`

	// FreezeWindows are times when no stage is admitted; a rollout in progress
	// pauses and resumes when the window ends.
	// +optional
	FreezeWindows []FreezeWindow `json:"freezeWindows,omitempty"`

	// OnFailure is what a failed stage does: Halt stops the rollout there,
	// Rollback also returns the stage's KCLRuns to last good.
	// +kubebuilder:validation:Enum=Halt;Rollback
	// +kubebuilder:default:=Halt
	// +optional
	OnFailure string `json:"onFailure,omitempty"`

	// Suspend pauses the rollout: no stage is admitted, none fails.
	// +optional
	Suspend bool `json:"suspend,omitempty"`
}

// RolloutStage is one wave of KCLRuns.
type RolloutStage struct {
	// Name of the stage, unique in the rollout.
	// +kubebuilder:validation:Pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
	// +kubebuilder:validation:MaxLength=63
	// +required
	Name string `json:"name"`

	// Selector selects KCLRuns by their labels.
	// +optional
	Selector *metav1.LabelSelector `json:"selector,omitempty"`

	// NamespaceSelector selects KCLRuns by the labels of their namespace.
	// +optional
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty"`

	// Bake is how long every KCLRun of the stage stays Ready at the target
	// before the next stage is admitted.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern="^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$"
	// +optional
	Bake *metav1.Duration `json:"bake,omitempty"`

	// Approval makes the stage wait, once the previous one passed, for the
	// approval annotation (ApprovalAnnotation) naming the target.
	// +optional
	Approval bool `json:"approval,omitempty"`
}

// HasSelector reports whether the stage selects; one without takes the rest.
func (s *RolloutStage) HasSelector() bool { return s.Selector != nil || s.NamespaceSelector != nil }

// BakeDuration is spec.stages[].bake, zero when unset.
func (s *RolloutStage) BakeDuration() time.Duration {
	if s.Bake == nil {
		return 0
	}
	return s.Bake.Duration
}

// FreezeWindow is a recurring time when no stage is admitted.
type FreezeWindow struct {
	// Schedule is a cron expression (minute hour day-of-month month day-of-week)
	// of the window's start.
	// +kubebuilder:validation:MinLength=1
	// +required
	Schedule string `json:"schedule"`

	// Duration of the window.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern="^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$"
	// +required
	Duration metav1.Duration `json:"duration"`

	// TimeZone of the schedule, an IANA name such as Europe/Berlin; UTC when unset.
	// +optional
	TimeZone string `json:"timeZone,omitempty"`
}

// RolloutImage is an election of the policy, as its status.latestRef.
type RolloutImage struct {
	// Name is the repository.
	// +optional
	Name string `json:"name,omitempty"`
	// Tag of the image.
	// +optional
	Tag string `json:"tag,omitempty"`
	// Digest of the image.
	// +optional
	Digest string `json:"digest,omitempty"`
}

// String is "name[:tag][@digest]".
func (i *RolloutImage) String() string {
	if i == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString(i.Name)
	if i.Tag != "" {
		b.WriteString(":" + i.Tag)
	}
	if i.Digest != "" {
		b.WriteString("@" + i.Digest)
	}
	return b.String()
}

// Equal compares two images field by field; nil equals only nil.
func (i *RolloutImage) Equal(o *RolloutImage) bool {
	if i == nil || o == nil {
		return i == o
	}
	return *i == *o
}

// ImageRolloutStatus is the observed state of an ImageRollout.
type ImageRolloutStatus struct {
	meta.ReconcileRequestStatus `json:",inline"`

	// ObservedGeneration is the last reconciled generation.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// Target is the election rolling out; equal to LastGood when none is.
	// +optional
	Target *RolloutImage `json:"target,omitempty"`

	// LastGood is the last image that completed a rollout (the policy's
	// election when the rollout was created). KCLRuns of stages not admitted
	// are given it.
	// +optional
	LastGood *RolloutImage `json:"lastGood,omitempty"`

	// Stages are the stages' states, in spec order.
	// +optional
	Stages []StageStatus `json:"stages,omitempty"`

	// Halted is set when a stage failed; only a new election (or a new
	// generation) starts the rollout again.
	// +optional
	Halted bool `json:"halted,omitempty"`
}

// StageStatus is the state of one stage.
type StageStatus struct {
	// Name of the stage.
	Name string `json:"name"`

	// State is Pending, Progressing, Baking, AwaitingApproval, Frozen,
	// Succeeded or Failed.
	State string `json:"state"`

	// Image is what the stage's KCLRuns are given: the target once admitted,
	// last good before (and after a rollback). Empty means last good.
	// +optional
	Image *RolloutImage `json:"image,omitempty"`

	// Ready counts the stage's KCLRuns Ready at the target.
	Ready int32 `json:"ready"`

	// Total counts the stage's KCLRuns that follow the policy.
	Total int32 `json:"total"`

	// AdmittedAt is when the stage was given the target.
	// +optional
	AdmittedAt *metav1.Time `json:"admittedAt,omitempty"`

	// ReadyAt is when every KCLRun of the stage was first seen Ready at the
	// target, rounded up to the second: the bake started then.
	// +optional
	ReadyAt *metav1.Time `json:"readyAt,omitempty"`

	// FinishedAt is when the stage passed or failed.
	// +optional
	FinishedAt *metav1.Time `json:"finishedAt,omitempty"`

	// ApprovedBy names who approved the stage.
	// +optional
	ApprovedBy string `json:"approvedBy,omitempty"`

	// Message says why the stage is in its state (the failing KCLRun, the
	// freeze window's end, the approval awaited).
	// +optional
	Message string `json:"message,omitempty"`
}

// ImageRollout rolls an ImagePolicy's elections out to KCLRuns in stages,
// gated by health, bake times, approvals and freeze windows.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=imgro
// +kubebuilder:metadata:labels="app.kubernetes.io/part-of=flux";"app.kubernetes.io/component=flux-kcl-controller"
// +kubebuilder:printcolumn:name="Target",type="string",JSONPath=".status.target.tag",description=""
// +kubebuilder:printcolumn:name="Last Good",type="string",JSONPath=".status.lastGood.tag",description=""
// +kubebuilder:printcolumn:name="Ready",type="string",JSONPath=".status.conditions[?(@.type==\"Ready\")].status",description=""
// +kubebuilder:printcolumn:name="Status",type="string",JSONPath=".status.conditions[?(@.type==\"Ready\")].message",description=""
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description=""
type ImageRollout struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ImageRolloutSpec   `json:"spec,omitempty"`
	Status ImageRolloutStatus `json:"status,omitempty"`
}

// ImageRolloutList is a list of ImageRollouts.
// +kubebuilder:object:root=true
type ImageRolloutList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ImageRollout `json:"items"`
}

func init() {
	SchemeBuilder.Register(&ImageRollout{}, &ImageRolloutList{})
}

// GetConditions returns the status conditions (Flux's conditions.Getter).
func (in *ImageRollout) GetConditions() []metav1.Condition { return in.Status.Conditions }

// SetConditions sets the status conditions (Flux's conditions.Setter).
func (in *ImageRollout) SetConditions(c []metav1.Condition) { in.Status.Conditions = c }

// GetOnFailure is spec.onFailure, Halt when unset.
func (in *ImageRollout) GetOnFailure() string {
	if in.Spec.OnFailure == "" {
		return OnFailureHalt
	}
	return in.Spec.OnFailure
}

// PolicyKey is the governed ImagePolicy as "namespace/name", as a KCLRun's
// status.imagePolicies lists it.
func (in *ImageRollout) PolicyKey() string {
	return in.Namespace + "/" + in.Spec.ImagePolicyRef.Name
}

// StageStatus returns the status of the named stage, nil when there is none.
func (in *ImageRollout) StageStatus(name string) *StageStatus {
	for i := range in.Status.Stages {
		if in.Status.Stages[i].Name == name {
			return &in.Status.Stages[i]
		}
	}
	return nil
}
