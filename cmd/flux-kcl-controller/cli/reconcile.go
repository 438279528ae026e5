package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/runaction"
)

func newReconcileCommand(g *globals) *cobra.Command {
	reconcile := &cobra.Command{Use: "reconcile", Short: "Reconcile KCLRuns"}
	var withSource bool
	run := &cobra.Command{
		Use:     "kclrun NAME",
		Aliases: []string{"kclruns", "kr"},
		Short:   "Reconcile a KCLRun",
		Long: `Request a reconciliation of a KCLRun, as flux reconcile kustomization does: the
reconcile.fluxcd.io/requestedAt annotation (on its source first with --with-source), then wait
until the controller has handled the request and print the applied revision or the error.`,
		Example:           `  flux-kcl-controller reconcile kclrun web -n demo --with-source`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: g.completeKCLRuns,
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.reconcile(args[0], withSource)
		},
	}
	run.Flags().BoolVar(&withSource, "with-source", false, "reconcile the source of the KCLRun first")
	reconcile.AddCommand(run)
	return reconcile
}

func (g *globals) reconcile(name string, withSource bool) error {
	c, err := g.kubeClient()
	if err != nil {
		return err
	}
	ctx, cancel := g.context()
	defer cancel()
	key := types.NamespacedName{Namespace: g.namespace(), Name: name}
	run, err := getRun(ctx, c, key)
	if err != nil {
		return err
	}
	if run.Spec.Suspend {
		return fmt.Errorf("KCLRun %s is suspended: resume it first (flux-kcl-controller resume kclrun %s -n %s)", key, name, key.Namespace)
	}
	log := g.log()
	if withSource {
		if err := g.reconcileSource(ctx, c, run); err != nil {
			return err
		}
	}
	log.action("annotating KCLRun %s in %s namespace", name, key.Namespace)
	requested, err := runaction.RequestReconcile(ctx, c, key, runaction.KCLRunKind)
	if err != nil {
		return describe(err, "annotating KCLRun "+key.String())
	}
	log.success("KCLRun annotated")
	log.waiting("waiting for KCLRun reconciliation")
	summary, err := g.waitHandled(ctx, c, suspendableKCLRuns, key, requested)
	if err != nil {
		return err
	}
	log.success("%s", summary)
	return nil
}

// reconcileSource annotates the KCLRun's source and waits until source-controller has
// handled it, so that the KCLRun then reads the newest artifact.
func (g *globals) reconcileSource(ctx context.Context, c client.Client, run *v1alpha1.KCLRun) error {
	key, gvk, err := runaction.Source(run)
	if err != nil {
		return err
	}
	ref := run.Spec.SourceRef
	log := g.log()
	log.action("annotating %s %s in %s namespace", ref.Kind, key.Name, key.Namespace)
	requested, err := runaction.RequestReconcile(ctx, c, key, gvk)
	if err != nil {
		return describe(err, fmt.Sprintf("annotating %s %s", ref.Kind, key))
	}
	log.success("%s annotated", ref.Kind)
	log.waiting("waiting for %s reconciliation", ref.Kind)
	src := &unstructured.Unstructured{}
	src.SetGroupVersionKind(gvk)
	err = g.poll(ctx, fmt.Sprintf("%s %s", ref.Kind, key), func(ctx context.Context) (bool, error) {
		if err := c.Get(ctx, key, src); err != nil {
			return false, describe(err, fmt.Sprintf("reading %s %s", ref.Kind, key))
		}
		handled, _, _ := unstructured.NestedString(src.Object, "status", "lastHandledReconcileAt")
		if handled != requested {
			return false, nil
		}
		conds, err := unstructuredConditions(src)
		if err != nil {
			return false, err
		}
		return settled(conds, src.GetGeneration(), observedGeneration(src))
	})
	if err != nil {
		return err
	}
	revision, _, _ := unstructured.NestedString(src.Object, "status", "artifact", "revision")
	log.success("fetched revision %s", revision)
	return nil
}

