package ui

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/runstatus"
)

// row is what the overview and the list show of one KCLRun, computed once per change so
// that a page over 10,000 runs only filters and counts.
type row struct {
	Key      types.NamespacedName
	State    runstatus.State
	Revision string
	Message  string
	Images   []string
	// Rollouts are what ImageRollouts gave the run (rollout, stage, image held back).
	Rollouts []v1alpha1.KCLRunRollout
	// search is the lower-cased text the list's filter matches.
	search string
}

func rowOf(run *v1alpha1.KCLRun) *row {
	_, msg := runstatus.ReadyCondition(run.Status.Conditions)
	r := &row{
		Key:      types.NamespacedName{Namespace: run.Namespace, Name: run.Name},
		State:    runstatus.Of(run),
		Revision: runstatus.TruncateHex(run.Status.LastAppliedRevision),
		Message:  runstatus.TruncateHex(msg),
	}
	for _, img := range run.Status.Images {
		r.Images = append(r.Images, runstatus.ImageMove(img))
	}
	r.Rollouts = run.Status.ImageRollouts
	r.search = strings.ToLower(r.Key.Namespace + "/" + r.Key.Name + " " + r.Revision + " " + r.Message + " " + strings.Join(r.Images, " "))
	return r
}

// store is one user's view of the KCLRuns: filled by a watch made with the user's own
// credentials, in the namespaces the user may list, and read by every page that user opens.
// It tells its subscribers (the live pages) when something changed.
type store struct {
	mu     sync.RWMutex
	runs   map[types.NamespacedName]*v1alpha1.KCLRun
	rows   map[types.NamespacedName]*row
	sorted []*row // nil when a change made it stale
	// rollouts are the user's ImageRollouts; nil when the user may not list them (or the
	// cluster does not serve them).
	rollouts map[types.NamespacedName]*v1alpha1.ImageRollout
	// namespaces the user reads KCLRuns in; nil means every namespace.
	namespaces []string
	err        error
	ready      chan struct{}
	subs       map[chan types.NamespacedName]struct{}
	lastUsed   time.Time
	stop       context.CancelFunc
}

func newStore() *store {
	return &store{
		runs:  map[types.NamespacedName]*v1alpha1.KCLRun{},
		rows:  map[types.NamespacedName]*row{},
		ready: make(chan struct{}),
		subs:  map[chan types.NamespacedName]struct{}{},
	}
}

func (s *store) upsert(run *v1alpha1.KCLRun) {
	key := types.NamespacedName{Namespace: run.Namespace, Name: run.Name}
	r := rowOf(run)
	s.mu.Lock()
	s.runs[key], s.rows[key], s.sorted = run, r, nil
	s.mu.Unlock()
	s.notify(key)
}

func (s *store) remove(key types.NamespacedName) {
	s.mu.Lock()
	delete(s.runs, key)
	delete(s.rows, key)
	s.sorted = nil
	s.mu.Unlock()
	s.notify(key)
}

// notify wakes the subscribers without waiting: a subscriber that has not read the last
// change yet gets one wake-up for both, which is all a page needs to re-read.
func (s *store) notify(key types.NamespacedName) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for ch := range s.subs {
		select {
		case ch <- key:
		default:
		}
	}
}

func (s *store) subscribe() (chan types.NamespacedName, func()) {
	ch := make(chan types.NamespacedName, 1)
	s.mu.Lock()
	s.subs[ch] = struct{}{}
	s.mu.Unlock()
	return ch, func() {
		s.mu.Lock()
		delete(s.subs, ch)
		s.mu.Unlock()
	}
}

// all is every row, by namespace then name. The slice is shared: callers only read it.
func (s *store) all() []*row {
	s.mu.RLock()
	sorted := s.sorted
	s.mu.RUnlock()
	if sorted != nil {
		return sorted
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sorted == nil {
		s.sorted = make([]*row, 0, len(s.rows))
		for _, r := range s.rows {
			s.sorted = append(s.sorted, r)
		}
		sort.Slice(s.sorted, func(i, j int) bool {
			a, b := s.sorted[i].Key, s.sorted[j].Key
			if a.Namespace != b.Namespace {
				return a.Namespace < b.Namespace
			}
			return a.Name < b.Name
		})
	}
	return s.sorted
}

// get is the cached KCLRun; callers must not modify it.
func (s *store) get(key types.NamespacedName) *v1alpha1.KCLRun {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.runs[key]
}

// readable tells whether the user's watch covers namespace ns.
func (s *store) readable(ns string) bool {
	if s.namespaces == nil {
		return true
	}
	for _, n := range s.namespaces {
		if n == ns {
			return true
		}
	}
	return false
}

// start finds the namespaces the user may list KCLRuns in (every namespace when a
// cluster-wide list is allowed, else those of candidates that answer), then watches them
// with the user's config until ctx ends. Namespaces the user cannot read are never watched,
// so nothing of them reaches the user's pages.
func (s *store) start(ctx context.Context, cfg *rest.Config, c client.Client, candidates func(context.Context) ([]string, error)) {
	defer close(s.ready)
	namespaces, err := readableNamespaces(ctx, c, candidates)
	if err != nil {
		s.err = err
		return
	}
	s.namespaces = namespaces
	if namespaces != nil && len(namespaces) == 0 {
		return
	}
	opts := cache.Options{
		Scheme:           c.Scheme(),
		Mapper:           c.RESTMapper(),
		DefaultTransform: cache.TransformStripManagedFields(),
	}
	if namespaces != nil {
		opts.DefaultNamespaces = map[string]cache.Config{}
		for _, ns := range namespaces {
			opts.DefaultNamespaces[ns] = cache.Config{}
		}
	}
	ca, err := cache.New(cfg, opts)
	if err != nil {
		s.err = fmt.Errorf("watching KCLRuns: %w", err)
		return
	}
	inf, err := ca.GetInformer(ctx, &v1alpha1.KCLRun{})
	if err != nil {
		s.err = fmt.Errorf("watching KCLRuns: %w", err)
		return
	}
	_, err = inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { s.upsertObject(obj) },
		UpdateFunc: func(_, obj any) { s.upsertObject(obj) },
		DeleteFunc: func(obj any) {
			if d, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			if run, ok := obj.(*v1alpha1.KCLRun); ok {
				s.remove(types.NamespacedName{Namespace: run.Namespace, Name: run.Name})
			}
		},
	})
	if err != nil {
		s.err = fmt.Errorf("watching KCLRuns: %w", err)
		return
	}
	s.watchRollouts(ctx, c, ca)
	go func() { _ = ca.Start(ctx) }()
	if !ca.WaitForCacheSync(ctx) {
		s.err = errors.New("watching KCLRuns: stopped before the first list")
	}
}

