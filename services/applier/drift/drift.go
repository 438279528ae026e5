// Package drift watches the objects KCLRuns applied, through metadata-only
// informers filtered by the owner label, and reports an owner as soon as one
// of its objects is edited by someone else or deleted. Metadata is enough:
// a spec edit bumps metadata.generation, every write leaves a managedFields
// entry naming its manager, and the label names the owner.
package drift

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/kcl-lang/flux-kcl-controller/internal/apiserveroutage"
)

// Options configure a Watcher.
type Options struct {
	// OwnerGroup prefixes the owner labels: <group>/name and <group>/namespace.
	OwnerGroup string
	// FieldManager is the applier's own manager; its writes are not drift.
	FieldManager string
	// Resync re-lists the watched resources; 0 disables it.
	Resync time.Duration
	Logger logr.Logger
	// Outage is the Gate of the watched apiserver (the applier's own, shared with its
	// reconciles); nil makes one for the rest.Config given to New (a remote cluster's).
	Outage *apiserveroutage.Gate
	// OnDrift receives the owner of an object that drifted, the object and
	// whether it was deleted. It must not block.
	OnDrift func(owner types.NamespacedName, resource schema.GroupVersionResource, obj *metav1.PartialObjectMetadata, deleted bool)
}

// Watcher runs one metadata informer per resource kind that any KCLRun applied.
//
// The informers have no index: nothing lists them, and client-go's informer
// factory gives each one a namespace index, a set per namespace, which with a
// namespace per tenant was a set per object (about 9 MiB for 10,000 tenants'
// 30,000 objects).
//
// Their lists and watches wait out an apiserver outage and go on as soon as it is
// ready again (internal/apiserveroutage), as the watcher's informers do: through
// client-go's reflector backoff, an edit or delete made while an outage ended was
// seen up to 30 s late.
type Watcher struct {
	opts   Options
	client metadata.Interface
	outage *apiserveroutage.Gate

	mu      sync.Mutex
	ctx     context.Context
	watched map[schema.GroupVersionResource]cache.SharedIndexInformer
	running sync.WaitGroup
}

// New prepares a Watcher; Run starts it.
func New(cfg *rest.Config, opts Options) (*Watcher, error) {
	client, err := metadata.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("building metadata client: %w", err)
	}
	outage := opts.Outage
	if outage == nil {
		if outage, err = apiserveroutage.New(cfg); err != nil {
			return nil, err
		}
	}
	return &Watcher{opts: opts, client: client, outage: outage, watched: map[schema.GroupVersionResource]cache.SharedIndexInformer{}}, nil
}

// Run keeps the informers running until ctx ends.
func (w *Watcher) Run(ctx context.Context) {
	w.mu.Lock()
	w.ctx = ctx
	for _, inf := range w.watched {
		w.start(inf)
	}
	w.mu.Unlock()
	<-ctx.Done()
	w.mu.Lock()
	w.ctx = nil // no informer starts after this
	w.mu.Unlock()
	w.running.Wait()
}

// start runs an informer until the Watcher's context ends; w.mu is held.
func (w *Watcher) start(inf cache.SharedIndexInformer) {
	ctx := w.ctx
	w.running.Add(1)
	go func() {
		defer w.running.Done()
		inf.RunWithContext(ctx)
	}()
}

// Watch adds informers for resources not watched yet. Before Run it only
// registers them.
func (w *Watcher) Watch(resources ...schema.GroupVersionResource) {
	w.mu.Lock()
	defer w.mu.Unlock()
	selector := w.opts.OwnerGroup + "/name"
	for _, gvr := range resources {
		if _, ok := w.watched[gvr]; ok {
			continue
		}
		inf := cache.NewSharedIndexInformer(w.outage.ListerWatcher(w.listWatch(gvr, selector)), &metav1.PartialObjectMetadata{}, w.opts.Resync, cache.Indexers{})
		if err := inf.SetTransform(trimManagedFields); err != nil {
			w.opts.Logger.Error(err, "trimming the cached metadata", "resource", gvr.String())
		}
		_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			UpdateFunc: func(oldObj, newObj any) { w.updated(gvr, oldObj, newObj) },
			DeleteFunc: func(obj any) { w.deleted(gvr, obj) },
		})
		if err != nil {
			w.opts.Logger.Error(err, "watching applied objects", "resource", gvr.String())
			continue
		}
		w.watched[gvr] = inf
		if w.ctx != nil {
			w.start(inf)
		}
	}
}

