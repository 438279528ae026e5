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
// lists a policy when the policy's status.latestRef changes.
func (s *Service) imagePolicyHandler(ctx context.Context) toolscache.ResourceEventHandler {
	return toolscache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj any, isInInitialList bool) {
			if isInInitialList {
				return
			}
			if p, ok := unwrap[*imagev1.ImagePolicy](obj); ok && p.Status.LatestRef != nil {
				s.imagePolicyChanged(ctx, p)
			}
		},
		UpdateFunc: func(oldObj, newObj any) {
			old, ok1 := unwrap[*imagev1.ImagePolicy](oldObj)
			p, ok2 := unwrap[*imagev1.ImagePolicy](newObj)
			if ok1 && ok2 && latestRefChanged(old.Status.LatestRef, p.Status.LatestRef) {
				s.imagePolicyChanged(ctx, p)
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

func (s *Service) imagePolicyChanged(ctx context.Context, p *imagev1.ImagePolicy) {
	key := objectKey(p.Namespace, p.Name)
	var runs kclv1.KCLRunList
	if err := s.mgr.GetCache().List(ctx, &runs, client.MatchingFields{indexImagePolicies: key}); err != nil {
		s.log.Error(err, "listing KCLRuns of ImagePolicy", "imagePolicy", key)
		return
	}
	trigger := imagev1.ImagePolicyKind + "/" + key
	for i := range runs.Items {
		run := &runs.Items[i]
		s.enqueueFor(ctx, run, reconcilerequest.ReasonImagePolicyChanged, trigger, nil,
			fmt.Sprintf("%s/imagepolicy/%s/%s", run.UID, p.UID, p.ResourceVersion))
	}
}
