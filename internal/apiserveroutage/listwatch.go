package apiserveroutage

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	toolscache "k8s.io/client-go/tools/cache"
)

// ListerWatcher wraps an informer's lw: a list or watch that finds the
// apiserver unavailable waits until it is back and tries again, so the
// reflector sees neither the outage nor a reason to back off. After the
// outage the watch resumes from where it stopped, or the apiserver answers
// that this version expired and the reflector lists again: the informer's
// handlers then see what changed meanwhile as updates. A failure that is
// not an outage (the first probe finds the apiserver ready) goes to the
// reflector as before.
func (g *Gate) ListerWatcher(lw toolscache.ListerWatcher) toolscache.ListerWatcher {
	return &listerWatcher{gate: g, inner: toolscache.ToListerWatcherWithContext(lw)}
}

type listerWatcher struct {
	gate  *Gate
	inner toolscache.ListerWatcherWithContext
}

func (l *listerWatcher) ListWithContext(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	return retryThroughOutage(ctx, l.gate, func() (runtime.Object, error) { return l.inner.ListWithContext(ctx, opts) })
}

func (l *listerWatcher) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return retryThroughOutage(ctx, l.gate, func() (watch.Interface, error) { return l.inner.WatchWithContext(ctx, opts) })
}

// List and Watch serve callers without a context (the reflector uses the
// context variants).
func (l *listerWatcher) List(opts metav1.ListOptions) (runtime.Object, error) {
	return l.ListWithContext(context.Background(), opts)
}

func (l *listerWatcher) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	return l.WatchWithContext(context.Background(), opts)
}

// retryThroughOutage calls do until it succeeds, fails other than by the
// apiserver being unavailable, or fails again though the Gate found the
// apiserver ready.
func retryThroughOutage[T any](ctx context.Context, g *Gate, do func() (T, error)) (T, error) {
	for {
		out, err := do()
		if !Unavailable(err) {
			return out, err
		}
		if wasDown, waitErr := g.WaitBack(ctx); waitErr != nil || !wasDown {
			return out, err
		}
	}
}
