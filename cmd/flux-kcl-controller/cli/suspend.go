package cli

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/runaction"
	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/runstatus"
)

// suspendable is a kind with spec.suspend, as suspend and resume handle it: KCLRuns and
// ImageRollouts share one patch and one wait.
type suspendable struct {
	kind    string
	use     string
	aliases []string
	example string
	// newObject and newList are empty objects of the kind.
	newObject func() client.Object
	newList   func() client.ObjectList
	// handled reports whether the controller has handled the reconcile request, and what
	// to print then (the applied revision, the rollout's state).
	handled  func(obj client.Object, requested string) (bool, string, error)
	complete func(g *globals) cobra.CompletionFunc
}

var suspendableKCLRuns = suspendable{
	kind:      v1alpha1.KCLRunKind,
	use:       "kclrun",
	aliases:   []string{"kclruns", "kr"},
	example:   "kclrun web -n demo",
	newObject: func() client.Object { return &v1alpha1.KCLRun{} },
	newList:   func() client.ObjectList { return &v1alpha1.KCLRunList{} },
	handled: func(obj client.Object, requested string) (bool, string, error) {
		run := obj.(*v1alpha1.KCLRun)
		if run.Status.LastHandledReconcileAt != requested {
			return false, "", nil
		}
		ok, err := settled(run.Status.Conditions, run.Generation, run.Status.ObservedGeneration)
		return ok, "applied revision " + run.Status.LastAppliedRevision, err
	},
	complete: func(g *globals) cobra.CompletionFunc { return g.completeKCLRuns },
}

var suspendableImageRollouts = suspendable{
	kind:      v1alpha1.ImageRolloutKind,
	use:       "imagerollout",
	aliases:   []string{"imagerollouts", "imgro"},
	example:   "imagerollout web -n platform",
	newObject: func() client.Object { return &v1alpha1.ImageRollout{} },
	newList:   func() client.ObjectList { return &v1alpha1.ImageRolloutList{} },
	// A rollout is handled once the watcher stepped it with the request: waiting for Ready
	// would wait for every stage's bake and approval.
	handled: func(obj client.Object, requested string) (bool, string, error) {
		ro := obj.(*v1alpha1.ImageRollout)
		if ro.Status.LastHandledReconcileAt != requested || ro.Status.ObservedGeneration < ro.Generation {
			return false, "", nil
		}
		if s := findCondition(ro.Status.Conditions, meta.StalledCondition); s != nil && s.Status == "True" {
			return false, "", &reconcileFailedError{msg: s.Message}
		}
		_, msg := runstatus.ReadyCondition(ro.Status.Conditions)
		return true, msg, nil
	},
	complete: func(g *globals) cobra.CompletionFunc { return g.completeImageRollouts },
}

func newSuspendCommand(g *globals) *cobra.Command {
	suspend := &cobra.Command{Use: "suspend", Short: "Suspend the reconciliation of KCLRuns and ImageRollouts"}
	var all bool
	for _, kind := range []suspendable{suspendableKCLRuns, suspendableImageRollouts} {
		suspend.AddCommand(&cobra.Command{
			Use:               kind.use + " [NAME]...",
			Aliases:           kind.aliases,
			Short:             "Suspend " + kind.kind + "s",
			Example:           fmt.Sprintf("  flux-kcl-controller suspend %s\n  flux-kcl-controller suspend %s --all -n demo", kind.example, kind.use),
			ValidArgsFunction: kind.complete(g),
			RunE: func(cmd *cobra.Command, args []string) error {
				objs, err := g.selectObjects(kind, args, all)
				if err != nil {
					return err
				}
				return g.setSuspend(kind, objs, true, false)
			},
		})
	}
	suspend.PersistentFlags().BoolVar(&all, "all", false, "suspend all objects of the kind in the namespace")
	return suspend
}