// waitHandled polls the object until the controller has handled the request (for a
// KCLRun: status.lastHandledReconcileAt is the request and the Ready condition says how it
// ended) and returns what to print.
func (g *globals) waitHandled(ctx context.Context, c client.Client, kind suspendable, key types.NamespacedName, requested string) (string, error) {
	var summary string
	err := g.poll(ctx, kind.kind+" "+key.String(), func(ctx context.Context) (bool, error) {
		obj, err := getNamed(ctx, c, kind.kind, key, kind.newObject())
		if err != nil {
			return false, err
		}
		ok, s, err := kind.handled(obj, requested)
		summary = s
		return ok, err
	})
	return summary, err
}

// reconcileFailedError is a reconciliation the controller handled and that failed.
type reconcileFailedError struct{ msg string }

func (e *reconcileFailedError) Error() string { return "reconciliation failed: " + e.msg }

// settled tells whether a handled object is done: Ready True succeeds; Stalled, or Ready
// False while no longer Reconciling, fails with the Ready message (file:line for a
// program that does not compile).
func settled(conds []metav1.Condition, generation, observed int64) (bool, error) {
	if observed < generation {
		return false, nil
	}
	ready := findCondition(conds, meta.ReadyCondition)
	if ready == nil {
		return false, nil
	}
	if ready.Status == metav1.ConditionTrue {
		return true, nil
	}
	if s := findCondition(conds, meta.StalledCondition); s != nil && s.Status == metav1.ConditionTrue {
		return false, &reconcileFailedError{msg: s.Message}
	}
	if r := findCondition(conds, meta.ReconcilingCondition); r != nil && r.Status == metav1.ConditionTrue {
		return false, nil
	}
	if ready.Status == metav1.ConditionFalse {
		return false, &reconcileFailedError{msg: ready.Message}
	}
	return false, nil
}

func findCondition(conds []metav1.Condition, typ string) *metav1.Condition {
	for i := range conds {
		if conds[i].Type == typ {
			return &conds[i]
		}
	}
	return nil
}

// poll calls done every pollInterval with a spinner on a terminal, until it is true, fails,
// or --timeout ends ("timed out waiting for …").
func (g *globals) poll(ctx context.Context, what string, done func(context.Context) (bool, error)) error {
	spin := startSpinner(g.streams.Err, "waiting for "+what)
	defer spin.stop()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		ok, err := done(ctx)
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				return fmt.Errorf("timed out after %s waiting for %s to be reconciled", g.timeout, what)
			}
			return err
		}
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("timed out after %s waiting for %s to be reconciled (is the controller running?)", g.timeout, what)
		case <-tick.C:
		}
	}
}

// getRun reads a KCLRun; not found is one clear sentence.
func getRun(ctx context.Context, c client.Reader, key types.NamespacedName) (*v1alpha1.KCLRun, error) {
	obj, err := getNamed(ctx, c, v1alpha1.KCLRunKind, key, &v1alpha1.KCLRun{})
	if err != nil {
		return nil, err
	}
	return obj.(*v1alpha1.KCLRun), nil
}

func unstructuredConditions(u *unstructured.Unstructured) ([]metav1.Condition, error) {
	raw, found, err := unstructured.NestedSlice(u.Object, "status", "conditions")
	if err != nil || !found {
		return nil, err
	}
	var conds []metav1.Condition
	for _, r := range raw {
		m, ok := r.(map[string]any)
		if !ok {
			continue
		}
		typ, _ := m["type"].(string)
		status, _ := m["status"].(string)
		msg, _ := m["message"].(string)
		reason, _ := m["reason"].(string)
		conds = append(conds, metav1.Condition{Type: typ, Status: metav1.ConditionStatus(status), Message: msg, Reason: reason})
	}
	return conds, nil
}

func observedGeneration(u *unstructured.Unstructured) int64 {
	g, _, _ := unstructured.NestedInt64(u.Object, "status", "observedGeneration")
	return g
}
