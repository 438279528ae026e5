// Package probes serves the HTTP endpoints that kubelet and Prometheus scrape: /healthz,
// /readyz and (with internal/metricsendpoint) /metrics, the same way for every service
// and for the all-in-one process.
package probes

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Health serves /healthz, 200 while the process serves, and /readyz, 200 when ready
// returns nil and 503 with its error otherwise.
func Health(ready func(*http.Request) error) http.Handler {
	mux := http.NewServeMux()
	ok := func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }
	mux.HandleFunc("/healthz", ok)
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, r *http.Request) {
		if err := ready(r); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		ok(w, r)
	})
	return mux
}

// Serve serves h on addr until ctx ends, then shuts down within five seconds. An empty
// addr, or "0" (the flags' way to turn an endpoint off), serves nothing.
func Serve(ctx context.Context, addr string, h http.Handler) error {
	if addr == "" || addr == "0" {
		return nil
	}
	srv := &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: 5 * time.Second}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		<-ctx.Done()
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdownCtx)
	}()
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serving %s: %w", addr, err)
	}
	<-stopped
	return nil
}