func (s *store) upsertObject(obj any) {
	if run, ok := obj.(*v1alpha1.KCLRun); ok {
		s.upsert(run)
	}
}

// readableNamespaces is nil when the user may list KCLRuns cluster-wide; else the
// namespaces among the candidates (the user's own namespace list when allowed) in which a
// list as the user succeeds.
func readableNamespaces(ctx context.Context, c client.Client, candidates func(context.Context) ([]string, error)) ([]string, error) {
	err := c.List(ctx, &v1alpha1.KCLRunList{}, client.Limit(1))
	switch {
	case err == nil:
		return nil, nil
	case apimeta.IsNoMatchError(err):
		return nil, errors.New("the cluster does not serve KCLRuns (is the CRD installed?)")
	case !apierrors.IsForbidden(err):
		return nil, fmt.Errorf("listing KCLRuns: %w", err)
	}
	var names []string
	var nsList corev1.NamespaceList
	if err := c.List(ctx, &nsList); err == nil {
		for _, ns := range nsList.Items {
			names = append(names, ns.Name)
		}
	} else if names, err = candidates(ctx); err != nil {
		return nil, fmt.Errorf("finding the namespaces to look in: %w", err)
	}
	readable := []string{}
	for _, ns := range names {
		if err := c.List(ctx, &v1alpha1.KCLRunList{}, client.InNamespace(ns), client.Limit(1)); err == nil {
			readable = append(readable, ns)
		}
	}
	return readable, nil
}

// watchRollouts adds the ImageRollouts to the watch when the user may list them in the
// watched namespaces (a rollout change then reaches the pages as a KCLRun change does).
func (s *store) watchRollouts(ctx context.Context, c client.Client, ca cache.Cache) {
	probe := []client.ListOption{client.Limit(1)}
	if s.namespaces != nil {
		for _, ns := range s.namespaces {
			if err := c.List(ctx, &v1alpha1.ImageRolloutList{}, client.InNamespace(ns), client.Limit(1)); err != nil {
				return
			}
		}
	} else if err := c.List(ctx, &v1alpha1.ImageRolloutList{}, probe...); err != nil {
		return
	}
	inf, err := ca.GetInformer(ctx, &v1alpha1.ImageRollout{})
	if err != nil {
		return
	}
	s.mu.Lock()
	s.rollouts = map[types.NamespacedName]*v1alpha1.ImageRollout{}
	s.mu.Unlock()
	set := func(obj any, deleted bool) {
		if d, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		ro, ok := obj.(*v1alpha1.ImageRollout)
		if !ok {
			return
		}
		key := types.NamespacedName{Namespace: ro.Namespace, Name: ro.Name}
		s.mu.Lock()
		if deleted {
			delete(s.rollouts, key)
		} else {
			s.rollouts[key] = ro
		}
		s.mu.Unlock()
		s.notify(key)
	}
	_, _ = inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { set(obj, false) },
		UpdateFunc: func(_, obj any) { set(obj, false) },
		DeleteFunc: func(obj any) { set(obj, true) },
	})
}

// rollout is the cached ImageRollout; callers must not modify it.
func (s *store) rollout(key types.NamespacedName) *v1alpha1.ImageRollout {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.rollouts[key]
}

// allRollouts are the user's ImageRollouts by namespace and name.
func (s *store) allRollouts() []*v1alpha1.ImageRollout {
	s.mu.RLock()
	out := make([]*v1alpha1.ImageRollout, 0, len(s.rollouts))
	for _, ro := range s.rollouts {
		out = append(out, ro)
	}
	s.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Name < out[j].Name
	})
	return out
}
