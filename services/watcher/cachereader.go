package watcher

import (
	"context"
	"errors"
	"fmt"

	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kclv1 "github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// ErrNotCached is returned by CacheReader.Get for what the watcher does not
// hold: a kind it does not watch, or any kind before its handlers run.
var ErrNotCached = errors.New("not in the watcher's cache")

// CacheReader reads the watcher's caches from a process that also runs the
// applier (the all-in-one). A request this watcher published was published
// by a handler of these very caches, after they held the change that caused
// it, so its reconcile may read them instead of the apiserver: what it reads
// is at least as new as the trigger, and any later change brings another
// request. The objects are trimmed (cachetransform.go): sources keep their
// artifact, ImagePolicies their latest image, KCLRuns neither inventory nor
// history.
type CacheReader struct{ s *Service }

// CacheReader returns the reader of the watcher's caches.
func (s *Service) CacheReader() CacheReader { return CacheReader{s} }

// PublisherID is the Publisher of the requests this watcher publishes;
// requests of another process or an earlier start must not be answered from
// these caches.
func (r CacheReader) PublisherID() string { return r.s.startID }

// Get reads obj from the cache, or returns ErrNotCached without starting an
// informer for a kind the watcher does not watch.
func (r CacheReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object) error {
	s := r.s
	// Set once the handlers run, after the watched kinds were fixed.
	if !s.readiness.handlersSynced.Load() {
		return ErrNotCached
	}
	watched := false
	switch obj.(type) {
	case *kclv1.KCLRun:
		watched = true
	case *imagev1.ImagePolicy:
		watched = s.imagePolicies
	case *sourcev1.GitRepository:
		watched = s.sourceKinds[sourcev1.GitRepositoryKind]
	case *sourcev1.OCIRepository:
		watched = s.sourceKinds[sourcev1.OCIRepositoryKind]
	case *sourcev1.Bucket:
		watched = s.sourceKinds[sourcev1.BucketKind]
	case *sourcev1.ExternalArtifact:
		watched = s.sourceKinds[sourcev1.ExternalArtifactKind]
	}
	if !watched {
		return fmt.Errorf("%T: %w", obj, ErrNotCached)
	}
	return s.mgr.GetCache().Get(ctx, key, obj)
}
