package applier

import (
	"context"
	"sync"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/services/applier/drift"
)

// remoteDrift runs one drift watcher per remote cluster, as the local one
// runs for this cluster: an edit or deletion there requests a reconcile of
// the owner at once. A cluster is known by the object holding its kubeconfig;
// a new revision of that object replaces the watcher (new credentials or
// address).
type remoteDrift struct {
	opts drift.Options
	log  logr.Logger

	mu       sync.Mutex
	ctx      context.Context // set by run; nil before and after
	watchers map[string]*remoteWatcher
}

type remoteWatcher struct {
	version string
	watcher *drift.Watcher
	stop    context.CancelFunc
}

func newRemoteDrift(opts drift.Options, log logr.Logger) *remoteDrift {
	return &remoteDrift{opts: opts, log: log, watchers: map[string]*remoteWatcher{}}
}

// run lets watch start watchers until ctx ends, then stops them all.
func (r *remoteDrift) run(ctx context.Context) {
	r.mu.Lock()
	r.ctx = ctx
	r.mu.Unlock()
	<-ctx.Done()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ctx = nil
	for source, w := range r.watchers {
		w.stop()
		delete(r.watchers, source)
	}
}

// watch makes the remote cluster's watcher follow the given resources.
func (r *remoteDrift) watch(remote *remoteCluster, resources ...schema.GroupVersionResource) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ctx == nil {
		return
	}
	w := r.watchers[remote.source]
	if w == nil || w.version != remote.version {
		if w != nil {
			w.stop()
		}
		dw, err := drift.New(remote.config, r.opts)
		if err != nil {
			r.log.Error(err, "watching a remote cluster for drift", "kubeconfig", remote.source)
			delete(r.watchers, remote.source)
			return
		}
		ctx, stop := context.WithCancel(r.ctx)
		go dw.Run(ctx)
		w = &remoteWatcher{version: remote.version, watcher: dw, stop: stop}
		r.watchers[remote.source] = w
	}
	w.watcher.Watch(resources...)
}

// watchDrift shows the drift watcher of the KCLRun's cluster the kinds of its inventory
// (not with spec.driftDetection.mode disabled).
func (s *Service) watchDrift(cl *cluster, obj *v1alpha1.KCLRun, inv *v1alpha1.ResourceInventory) {
	switch {
	case s.drift == nil || !watchesDrift(obj):
	case cl.local:
		s.drift.Watch(cl.resourcesOf(inv)...)
	case cl.remote != nil:
		s.remoteDrift.watch(cl.remote, cl.resourcesOf(inv)...)
	}
}