// listWatch lists and watches the metadata of gvr's objects carrying label, in every
// namespace (what metadatainformer's filtered informer does).
func (w *Watcher) listWatch(gvr schema.GroupVersionResource, label string) *cache.ListWatch {
	resource := w.client.Resource(gvr).Namespace(metav1.NamespaceAll)
	return &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			o.LabelSelector = label
			return resource.List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.LabelSelector = label
			return resource.Watch(ctx, o)
		},
	}
}

// HasSynced reports whether every informer has listed once.
func (w *Watcher) HasSynced() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, inf := range w.watched {
		if !inf.HasSynced() {
			return false
		}
	}
	return true
}

// Synced reports whether the informers of every given resource have listed.
func (w *Watcher) Synced(resources ...schema.GroupVersionResource) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, gvr := range resources {
		inf, ok := w.watched[gvr]
		if !ok || !inf.HasSynced() {
			return false
		}
	}
	return true
}

func (w *Watcher) updated(gvr schema.GroupVersionResource, oldObj, newObj any) {
	before, ok1 := oldObj.(*metav1.PartialObjectMetadata)
	after, ok2 := newObj.(*metav1.PartialObjectMetadata)
	if !ok1 || !ok2 || after.DeletionTimestamp != nil {
		return
	}
	if !Drifted(before, after, w.opts.FieldManager) {
		return
	}
	w.report(gvr, after, false)
}

func (w *Watcher) deleted(gvr schema.GroupVersionResource, obj any) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	if m, ok := obj.(*metav1.PartialObjectMetadata); ok {
		w.report(gvr, m, true)
	}
}

func (w *Watcher) report(gvr schema.GroupVersionResource, obj *metav1.PartialObjectMetadata, deleted bool) {
	labels := obj.GetLabels()
	name, ns := labels[w.opts.OwnerGroup+"/name"], labels[w.opts.OwnerGroup+"/namespace"]
	if name == "" || ns == "" || w.opts.OnDrift == nil {
		return
	}
	w.opts.OnDrift(types.NamespacedName{Namespace: ns, Name: name}, gvr, obj, deleted)
}

// trimManagedFields keeps of each managedFields entry what lastWriter reads
// (manager, operation, time, subresource) and drops the field sets, most of
// an applied object's metadata: with 10,000 KCLRuns the informers hold
// 30,000 objects.
func trimManagedFields(obj any) (any, error) {
	m, ok := obj.(*metav1.PartialObjectMetadata)
	if !ok {
		return obj, nil
	}
	for i := range m.ManagedFields {
		m.ManagedFields[i].FieldsV1 = nil
		m.ManagedFields[i].FieldsType = ""
	}
	return m, nil
}

// Drifted reports whether an update is someone else's change to what the
// applier owns: the generation, labels or annotations moved (or, for kinds
// without a generation, anything moved), and the newest write to the main
// resource (not a status subresource) was not the applier's.
func Drifted(before, after *metav1.PartialObjectMetadata, fieldManager string) bool {
	changed := before.Generation != after.Generation ||
		!equality.Semantic.DeepEqual(before.Labels, after.Labels) ||
		!equality.Semantic.DeepEqual(before.Annotations, after.Annotations) ||
		(after.Generation == 0 && before.ResourceVersion != after.ResourceVersion)
	if !changed {
		return false
	}
	return lastWriter(after) != fieldManager
}

// lastWriter is the manager of the most recent main-resource write.
func lastWriter(obj *metav1.PartialObjectMetadata) string {
	var last *metav1.ManagedFieldsEntry
	for i := range obj.ManagedFields {
		e := &obj.ManagedFields[i]
		if e.Subresource != "" || e.Time == nil {
			continue
		}
		if last == nil || !e.Time.Before(last.Time) {
			last = e
		}
	}
	if last == nil {
		return ""
	}
	return last.Manager
}
