package watcher

import (
	"context"
	"fmt"

	"github.com/fluxcd/pkg/apis/meta"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"

	kclv1 "github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// sourceObject is a Flux source kind as read from the cache.
type sourceObject interface {
	client.Object
	GetArtifact() *meta.Artifact
}

// sourceKinds are the source kinds a KCLRun may reference.
var sourceKinds = map[string]func() sourceObject{
	sourcev1.GitRepositoryKind:    func() sourceObject { return &sourcev1.GitRepository{} },
	sourcev1.OCIRepositoryKind:    func() sourceObject { return &sourcev1.OCIRepository{} },
	sourcev1.BucketKind:           func() sourceObject { return &sourcev1.Bucket{} },
	sourcev1.ExternalArtifactKind: func() sourceObject { return &sourcev1.ExternalArtifact{} },
}

// registration is an event handler added to an informer.
type registration struct {
	informer cache.Informer
	handle   toolscache.ResourceEventHandlerRegistration
}

func (r registration) remove() error { return r.informer.RemoveEventHandler(r.handle) }

// watch adds the event handlers and waits for the caches to fill. KCLRuns are
// required; a source kind or ImagePolicy whose CRD is absent is skipped (a
// Flux install without image automation), and picked up on the next start.
func (s *Service) watch(ctx context.Context) ([]registration, error) {
	var regs []registration
	add := func(obj client.Object, h toolscache.ResourceEventHandler) error {
		inf, err := s.mgr.GetCache().GetInformer(ctx, obj)
		if err != nil {
			return fmt.Errorf("getting informer for %T: %w", obj, err)
		}
		handle, err := inf.AddEventHandler(h)
		if err != nil {
			return fmt.Errorf("adding event handler for %T: %w", obj, err)
		}
		regs = append(regs, registration{informer: inf, handle: handle})
		return nil
	}
	// The set of watched source kinds is fixed before any handler runs: the
	// handlers read it without a lock.
	for kind := range sourceKinds {
		if s.kindServed(sourcev1.GroupVersion.WithKind(kind)) {
			s.sourceKinds[kind] = true
		}
	}
	// Before any handler runs: they read it without a lock.
	s.rollouts = s.newRollouts()
	if err := add(&kclv1.KCLRun{}, s.kclRunHandler(ctx)); err != nil {
		return nil, err
	}
	for kind := range s.sourceKinds {
		if err := add(sourceKinds[kind](), s.sourceHandler(ctx, kind)); err != nil {
			return nil, err
		}
	}
	s.imagePolicies = s.kindServed(imagev1.GroupVersion.WithKind(imagev1.ImagePolicyKind))
	if s.imagePolicies {
		if err := add(&imagev1.ImagePolicy{}, s.imagePolicyHandler(ctx)); err != nil {
			return nil, err
		}
	}
	if s.rollouts != nil {
		if err := add(&kclv1.ImageRollout{}, s.rollouts.rolloutHandler()); err != nil {
			return nil, err
		}
	}
	for _, r := range regs {
		if !toolscache.WaitForCacheSync(ctx.Done(), r.handle.HasSynced) {
			return nil, fmt.Errorf("waiting for caches to sync: %w", ctx.Err())
		}
	}
	return regs, nil
}

func (s *Service) kindServed(gvk schema.GroupVersionKind) bool {
	_, err := s.mgr.GetRESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		if !apimeta.IsNoMatchError(err) {
			s.log.Error(err, "looking up kind; not watching it", "kind", gvk.String())
		} else {
			s.log.Info("kind not installed; not watching it", "kind", gvk.String())
		}
		return false
	}
	return true
}

// unwrap returns the object of an informer event, also for a deletion whose
// final state was missed.
func unwrap[T client.Object](obj any) (T, bool) {
	if tomb, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	o, ok := obj.(T)
	return o, ok
}
