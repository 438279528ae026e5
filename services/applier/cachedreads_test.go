package applier_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/kubescheme"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
	"github.com/kcl-lang/flux-kcl-controller/services/applier"
)

// A watch cache that lags never stands in for the KCLRun: the finalizer
// written from its stale copy carries that copy's resourceVersion, conflicts,
// and the reconcile reads the apiserver. Written without it, the stale
// finalizer list would replace the one another controller added since.
func TestLaggingWatchCacheIsNotTrustedForTheKCLRun(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	cm := publishProgram(t, ns, "cm", configMap("settings", "v1"))
	run := &v1alpha1.KCLRun{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "lagging"},
		Spec: v1alpha1.KCLRunSpec{
			SourceRef: v1alpha1.CrossNamespaceSourceReference{Kind: "GitRepository", Name: "cm"},
			Interval:  metav1.Duration{Duration: 10 * time.Minute},
			Prune:     true,
		},
	}
	g.Expect(env.Client.Create(ctx, run)).To(Succeed())
	key := client.ObjectKeyFromObject(run)

	// A real informer cache, stopped once it holds the KCLRun: from then on it lags.
	scheme, err := kubescheme.New()
	g.Expect(err).NotTo(HaveOccurred())
	informers, err := cache.New(env.Config, cache.Options{Scheme: scheme})
	g.Expect(err).NotTo(HaveOccurred())
	cacheCtx, stopCache := context.WithCancel(ctx)
	go func() { _ = informers.Start(cacheCtx) }()
	g.Eventually(func() error { return informers.Get(ctx, key, &v1alpha1.KCLRun{}) }, "30s", "100ms").Should(Succeed())
	stopCache()

	// Another controller's finalizer, written after the cache stopped.
	const other = "example.com/keep"
	live := &v1alpha1.KCLRun{}
	g.Expect(env.Client.Get(ctx, key, live)).To(Succeed())
	controllerutil.AddFinalizer(live, other)
	g.Expect(env.Client.Update(ctx, live)).To(Succeed())
	t.Cleanup(func() {
		cur := &v1alpha1.KCLRun{}
		if env.Client.Get(ctx, key, cur) == nil && controllerutil.RemoveFinalizer(cur, other) {
			_ = env.Client.Update(ctx, cur)
		}
		if env.Client.Delete(ctx, run) == nil {
			request(t, ns, run.Name, reconcilerequest.ReasonDeleting)
		}
	})

	lagging := laggingCache{informers: informers, id: "lagging-watcher"}
	whileApplierStopped(t, func() {
		stop, err := startApplierWith(mainCtx, "applier-lagging-cache", "", nil, workers, func(_ *applier.Config, deps *applier.Deps) {
			deps.WatchCache = lagging
		})
		g.Expect(err).NotTo(HaveOccurred())
		defer stop()
		publishFrom(t, lagging.id, ns, run.Name, reconcilerequest.ReasonCreated)
		readyAt(t, ns, run.Name, cm.Revision)
	})
	g.Expect(env.Client.Get(ctx, key, live)).To(Succeed())
	g.Expect(live.Finalizers).To(ConsistOf(v1alpha1.KCLRunFinalizer, other))
	g.Expect(lagging.reads()).To(BeNumerically(">", 0), "the cache was asked")
}

// laggingCache is a stopped informer cache in the place of a watcher's; it
// holds KCLRuns only, as a watcher without the other kinds' CRDs would.
type laggingCache struct {
	informers cache.Cache
	id        string
}

func (c laggingCache) Get(ctx context.Context, key client.ObjectKey, obj client.Object) error {
	if _, ok := obj.(*v1alpha1.KCLRun); !ok {
		return fmt.Errorf("%T: %w", obj, errNotCached)
	}
	laggingReads.Add(1)
	return c.informers.Get(ctx, key, obj)
}

func (c laggingCache) PublisherID() string { return c.id }

func (c laggingCache) reads() int64 { return laggingReads.Load() }

var (
	errNotCached = errors.New("not cached")
	laggingReads atomic.Int64
)

// publishFrom publishes a request as the watcher named publisher would.
func publishFrom(t testing.TB, publisher, namespace, name string, reason reconcilerequest.Reason) {
	t.Helper()
	js, done := suiteJetStream(t)
	defer done()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := reconcilerequest.Request{Namespace: namespace, Name: name, Reason: reason, Publisher: publisher}
	id := fmt.Sprintf("test/%s/%s/%d", namespace, name, requestSeq.Add(1))
	if _, err := reconcilerequest.NewPublisher(js, "").Publish(ctx, req, id); err != nil {
		t.Fatal(err)
	}
}
