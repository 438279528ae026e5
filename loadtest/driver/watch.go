package driver

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/kcl-lang/flux-kcl-controller/internal/apiserveroutage"
	"github.com/kcl-lang/flux-kcl-controller/loadtest/report"
	"github.com/kcl-lang/flux-kcl-controller/loadtest/tenant"
)

var (
	kclRunResource        = schema.GroupVersionResource{Group: "krm.kcl.dev.fluxcd", Version: "v1alpha1", Resource: "kclruns"}
	kustomizationResource = schema.GroupVersionResource{Group: "kustomize.toolkit.fluxcd.io", Version: "v1", Resource: "kustomizations"}
)

// readyTracker records when each runner (KCLRun or Kustomization) first became Ready,
// from an informer: no polling.
type readyTracker struct {
	mu      sync.Mutex
	start   time.Time
	ready   map[string]time.Duration
	want    int
	curve   []report.Point
	allDone chan struct{}
	// only, when set, limits the count to these namespaces.
	only map[string]bool
}

func newReadyTracker(want int) *readyTracker {
	return &readyTracker{ready: map[string]time.Duration{}, want: want, allDone: make(chan struct{})}
}

// newReadyTrackerFor counts only the runners of ts.
func newReadyTrackerFor(ts []tenant.Tenant) *readyTracker {
	t := newReadyTracker(len(ts))
	t.only = map[string]bool{}
	for _, tn := range ts {
		t.only[tn.Namespace()] = true
	}
	return t
}

// begin sets the time the creates started; readiness seen earlier counts from it.
func (t *readyTracker) begin() {
	t.mu.Lock()
	t.start = time.Now()
	t.curve = []report.Point{{X: 0, Y: 0}}
	t.mu.Unlock()
}

func (t *readyTracker) observe(obj any) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok || !isReady(u) {
		return
	}
	key := u.GetNamespace() + "/" + u.GetName()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.start.IsZero() || (t.only != nil && !t.only[u.GetNamespace()]) {
		return
	}
	if _, seen := t.ready[key]; seen {
		return
	}
	at := time.Since(t.start)
	t.ready[key] = at
	t.curve = append(t.curve, report.Point{X: at.Seconds(), Y: float64(len(t.ready))})
	if len(t.ready) == t.want {
		close(t.allDone)
	}
}

func (t *readyTracker) result() report.FirstSync {
	t.mu.Lock()
	defer t.mu.Unlock()
	fs := report.FirstSync{N: t.want, Ready: len(t.ready), Curve: append([]report.Point(nil), t.curve...)}
	if len(t.curve) > 0 {
		fs.Seconds = t.curve[len(t.curve)-1].X
	}
	if fs.Ready < fs.N {
		fs.Seconds = time.Since(t.start).Seconds()
	}
	return fs
}

// isReady: a Ready=True condition for the current generation.
func isReady(u *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] != "Ready" || m["status"] != string(metav1.ConditionTrue) {
			continue
		}
		if og, ok := m["observedGeneration"].(int64); ok && og != u.GetGeneration() {
			return false
		}
		return true
	}
	return false
}

// watchRunners starts an informer on a runner kind in every namespace feeding t.
func watchRunners(ctx context.Context, cfg *rest.Config, gvr schema.GroupVersionResource, t *readyTracker) error {
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("dynamic client: %w", err)
	}
	f := dynamicinformer.NewDynamicSharedInformerFactory(dc, 0)
	inf := f.ForResource(gvr).Informer()
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    t.observe,
		UpdateFunc: func(_, obj any) { t.observe(obj) },
	}); err != nil {
		return fmt.Errorf("watching %s: %w", gvr.Resource, err)
	}
	f.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		return fmt.Errorf("syncing the %s informer: %w", gvr.Resource, ctx.Err())
	}
	return nil
}

// changeWaiter delivers the moment an object reaches an expected state: the Deployment of
// a namespace running an image, or its ConfigMap carrying a revision.
type changeWaiter struct {
	mu      sync.Mutex
	waiting map[string]waiting // namespace → what is awaited
}

type waiting struct {
	want string
	seen chan time.Time
}

func newChangeWaiter() *changeWaiter { return &changeWaiter{waiting: map[string]waiting{}} }

// expect registers what namespace should reach; the channel yields when it does.
func (w *changeWaiter) expect(namespace, want string) <-chan time.Time {
	ch := make(chan time.Time, 1)
	w.mu.Lock()
	w.waiting[namespace] = waiting{want: want, seen: ch}
	w.mu.Unlock()
	return ch
}

func (w *changeWaiter) cancel(namespace string) {
	w.mu.Lock()
	delete(w.waiting, namespace)
	w.mu.Unlock()
}

func (w *changeWaiter) observe(namespace, value string) {
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	if wt, ok := w.waiting[namespace]; ok && wt.want == value {
		wt.seen <- now
		delete(w.waiting, namespace)
	}
}

// watchObjects starts informers on the tenants' Deployments and ConfigMaps (by the label the
// programs set) feeding the image and revision waiters. They ride out an apiserver outage
// through apiserveroutage, as the watcher's do: with client-go's reflector backoff the
// apiserver-restart fault measured this driver's own informers coming back (up to 30 s late)
// as much as the controller.
func watchObjects(ctx context.Context, cfg *rest.Config, images, revisions *changeWaiter) error {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("clientset: %w", err)
	}
	outage, err := apiserveroutage.New(cfg)
	if err != nil {
		return err
	}
	selector := "app.kubernetes.io/name=" + tenant.Name
	informer := func(obj runtime.Object, list func(context.Context, metav1.ListOptions) (runtime.Object, error), watchFn func(context.Context, metav1.ListOptions) (watch.Interface, error)) cache.SharedIndexInformer {
		lw := &cache.ListWatch{
			ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
				o.LabelSelector = selector
				return list(ctx, o)
			},
			WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
				o.LabelSelector = selector
				return watchFn(ctx, o)
			},
		}
		return cache.NewSharedIndexInformer(outage.ListerWatcher(lw), obj, 0, cache.Indexers{})
	}
	deployments := informer(&appsv1.Deployment{},
		func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return cs.AppsV1().Deployments(metav1.NamespaceAll).List(ctx, o)
		}, cs.AppsV1().Deployments(metav1.NamespaceAll).Watch)
	configMaps := informer(&corev1.ConfigMap{},
		func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return cs.CoreV1().ConfigMaps(metav1.NamespaceAll).List(ctx, o)
		}, cs.CoreV1().ConfigMaps(metav1.NamespaceAll).Watch)
	onDeployment := func(obj any) {
		if d, ok := obj.(*appsv1.Deployment); ok && strings.HasPrefix(d.Namespace, "lt-") {
			for _, c := range d.Spec.Template.Spec.Containers {
				images.observe(d.Namespace, c.Image)
			}
		}
	}
	onConfigMap := func(obj any) {
		if cm, ok := obj.(*corev1.ConfigMap); ok && cm.Name == tenant.ConfigMapName {
			revisions.observe(cm.Namespace, cm.Data[tenant.RevisionKey])
		}
	}
	for inf, fn := range map[cache.SharedIndexInformer]func(any){deployments: onDeployment, configMaps: onConfigMap} {
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: fn, UpdateFunc: func(_, o any) { fn(o) }}); err != nil {
			return fmt.Errorf("watching objects: %w", err)
		}
		go inf.RunWithContext(ctx)
	}
	if !cache.WaitForCacheSync(ctx.Done(), deployments.HasSynced, configMaps.HasSynced) {
		return fmt.Errorf("syncing object informers: %w", ctx.Err())
	}
	return nil
}
