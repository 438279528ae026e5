package applier

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
)

// WatchCache is the watcher's caches when the watcher runs in the applier's
// process (the all-in-one): a reconcile of a request that watcher published
// reads the KCLRun's source and ImagePolicies there instead of the
// apiserver. Its handlers published the request after the caches held the
// change behind it, and every later change brings another request, so what
// is read is never older than what the request is for. The split deployment
// has none: an applier's own informers would lag the watcher that published
// (a policy change reconciled before the applier saw it would apply the old
// image, and no further request comes), and would cost each replica a copy
// of every source and policy.
type WatchCache interface {
	// Get reads obj, or fails for anything it does not hold (then the
	// apiserver is read).
	Get(ctx context.Context, key client.ObjectKey, obj client.Object) error
	// PublisherID is reconcilerequest.Request.Publisher of that watcher's requests.
	PublisherID() string
}

type watchCacheKey struct{}

// withWatchCache makes the reads of req's reconcile use the watcher's caches
// when that watcher published req.
func (s *Service) withWatchCache(ctx context.Context, req reconcilerequest.Request) context.Context {
	if s.watchCache == nil || req.Publisher == "" || req.Publisher != s.watchCache.PublisherID() {
		return ctx
	}
	return context.WithValue(ctx, watchCacheKey{}, s.watchCache)
}

// cachedGet reads obj from the watcher's caches when ctx allows it
// (withWatchCache); false means it was not read there.
func cachedGet(ctx context.Context, key types.NamespacedName, obj client.Object) bool {
	c, ok := ctx.Value(watchCacheKey{}).(WatchCache)
	return ok && c.Get(ctx, key, obj) == nil
}

// readKCLRun reads the KCLRun a reconcile is for. Only a first reconcile
// reads it from the watcher's cache: the finalizer it must add is written
// with the cached resourceVersion, so the write succeeds only if the cached
// copy was the latest, and its answer is the whole object; a conflict reads
// the apiserver. Any later reconcile reads the apiserver, because the cache
// may not hold this applier's last status write yet: a stale inventory
// would leave the objects applied since out of the prune.
func (s *Service) readKCLRun(ctx context.Context, key types.NamespacedName) (*v1alpha1.KCLRun, error) {
	obj := &v1alpha1.KCLRun{}
	if cachedGet(ctx, key, obj) && obj.DeletionTimestamp.IsZero() && needsFinalizer(obj) {
		err := s.addFinalizer(ctx, obj)
		if err == nil {
			return obj, nil
		}
		if !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("adding finalizer: %w", err)
		}
	}
	obj = &v1alpha1.KCLRun{}
	if err := s.client.Get(ctx, key, obj); err != nil {
		return nil, err
	}
	return obj, nil
}

// needsFinalizer reports whether obj lacks the applier's finalizer.
func needsFinalizer(obj *v1alpha1.KCLRun) bool {
	// A KCLRun of the original controller: ours takes over its finalizer.
	return !controllerutil.ContainsFinalizer(obj, v1alpha1.KCLRunFinalizer) || controllerutil.ContainsFinalizer(obj, v1alpha1.LegacyKCLRunFinalizer)
}

// addFinalizer writes the finalizer, failing with a conflict if obj is not
// the latest version; obj is then the object as written.
func (s *Service) addFinalizer(ctx context.Context, obj *v1alpha1.KCLRun) error {
	orig := obj.DeepCopy()
	controllerutil.AddFinalizer(obj, v1alpha1.KCLRunFinalizer)
	controllerutil.RemoveFinalizer(obj, v1alpha1.LegacyKCLRunFinalizer)
	return s.client.Patch(ctx, obj, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{}))
}