func newResumeCommand(g *globals) *cobra.Command {
	resume := &cobra.Command{Use: "resume", Short: "Resume suspended KCLRuns and ImageRollouts"}
	var all, wait bool
	for _, kind := range []suspendable{suspendableKCLRuns, suspendableImageRollouts} {
		resume.AddCommand(&cobra.Command{
			Use:     kind.use + " [NAME]...",
			Aliases: kind.aliases,
			Short:   "Resume suspended " + kind.kind + "s",
			Long: fmt.Sprintf(`Resume %ss and, for one name (or with --wait), wait until the controller has
handled them, as flux resume does.`, kind.kind),
			Example:           fmt.Sprintf("  flux-kcl-controller resume %s\n  flux-kcl-controller resume %s --all -n demo --wait", kind.example, kind.use),
			ValidArgsFunction: kind.complete(g),
			RunE: func(cmd *cobra.Command, args []string) error {
				objs, err := g.selectObjects(kind, args, all)
				if err != nil {
					return err
				}
				shouldWait := wait || (!cmd.Flags().Changed("wait") && len(args) == 1)
				return g.setSuspend(kind, objs, false, shouldWait)
			},
		})
	}
	resume.PersistentFlags().BoolVar(&all, "all", false, "resume all objects of the kind in the namespace")
	resume.PersistentFlags().BoolVar(&wait, "wait", false, "wait for the controller to handle them (the default for one name)")
	return resume
}

// selectObjects reads the named objects, or all of the namespace with --all.
func (g *globals) selectObjects(kind suspendable, names []string, all bool) ([]client.Object, error) {
	if all == (len(names) > 0) {
		return nil, fmt.Errorf("name the %ss, or give --all", kind.kind)
	}
	c, err := g.kubeClient()
	if err != nil {
		return nil, err
	}
	ctx, cancel := g.context()
	defer cancel()
	ns := g.namespace()
	if all {
		list := kind.newList()
		if err := c.List(ctx, list, client.InNamespace(ns)); err != nil {
			return nil, describe(err, "listing "+kind.kind+"s")
		}
		items, err := apimeta.ExtractList(list)
		if err != nil {
			return nil, err
		}
		var objs []client.Object
		for _, item := range items {
			objs = append(objs, item.(client.Object))
		}
		if len(objs) == 0 {
			return nil, fmt.Errorf("no %s objects found in %q namespace", kind.kind, ns)
		}
		return objs, nil
	}
	var objs []client.Object
	for _, name := range names {
		obj, err := getNamed(ctx, c, kind.kind, types.NamespacedName{Namespace: ns, Name: name}, kind.newObject())
		if err != nil {
			return nil, err
		}
		objs = append(objs, obj)
	}
	return objs, nil
}

// setSuspend patches spec.suspend (runaction.SetSuspend). Resuming also requests a
// reconcile, so that waiting ends when the controller has handled exactly this request.
func (g *globals) setSuspend(kind suspendable, objs []client.Object, suspend, wait bool) error {
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
	for _, obj := range objs {
		log.action("%s %s %s in %s namespace", verb, kind.kind, obj.GetName(), obj.GetNamespace())
		ts, err := runaction.SetSuspend(ctx, c, obj, suspend)
		if err != nil {
			return describe(err, fmt.Sprintf("%s %s %s/%s", verb, kind.kind, obj.GetNamespace(), obj.GetName()))
		}
		requested[obj.GetName()] = ts
		log.success("%s %s", kind.kind, done)
	}
	if !wait {
		return nil
	}
	sort.Slice(objs, func(i, j int) bool { return objs[i].GetName() < objs[j].GetName() })
	var failed []error
	for _, obj := range objs {
		log.waiting("waiting for %s reconciliation", kind.kind)
		summary, err := g.waitHandled(ctx, c, kind, client.ObjectKeyFromObject(obj), requested[obj.GetName()])
		if err != nil {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return err
			}
			failed = append(failed, fmt.Errorf("%s %s %w", kind.kind, obj.GetName(), err))
			continue
		}
		log.success("%s %s reconciliation completed", kind.kind, obj.GetName())
		log.success("%s", summary)
	}
	return errors.Join(failed...)
}

// getNamed reads an object of the kind; not found is one clear sentence.
func getNamed(ctx context.Context, c client.Reader, kind string, key types.NamespacedName, obj client.Object) (client.Object, error) {
	if err := c.Get(ctx, key, obj); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("%s %q not found in %q namespace", kind, key.Name, key.Namespace)
		}
		return nil, describe(err, "reading "+kind+" "+key.String())
	}
	return obj, nil
}
