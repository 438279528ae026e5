package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/runstatus"
)

func newApproveCommand(g *globals) *cobra.Command {
	approve := &cobra.Command{Use: "approve", Short: "Approve the next stage of ImageRollouts"}
	var stage string
	ro := &cobra.Command{
		Use:     "imagerollout NAME",
		Aliases: []string{"imagerollouts", "imgro"},
		Short:   "Approve a stage of an ImageRollout for its target",
		Long: `Approve the stage of an ImageRollout that awaits approval (or --stage, ahead of time) for the
image rolling out now: the annotation approval.krm.kcl.dev.fluxcd/<stage> with the target, who
approves (as the cluster knows you, from a SelfSubjectReview; the kubeconfig's user when the
cluster cannot say) and when. An approval counts for that target only: approving one election
never admits the next.`,
		Example: `  flux-kcl-controller approve imagerollout web -n platform
  flux-kcl-controller approve imagerollout web -n platform --stage rest`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: g.completeImageRollouts,
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.approve(args[0], stage)
		},
	}
	ro.Flags().StringVar(&stage, "stage", "", "the stage to approve (default: the one awaiting approval)")
	approve.AddCommand(ro)
	return approve
}

func (g *globals) approve(name, stage string) error {
	c, err := g.kubeClient()
	if err != nil {
		return err
	}
	ctx, cancel := g.context()
	defer cancel()
	key := types.NamespacedName{Namespace: g.namespace(), Name: name}
	obj, err := getNamed(ctx, c, v1alpha1.ImageRolloutKind, key, &v1alpha1.ImageRollout{})
	if err != nil {
		return err
	}
	ro := obj.(*v1alpha1.ImageRollout)
	target := ro.Status.Target.String()
	if target == "" {
		return fmt.Errorf("ImageRollout %s has no target yet: the controller has not reconciled it (%s)", key, readyMessage(ro.Status.Conditions))
	}
	if stage, err = stageToApprove(ro, stage); err != nil {
		return fmt.Errorf("ImageRollout %s: %w", key, err)
	}
	by, err := g.whoAmI(ctx, c)
	if err != nil {
		return err
	}
	approval := v1alpha1.Approval{Target: target, By: by, At: metav1.Now()}
	log := g.log()
	log.action("approving stage %s of ImageRollout %s in %s namespace for %s", stage, name, key.Namespace, target)
	patch := client.MergeFrom(ro.DeepCopy())
	annotations := ro.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[v1alpha1.ApprovalAnnotation(stage)] = approval.Encode()
	ro.SetAnnotations(annotations)
	if err := c.Patch(ctx, ro, patch); err != nil {
		return describe(err, "annotating ImageRollout "+key.String())
	}
	log.success("stage %s approved for %s by %s", stage, target, by)
	return nil
}

// stageToApprove checks the stage asked for, or finds the one awaiting approval.
func stageToApprove(ro *v1alpha1.ImageRollout, stage string) (string, error) {
	target := ro.Status.Target.String()
	if stage == "" {
		for _, s := range ro.Status.Stages {
			if s.State == v1alpha1.StageAwaitingApproval {
				return s.Name, nil
			}
		}
		if ro.Status.Target.Equal(ro.Status.LastGood) {
			return "", fmt.Errorf("no stage awaits approval: nothing rolls out, every stage runs %s", target)
		}
		return "", fmt.Errorf("no stage awaits approval of %s (stages: %s); --stage approves one ahead of time", target, stageSummary(ro))
	}
	var names []string
	for _, spec := range ro.Spec.Stages {
		names = append(names, spec.Name)
		if spec.Name != stage {
			continue
		}
		if !spec.Approval {
			return "", fmt.Errorf("stage %s needs no approval (spec.stages[].approval is false)", stage)
		}
		if ro.Status.Target.Equal(ro.Status.LastGood) {
			return "", fmt.Errorf("nothing to approve: nothing rolls out, every stage runs %s", target)
		}
		if s := ro.StageStatus(stage); s != nil && admitted[s.State] {
			return "", fmt.Errorf("stage %s is already admitted to %s (%s): nothing to approve", stage, target, s.State)
		}
		return stage, nil
	}
	return "", fmt.Errorf("no stage %q (stages: %s)", stage, strings.Join(names, ", "))
}

// admitted are the states of a stage given the target.
var admitted = map[string]bool{v1alpha1.StageProgressing: true, v1alpha1.StageBaking: true, v1alpha1.StageSucceeded: true}

// whoAmI is the user the apiserver authenticates these credentials as (impersonation
// included), from a SelfSubjectReview; the kubeconfig's user name when the cluster cannot
// say (an apiserver before 1.28, or a review the RBAC refuses).
func (g *globals) whoAmI(ctx context.Context, c client.Client) (string, error) {
	review := &authenticationv1.SelfSubjectReview{}
	err := c.Create(ctx, review)
	if err == nil && review.Status.UserInfo.Username != "" {
		return review.Status.UserInfo.Username, nil
	}
	if err != nil && !apierrors.IsForbidden(err) && !apierrors.IsNotFound(err) && !apierrors.IsMethodNotSupported(err) && !apimeta.IsNoMatchError(err) {
		return "", describe(err, "asking the cluster who you are (SelfSubjectReview)")
	}
	raw, rerr := g.kube.ToRawKubeConfigLoader().RawConfig()
	if rerr != nil {
		return "", fmt.Errorf("loading the kubeconfig: %w", rerr)
	}
	ctxName := raw.CurrentContext
	if g.kube.Context != nil && *g.kube.Context != "" {
		ctxName = *g.kube.Context
	}
	user := ""
	if g.kube.AuthInfoName != nil && *g.kube.AuthInfoName != "" {
		user = *g.kube.AuthInfoName
	} else if kctx, ok := raw.Contexts[ctxName]; ok {
		user = kctx.AuthInfo
	}
	if g.kube.Impersonate != nil && *g.kube.Impersonate != "" {
		user = *g.kube.Impersonate
	}
	if user == "" {
		return "", errors.New("cannot tell who approves: the cluster gave no SelfSubjectReview and the kubeconfig context names no user")
	}
	return user, nil
}

// readyMessage is the Ready condition's message, for errors.
func readyMessage(conds []metav1.Condition) string {
	_, msg := runstatus.ReadyCondition(conds)
	return msg
}
