package cli

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

func newSuspendCommand(g *globals) *cobra.Command {
	suspend := &cobra.Command{Use: "suspend", Short: "Suspend the reconciliation of KCLRuns"}
	var all bool
	run := &cobra.Command{
		Use:               "kclrun [NAME]...",
		Aliases:           []string{"kclruns", "kr"},
		Short:             "Suspend the reconciliation of KCLRuns",
		Example:           "  flux-kcl-controller suspend kclrun web -n demo\n  flux-kcl-controller suspend kclrun --all -n demo",
		ValidArgsFunction: g.completeKCLRuns,
		RunE: func(cmd *cobra.Command, args []string) error {
			runs, err := g.selectRuns(args, all)
			if err != nil {
				return err
			}
			return g.setSuspend(runs, true, false)
		},
	}
	suspend.PersistentFlags().BoolVar(&all, "all", false, "suspend all KCLRuns in the namespace")
	suspend.AddCommand(run)
	return suspend
}

func newResumeCommand(g *globals) *cobra.Command {
	resume := &cobra.Command{Use: "resume", Short: "Resume suspended KCLRuns"}
	var all, wait bool
	run := &cobra.Command{
		Use:     "kclrun [NAME]...",
		Aliases: []string{"kclruns", "kr"},
		Short:   "Resume suspended KCLRuns",
		Long: `Resume KCLRuns and, for one name (or with --wait), wait until the controller has
reconciled them, as flux resume does.`,
		Example:           "  flux-kcl-controller resume kclrun web -n demo\n  flux-kcl-controller resume kclrun --all -n demo --wait",
		ValidArgsFunction: g.completeKCLRuns,
		RunE: func(cmd *cobra.Command, args []string) error {
			runs, err := g.selectRuns(args, all)
			if err != nil {
				return err
			}
			shouldWait := wait || (!cmd.Flags().Changed("wait") && len(args) == 1)
			return g.setSuspend(runs, false, shouldWait)
		},
	}
	resume.PersistentFlags().BoolVar(&all, "all", false, "resume all KCLRuns in the namespace")
	resume.PersistentFlags().BoolVar(&wait, "wait", false, "wait for the KCLRuns to be reconciled (the default for one name)")
	resume.AddCommand(run)
	return resume
}

// selectRuns reads the named KCLRuns, or all of the namespace with --all.
func (g *globals) selectRuns(names []string, all bool) ([]v1alpha1.KCLRun, error) {
	if all == (len(names) > 0) {
		return nil, errors.New("name the KCLRuns, or give --all")
	}
	c, err := g.kubeClient()
	if err != nil {
		return nil, err
	}
	ctx, cancel := g.context()
	defer cancel()
	ns := g.namespace()
	if all {
		var list v1alpha1.KCLRunList
		if err := c.List(ctx, &list, client.InNamespace(ns)); err != nil {
			return nil, describe(err, "listing KCLRuns")
		}
		if len(list.Items) == 0 {
			return nil, fmt.Errorf("no KCLRun objects found in %q namespace", ns)
		}
		return list.Items, nil
	}
	var runs []v1alpha1.KCLRun
	for _, name := range names {
		run, err := getRun(ctx, c, types.NamespacedName{Namespace: ns, Name: name})
		if err != nil {
			return nil, err
		}
		runs = append(runs, *run)
	}
	return runs, nil
}

// setSuspend patches spec.suspend. Resuming also requests a reconcile, so that waiting
// ends when the controller has handled exactly this request.
func (g *globals) setSuspend(runs []v1alpha1.KCLRun, suspend, wait bool) error {
	c, err := g.kubeClient()
	if err != nil {
		return err
	}
	ctx, cancel := g.context()
	defer cancel()
	log := g.log()
	verb, done := "resuming", "resumed"
	if suspend {
		verb, done = "suspending", "suspended"
	}
	requested := map[string]string{}
	for i := range runs {
		run := &runs[i]
		log.action("%s KCLRun %s in %s namespace", verb, run.Name, run.Namespace)
		patch := client.MergeFrom(run.DeepCopy())
		run.Spec.Suspend = suspend
		if !suspend {
			ts := time.Now().Format(time.RFC3339Nano)
			annotations := run.GetAnnotations()
			if annotations == nil {
				annotations = map[string]string{}
			}
			annotations[meta.ReconcileRequestAnnotation] = ts
			run.SetAnnotations(annotations)
			requested[run.Name] = ts
		}
		if err := c.Patch(ctx, run, patch); err != nil {
			return describe(err, fmt.Sprintf("%s KCLRun %s/%s", verb, run.Namespace, run.Name))
		}
		log.success("KCLRun %s", done)
	}
	if !wait {
		return nil
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].Name < runs[j].Name })
	var failed []error
	for _, run := range runs {
		log.waiting("waiting for KCLRun reconciliation")
		got, err := g.waitHandled(ctx, c, types.NamespacedName{Namespace: run.Namespace, Name: run.Name}, requested[run.Name])
		if err != nil {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return err
			}
			failed = append(failed, fmt.Errorf("KCLRun %s %w", run.Name, err))
			continue
		}
		log.success("KCLRun %s reconciliation completed", run.Name)
		log.success("applied revision %s", got.Status.LastAppliedRevision)
	}
	return errors.Join(failed...)
}
