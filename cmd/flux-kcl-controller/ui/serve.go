package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/kcl-lang/flux-kcl-controller/internal/probes"
)

// Serve listens on addr and serves the view until ctx ends, after printing its URL on out.
// With AuthKubeconfig it refuses an address that is not loopback.
func Serve(ctx context.Context, opts Options, addr string, out io.Writer) error {
	if err := CheckAddress(opts.Auth, addr); err != nil {
		return err
	}
	srv, err := New(ctx, opts)
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", addr, err)
	}
	hs := &http.Server{
		Handler:           srv.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		// No WriteTimeout: the live stream stays open as long as a page does.
		IdleTimeout: 2 * time.Minute,
	}
	who := "as you (your kubeconfig)"
	switch opts.Auth {
	case AuthProxy:
		who = "as the user the proxy names in " + opts.UserHeader
	case AuthToken:
		who = "with each user's bearer token"
	}
	fmt.Fprintf(out, "► serving the web view of %s %s on http://%s/ (Ctrl-C stops)\n", clusterName(opts.Cluster), who, l.Addr())
	done := make(chan error, 2)
	go func() { done <- hs.Serve(l) }()
	if opts.HealthAddress != "" {
		// Ready once the view listens: pages need no warm-up (a user's watch starts with
		// their first request).
		health := probes.Health(func(*http.Request) error { return nil })
		go func() {
			if err := probes.Serve(ctx, opts.HealthAddress, health); err != nil {
				done <- err
			}
		}()
	}
	select {
	case err := <-done:
		return fmt.Errorf("serving the web view: %w", err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdown); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

func clusterName(name string) string {
	if name == "" {
		return "the cluster"
	}
	return name
}
