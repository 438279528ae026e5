package applier

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
)

// onDrift asks for a full reconcile of the owner of an object that drifted.
// Every replica sees the same change; the message id, built from the
// object's uid and resourceVersion, lets JetStream keep one request. The drift
// watcher sees the objects of every shard's KCLRuns: with --watch-label-selector
// only an owner of this shard is asked for (its own shard's appliers ask for it),
// and never one whose spec.driftDetection.mode is disabled.
func (s *Service) onDrift(owner types.NamespacedName, resource schema.GroupVersionResource, obj *metav1.PartialObjectMetadata, deleted bool) {
	what := "edited"
	if deleted {
		what = "deleted"
	}
	trigger := reconcilerequest.TriggerOf(resource.GroupResource().String(), obj.Namespace, obj.Name)
	s.log.V(1).Info("applied object drifted", "kclrun", owner.String(), "object", trigger, "change", what)
	req := reconcilerequest.Request{
		Namespace: owner.Namespace,
		Name:      owner.Name,
		Reason:    reconcilerequest.ReasonDriftDetected,
		Trigger:   trigger,
	}
	id := fmt.Sprintf("%s/drift/%s/%s/%s", owner, obj.UID, obj.ResourceVersion, what)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		// The watcher's informers are per kind, shared by KCLRuns of every
		// shard and drift detection mode: the owner says whether it is ours to ask for.
		run := &v1alpha1.KCLRun{}
		if err := s.client.Get(ctx, owner, run); err != nil {
			if !apierrors.IsNotFound(err) {
				s.log.Error(err, "reading the owner of a drifted object", "kclrun", owner.String())
			}
			return
		}
		if !s.inShard(run) || !watchesDrift(run) {
			return
		}
		if _, err := s.publisher.Publish(ctx, req, id); err != nil {
			s.log.Error(err, "requesting a drift reconcile", "kclrun", owner.String())
		}
	}()
}
