package runaction

import (
	"context"
	"errors"
	"fmt"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/runstatus"
)

// NotApprovableError is an approval the rollout's state refuses before anything is written:
// no target yet, nothing rolling out, no such stage, a stage without an approval gate, or one
// already admitted.
type NotApprovableError struct{ Reason string }

func (e *NotApprovableError) Error() string { return e.Reason }

func notApprovable(format string, args ...any) error {
	return &NotApprovableError{Reason: fmt.Sprintf(format, args...)}
}

// admitted are the states of a stage the rollout has let the target into.
var admitted = map[string]bool{v1alpha1.StageProgressing: true, v1alpha1.StageBaking: true, v1alpha1.StageSucceeded: true}

// StageToApprove checks the stage asked for (an approval ahead of time is allowed), or finds
// the one awaiting approval when stage is empty.
func StageToApprove(ro *v1alpha1.ImageRollout, stage string) (string, error) {
	target := ro.Status.Target.String()
	if target == "" {
		_, msg := runstatus.ReadyCondition(ro.Status.Conditions)
		return "", notApprovable("no target yet: the controller has not reconciled it (%s)", msg)
	}
	if stage == "" {
		for _, s := range ro.Status.Stages {
			if s.State == v1alpha1.StageAwaitingApproval {
				return s.Name, nil
			}
		}
		if ro.Status.Target.Equal(ro.Status.LastGood) {
			return "", notApprovable("no stage awaits approval: nothing rolls out, every stage runs %s", target)
		}
		return "", notApprovable("no stage awaits approval of %s (stages: %s); name a stage to approve it ahead of time", target, runstatus.StageSummary(ro))
	}
	var names []string
	for _, spec := range ro.Spec.Stages {
		names = append(names, spec.Name)
		if spec.Name != stage {
			continue
		}
		if !spec.Approval {
			return "", notApprovable("stage %s needs no approval (spec.stages[].approval is false)", stage)
		}
		if ro.Status.Target.Equal(ro.Status.LastGood) {
			return "", notApprovable("nothing to approve: nothing rolls out, every stage runs %s", target)
		}
		if s := ro.StageStatus(stage); s != nil && admitted[s.State] {
			return "", notApprovable("stage %s is already admitted to %s (%s): nothing to approve", stage, target, s.State)
		}
		return stage, nil
	}
	return "", notApprovable("no stage %q (stages: %s)", stage, strings.Join(names, ", "))
}

// Approve approves stage of ro for the image rolling out now (ro.status.target) in the name
// of by: the annotation v1alpha1.ApprovalAnnotation(stage) with the encoded approval. ro is
// updated in place. A stage StageToApprove refuses gives a *NotApprovableError and writes
// nothing; an approval counts for that target only.
func Approve(ctx context.Context, c client.Client, ro *v1alpha1.ImageRollout, stage, by string) (v1alpha1.Approval, error) {
	stage, err := StageToApprove(ro, stage)
	if err != nil {
		return v1alpha1.Approval{}, err
	}
	if by == "" {
		return v1alpha1.Approval{}, errors.New("an approval must name who approves")
	}
	approval := v1alpha1.Approval{Target: ro.Status.Target.String(), By: by, At: metav1.Now()}
	patch := client.MergeFrom(ro.DeepCopy())
	annotations := ro.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[v1alpha1.ApprovalAnnotation(stage)] = approval.Encode()
	ro.SetAnnotations(annotations)
	return approval, c.Patch(ctx, ro, patch)
}

// WhoAmI is the user the apiserver authenticates c's credentials as (impersonation
// included), from a SelfSubjectReview: the name an approval records. It is empty, without
// error, when the cluster cannot say (an apiserver before 1.28, or RBAC refusing the
// review); the caller then names the user as it knows them.
func WhoAmI(ctx context.Context, c client.Client) (string, error) {
	review := &authenticationv1.SelfSubjectReview{}
	err := c.Create(ctx, review)
	switch {
	case err == nil:
		return review.Status.UserInfo.Username, nil
	case apierrors.IsForbidden(err), apierrors.IsNotFound(err), apierrors.IsMethodNotSupported(err), apimeta.IsNoMatchError(err):
		return "", nil
	}
	return "", err
}
