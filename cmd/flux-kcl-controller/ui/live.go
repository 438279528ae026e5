package ui

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/runevents"
)

// Timing of the live stream.
const (
	// coalesce gathers the changes of a burst into one message: a page re-reads once
	// per burst, and still within a second of the first change.
	coalesce = 150 * time.Millisecond
	// heartbeat keeps proxies from closing an idle stream.
	heartbeat = 20 * time.Second
)

// live is a server-sent event stream that says "change" whenever what the page shows may
// have changed: any KCLRun for the overview and the list, or one KCLRun and its events
// (namespace and name given). The page then re-reads its content as the user; the stream
// itself carries no data.
func (s *Server) live(w http.ResponseWriter, r *http.Request, sess *session) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming is not supported", http.StatusInternalServerError)
		return
	}
	ctx := r.Context()
	if err := sess.waitReady(ctx); err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	var only *types.NamespacedName
	if ns, name := r.URL.Query().Get("namespace"), r.URL.Query().Get("name"); ns != "" && name != "" {
		only = &types.NamespacedName{Namespace: ns, Name: name}
	}
	changes, unsubscribe := sess.store.subscribe()
	defer unsubscribe()
	var events <-chan watch.Event
	if only != nil {
		if ev, stop := watchEvents(ctx, sess.client, *only); ev != nil {
			defer stop()
			events = ev
		}
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	fmt.Fprint(w, ": live\n\n")
	flusher.Flush()
	beat := time.NewTicker(heartbeat)
	defer beat.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-beat.C:
			fmt.Fprint(w, ": beat\n\n")
			flusher.Flush()
			continue
		case key := <-changes:
			if only != nil && key != *only {
				continue
			}
		case _, open := <-events:
			if !open {
				events = nil
				continue
			}
		}
		// Let the rest of a burst arrive, then say it once.
		select {
		case <-ctx.Done():
			return
		case <-time.After(coalesce):
		}
		fmt.Fprint(w, "event: change\ndata: {}\n\n")
		flusher.Flush()
	}
}

// watchEvents watches the KCLRun's events as the user from now on (a list first, so that
// the events already there are not news); nil when the user may not read them.
func watchEvents(ctx context.Context, c client.WithWatch, key types.NamespacedName) (<-chan watch.Event, func()) {
	var list corev1.EventList
	sel := client.MatchingFieldsSelector{Selector: runevents.Selector(key.Name)}
	if err := c.List(ctx, &list, client.InNamespace(key.Namespace), sel, client.Limit(1)); err != nil {
		return nil, nil
	}
	w, err := c.Watch(ctx, &corev1.EventList{}, client.InNamespace(key.Namespace), sel,
		&client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: list.ResourceVersion}})
	if err != nil {
		return nil, nil
	}
	return w.ResultChan(), w.Stop
}

func urlEscape(s string) string { return url.QueryEscape(s) }
