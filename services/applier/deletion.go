package applier

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/fluxcd/pkg/ssa"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/inventory"
)

// finalize deletes the inventory as spec.deletionPolicy says and releases the KCLRun.
func (s *Service) finalize(ctx context.Context, obj *v1alpha1.KCLRun, delivered uint64) Outcome {
	// The original controller's finalizer means the same as ours, and no
	// one else will ever remove it.
	if !controllerutil.ContainsFinalizer(obj, v1alpha1.KCLRunFinalizer) && !controllerutil.ContainsFinalizer(obj, v1alpha1.LegacyKCLRunFinalizer) {
		return Outcome{Result: ResultDeleted}
	}
	if deletesObjects(obj) {
		if why, err := s.garbageCollectionBlocked(ctx, obj); err != nil {
			return s.transient(err, delivered)
		} else if why != "" {
			// As kustomize-controller: the identity that could delete the
			// objects is going away with its namespace; waiting for it would
			// keep the KCLRun, and so the namespace, from ever going.
			s.events.record(obj, obj.Status.LastAppliedRevision, false, v1alpha1.GarbageCollectionSkippedReason,
				fmt.Sprintf("garbage collection skipped: %s; objects left in place: %s", why, inventoryList(obj.Status.Inventory)))
		} else {
			cluster, err := s.clusters.forKCLRun(ctx, s.client, obj, s.cfg.DefaultServiceAccount)
			if err != nil {
				return s.fail(obj, &deletionError{err}, delivered, obj.Status.LastAppliedRevision)
			}
			deleted, err := s.pruneAll(ctx, cluster, obj)
			if err != nil {
				return s.fail(obj, &deletionError{err}, delivered, obj.Status.LastAppliedRevision)
			}
			if deleted != nil && len(deleted.Entries) > 0 {
				s.events.record(obj, obj.Status.LastAppliedRevision, true, v1alpha1.PrunedReason, changeSummary(deleted.ToGroupedMap()))
				if obj.GetDeletionPolicy() == v1alpha1.DeletionPolicyWaitForTermination {
					s.waitForTermination(cluster, obj, deleted)
				}
			}
		}
	}
	s.unpublish(ctx, obj)
	orig := obj.DeepCopy()
	controllerutil.RemoveFinalizer(obj, v1alpha1.KCLRunFinalizer)
	controllerutil.RemoveFinalizer(obj, v1alpha1.LegacyKCLRunFinalizer)
	if err := s.client.Patch(ctx, obj, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})); err != nil && !apierrors.IsNotFound(err) {
		return s.transient(fmt.Errorf("removing finalizer: %w", err), delivered)
	}
	key := client.ObjectKeyFromObject(obj)
	s.forget(ctx, key)
	return Outcome{Result: ResultDeleted}
}

// deletesObjects tells whether deleting the KCLRun deletes its inventory, as
// kustomize-controller decides: never while suspended.
func deletesObjects(obj *v1alpha1.KCLRun) bool {
	if obj.Spec.Suspend || obj.Status.Inventory == nil || len(obj.Status.Inventory.Entries) == 0 {
		return false
	}
	switch obj.GetDeletionPolicy() {
	case v1alpha1.DeletionPolicyMirrorPrune:
		return obj.Spec.Prune
	case v1alpha1.DeletionPolicyDelete, v1alpha1.DeletionPolicyWaitForTermination:
		return true
	default:
		return false
	}
}

// waitForTermination keeps the KCLRun until the deleted objects are gone
// (their finalizers ran), at most spec.timeout; a timeout is reported and the
// KCLRun released all the same, as Flux does.
func (s *Service) waitForTermination(cl *cluster, obj *v1alpha1.KCLRun, deleted *ssa.ChangeSet) {
	err := s.manager(cl).WaitForSetTermination(deleted, ssa.WaitOptions{Interval: 2 * time.Second, Timeout: obj.GetTimeout()})
	if err != nil {
		s.events.record(obj, obj.Status.LastAppliedRevision, false, v1alpha1.TerminationTimeoutReason,
			fmt.Sprintf("failed to wait for objects termination: %s", err.Error()))
	}
}

// garbageCollectionBlocked says why the inventory of a KCLRun applied as an
// impersonated ServiceAccount cannot be deleted: the account is gone, or its
// namespace is terminating (the namespace controller deletes the account and
// its RoleBindings in no particular order). Empty when deletion can go on; an
// error only when the cluster could not be read.
func (s *Service) garbageCollectionBlocked(ctx context.Context, obj *v1alpha1.KCLRun) (string, error) {
	if obj.Spec.KubeConfig != nil {
		return "", nil // the account lives in the remote cluster
	}
	sa := obj.Spec.ServiceAccountName
	if sa == "" {
		sa = s.cfg.DefaultServiceAccount
	}
	if sa == "" {
		return "", nil
	}
	ns := &corev1.Namespace{}
	if err := s.client.Get(ctx, types.NamespacedName{Name: obj.Namespace}, ns); err != nil && !apierrors.IsNotFound(err) {
		return "", fmt.Errorf("reading namespace %s: %w", obj.Namespace, err)
	} else if err == nil && (!ns.DeletionTimestamp.IsZero() || ns.Status.Phase == corev1.NamespaceTerminating) {
		return fmt.Sprintf("namespace %s is terminating, so ServiceAccount '%s/%s' cannot be relied on to delete the objects", obj.Namespace, obj.Namespace, sa), nil
	}
	account := &corev1.ServiceAccount{}
	if err := s.client.Get(ctx, types.NamespacedName{Namespace: obj.Namespace, Name: sa}, account); err != nil {
		if apierrors.IsNotFound(err) {
			return fmt.Sprintf("unable to impersonate ServiceAccount '%s/%s': not found", obj.Namespace, sa), nil
		}
		return "", fmt.Errorf("reading ServiceAccount '%s/%s': %w", obj.Namespace, sa, err)
	}
	return "", nil
}

// inventoryList names the inventory's objects for an event, as Flux lists the
// objects it leaves behind.
func inventoryList(inv *v1alpha1.ResourceInventory) string {
	objects, err := inventory.Objects(inv)
	if err != nil {
		return fmt.Sprintf("%d objects", len(inv.Entries))
	}
	names := make([]string, 0, len(objects))
	for _, o := range objects {
		id := o.GetKind() + "/" + o.GetName()
		if ns := o.GetNamespace(); ns != "" {
			id = o.GetKind() + "/" + ns + "/" + o.GetName()
		}
		names = append(names, id)
	}
	return strings.Join(names, ", ")
}
