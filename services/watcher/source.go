package watcher

import (
	"context"
	"fmt"

	"github.com/fluxcd/pkg/apis/meta"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kclv1 "github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
)

// sourceHandler publishes for the KCLRuns referencing a source when its
// artifact revision or digest changes — found through the sourceRef index,
// so KCLRuns on other sources are untouched.
func (s *Service) sourceHandler(ctx context.Context, kind string) toolscache.ResourceEventHandler {
	return toolscache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj any, isInInitialList bool) {
			// The initial list is covered by the KCLRuns' own Created requests;
			// a source created later may unblock KCLRuns that waited for it.
			if isInInitialList {
				return
			}
			if src, ok := unwrap[sourceObject](obj); ok && src.GetArtifact() != nil {
				s.sourceChanged(ctx, kind, src)
			}
		},
		UpdateFunc: func(oldObj, newObj any) {
			old, ok1 := unwrap[sourceObject](oldObj)
			src, ok2 := unwrap[sourceObject](newObj)
			if ok1 && ok2 && artifactChanged(old.GetArtifact(), src.GetArtifact()) {
				s.sourceChanged(ctx, kind, src)
			}
		},
	}
}

// artifactChanged: a new artifact appeared, or its revision or digest moved.
func artifactChanged(old, cur *meta.Artifact) bool {
	if cur == nil {
		return false
	}
	return old == nil || old.Revision != cur.Revision || old.Digest != cur.Digest
}

func (s *Service) sourceChanged(ctx context.Context, kind string, src sourceObject) {
	var runs kclv1.KCLRunList
	key := sourceKey(kind, src.GetNamespace(), src.GetName())
	if err := s.mgr.GetCache().List(ctx, &runs, client.MatchingFields{indexSourceRef: key}); err != nil {
		s.log.Error(err, "listing KCLRuns of source", "source", key)
		return
	}
	for i := range runs.Items {
		run := &runs.Items[i]
		s.enqueueFor(ctx, run, reconcilerequest.ReasonSourceChanged, key, src.GetArtifact(),
			fmt.Sprintf("%s/source/%s/%s", run.UID, src.GetUID(), src.GetResourceVersion()))
	}
}
