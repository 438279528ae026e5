package applier

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	ctrlcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
	"github.com/kcl-lang/flux-kcl-controller/internal/rollout"
	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
)

// indexRolloutPolicy holds an ImageRollout's policy as "namespace/name".
const indexRolloutPolicy = ".spec.imagePolicyRef"

// rolloutSyncTimeout bounds the wait for the ImageRollout cache at start.
const rolloutSyncTimeout = time.Minute

// imageRollouts answers which ImageRollout governs a policy from an
// informer: a marker costs no apiserver request more than before, with or
// without rollouts. The watcher decides the stages (internal/rollout); the
// applier only reads the image of the KCLRun's stage from the status.
type imageRollouts struct {
	cache ctrlcache.Cache // nil: the CRD is not installed, no rollouts
}

// startImageRollouts starts the cache and waits for it: a reconcile that ran
// before would follow a policy its rollout holds back.
func startImageRollouts(ctx context.Context, cfg *rest.Config, scheme *runtime.Scheme) (*imageRollouts, error) {
	c, err := ctrlcache.New(cfg, ctrlcache.Options{Scheme: scheme})
	if err != nil {
		return nil, fmt.Errorf("building ImageRollout cache: %w", err)
	}
	err = c.IndexField(ctx, &v1alpha1.ImageRollout{}, indexRolloutPolicy, func(o client.Object) []string {
		return []string{o.(*v1alpha1.ImageRollout).PolicyKey()}
	})
	if apimeta.IsNoMatchError(err) {
		return &imageRollouts{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("indexing ImageRollouts: %w", err)
	}
	go func() { _ = c.Start(ctx) }()
	syncCtx, cancel := context.WithTimeout(ctx, rolloutSyncTimeout)
	defer cancel()
	if !c.WaitForCacheSync(syncCtx) {
		return nil, fmt.Errorf("waiting for the ImageRollout cache: %w", syncCtx.Err())
	}
	return &imageRollouts{cache: c}, nil
}

// governing is the rollout of a policy: the oldest when several name it, as
// the watcher decides (the others are Ready=False there).
func (r *imageRollouts) governing(ctx context.Context, reader client.Reader, policy string) (*v1alpha1.ImageRollout, error) {
	if r == nil || r.cache == nil {
		return nil, nil
	}
	var list v1alpha1.ImageRolloutList
	if err := r.cache.List(ctx, &list, client.MatchingFields{indexRolloutPolicy: policy}); err != nil {
		return nil, fmt.Errorf("listing ImageRollouts of %s: %w", policy, err)
	}
	items, err := withTriggeringRollout(ctx, reader, list.Items, policy)
	if err != nil {
		return nil, err
	}
	return rollout.Governing(items, policy), nil
}

// triggeringRolloutKey carries the ImageRollout a request reports changed
// (*triggeringRollout).
type triggeringRolloutKey struct{}

// triggeringRollout is the ImageRollout a request names, read live at most
// once per reconcile however many of the program's policies ask.
type triggeringRollout struct {
	key  types.NamespacedName
	once sync.Once
	live *v1alpha1.ImageRollout // nil: gone
	err  error
}

func (t *triggeringRollout) read(ctx context.Context, reader client.Reader) (*v1alpha1.ImageRollout, error) {
	t.once.Do(func() {
		live := &v1alpha1.ImageRollout{}
		err := reader.Get(ctx, t.key, live)
		switch {
		case err == nil:
			t.live = live
		case !apierrors.IsNotFound(err):
			t.err = fmt.Errorf("reading ImageRollout %s: %w", t.key, err)
		}
	})
	return t.live, t.err
}

// withTriggeringRollout puts the live copy of the ImageRollout that ctx names
// (forTriggeringRollout) in place of the cached one. The watcher publishes an
// ImageRollout request right after writing the rollout's status, so this
// process's ImageRollout cache may not hold that write yet: read from it, a
// stage just admitted would give its KCLRuns the old image, and the watcher's
// next ask is the same message, dropped as a duplicate for two minutes.
func withTriggeringRollout(ctx context.Context, reader client.Reader, items []v1alpha1.ImageRollout, policy string) ([]v1alpha1.ImageRollout, error) {
	t, ok := ctx.Value(triggeringRolloutKey{}).(*triggeringRollout)
	if !ok {
		return items, nil
	}
	live, err := t.read(ctx, reader)
	if err != nil || live == nil {
		return items, err
	}
	out := make([]v1alpha1.ImageRollout, 0, len(items)+1)
	for _, ro := range items {
		if ro.UID != live.UID {
			out = append(out, ro)
		}
	}
	if live.PolicyKey() == policy {
		out = append(out, *live)
	}
	return out, nil
}

// forTriggeringRollout is ctx for the reconcile of req: an ImageRollout
// request makes the rollout it names a live read (withTriggeringRollout).
func forTriggeringRollout(ctx context.Context, req reconcilerequest.Request) context.Context {
	if req.Reason != reconcilerequest.ReasonImageRolloutChanged {
		return ctx
	}
	namespace, name, ok := req.TriggeredBy(v1alpha1.ImageRolloutKind)
	if !ok {
		return ctx
	}
	return context.WithValue(ctx, triggeringRolloutKey{}, &triggeringRollout{key: types.NamespacedName{Namespace: namespace, Name: name}})
}

// give replaces a found policy's election with the image the governing
// rollout gives the KCLRun's stage (rollout.Give), and says what it gave. It
// only ever picks between the policy's elections (target or last good), and
// the resolver still checks the repository and the lockdown flags, so a
// KCLRun can apply nothing it could not before. Without a rollout, or before
// the watcher initialised one, the policy's election stands.
func (r *imageRollouts) give(ctx context.Context, reader client.Reader, obj *v1alpha1.KCLRun, p *workerclient.ImagePolicy, noCrossNamespaceRefs bool) (*v1alpha1.KCLRunRollout, error) {
	if !p.Found {
		return nil, nil
	}
	key := p.Namespace + "/" + p.Name
	ro, err := r.governing(ctx, reader, key)
	if err != nil || ro == nil {
		return nil, err
	}
	if noCrossNamespaceRefs && obj.Namespace != ro.Namespace {
		return nil, nil // the resolver refuses the marker anyway
	}
	img, given, err := rollout.Give(ro, obj, key, func() (map[string]string, error) {
		ns := &corev1.Namespace{}
		if err := reader.Get(ctx, types.NamespacedName{Name: obj.Namespace}, ns); err != nil && !apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("reading namespace %s for ImageRollout %s/%s: %w", obj.Namespace, ro.Namespace, ro.Name, err)
		}
		return ns.Labels, nil
	})
	if err != nil || img == nil {
		return nil, err
	}
	p.LatestRef = &workerclient.LatestRef{Name: img.Name, Tag: img.Tag, Digest: img.Digest}
	return given, nil
}
