package watcher

import (
	"context"
	"fmt"

	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"

	kclv1 "github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
)

// imagePolicyHandler publishes for the KCLRuns whose status.imagePolicies
// lists a policy whenever what their markers resolve to may change: the
// policy is created (a held KCLRun waits for it; status.imagePolicies also
// lists policies not found), its status.latestRef changes, or it is deleted
// (the KCLRun must hold instead of following a policy that is gone).
func (s *Service) imagePolicyHandler(ctx context.Context) toolscache.ResourceEventHandler {
	return toolscache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj any, isInInitialList bool) {
			if isInInitialList {
				return
			}
			if p, ok := unwrap[*imagev1.ImagePolicy](obj); ok {
				s.imagePolicyChanged(ctx, p, "created")
			}
		},
		UpdateFunc: func(oldObj, newObj any) {
			old, ok1 := unwrap[*imagev1.ImagePolicy](oldObj)
			p, ok2 := unwrap[*imagev1.ImagePolicy](newObj)
			if ok1 && ok2 && latestRefChanged(old.Status.LatestRef, p.Status.LatestRef) {
				s.imagePolicyChanged(ctx, p, p.ResourceVersion)
			}
		},
		DeleteFunc: func(obj any) {
			if p, ok := unwrap[*imagev1.ImagePolicy](obj); ok {
				s.imagePolicyChanged(ctx, p, "deleted")
			}
		},
	}
}

func latestRefChanged(old, cur *imagev1.ImageRef) bool {
	if cur == nil {
		return false
	}
	return old == nil || old.Name != cur.Name || old.Tag != cur.Tag || old.Digest != cur.Digest
}

// imagePolicyChanged publishes for the KCLRuns that reference p; change names
// the event in the message ID, so that a deletion is not taken for a
// duplicate of the update with the same resourceVersion before it.
func (s *Service) imagePolicyChanged(ctx context.Context, p *imagev1.ImagePolicy, change string) {
	key := objectKey(p.Namespace, p.Name)
	s.rollouts.policyChanged(ctx, key)
	if change != "created" && change != "deleted" && s.rollouts.governs(ctx, key) {
		// A new election of a rolled-out policy reaches the KCLRuns through
		// the rollout's stages (its own requests), not all at once.
		return
	}
	var runs kclv1.KCLRunList
	if err := s.mgr.GetCache().List(ctx, &runs, client.MatchingFields{indexImagePolicies: key}); err != nil {
		s.log.Error(err, "listing KCLRuns of ImagePolicy", "imagePolicy", key)
		return
	}
	trigger := reconcilerequest.TriggerOf(imagev1.ImagePolicyKind, p.Namespace, p.Name)
	for i := range runs.Items {
		run := &runs.Items[i]
		s.enqueueFor(ctx, run, reconcilerequest.ReasonImagePolicyChanged, trigger, nil,
			fmt.Sprintf("%s/imagepolicy/%s/%s", run.UID, p.UID, change))
	}
}
