package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/runaction"
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
	if stage, err = runaction.StageToApprove(ro, stage); err != nil {
		return fmt.Errorf("ImageRollout %s: %w", key, err)
	}
	by, err := g.whoAmI(ctx, c)
	if err != nil {
		return err
	}
	target := ro.Status.Target.String()
	log := g.log()
	log.action("approving stage %s of ImageRollout %s in %s namespace for %s", stage, name, key.Namespace, target)
	approval, err := runaction.Approve(ctx, c, ro, stage, by)
	var refused *runaction.NotApprovableError
	if errors.As(err, &refused) {
		return fmt.Errorf("ImageRollout %s: %w", key, err)
	}
	if err != nil {
		return describe(err, "annotating ImageRollout "+key.String())
	}
	log.success("stage %s approved for %s by %s", stage, approval.Target, approval.By)
	return nil
}

// whoAmI is the user the apiserver authenticates these credentials as (runaction.WhoAmI);
// the kubeconfig's user name when the cluster cannot say.
func (g *globals) whoAmI(ctx context.Context, c client.Client) (string, error) {
	user, err := runaction.WhoAmI(ctx, c)
	if err != nil {
		return "", describe(err, "asking the cluster who you are (SelfSubjectReview)")
	}
	if user != "" {
		return user, nil
	}
	raw, rerr := g.kube.ToRawKubeConfigLoader().RawConfig()
	if rerr != nil {
		return "", fmt.Errorf("loading the kubeconfig: %w", rerr)
	}
	ctxName := raw.CurrentContext
	if g.kube.Context != nil && *g.kube.Context != "" {
		ctxName = *g.kube.Context
	}
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
