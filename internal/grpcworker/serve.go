// Package grpcworker serves a stateless gRPC worker (the compiler or the resolver): gRPC with
// the standard health service, Prometheus metrics and the HTTP health probes, until the
// context ends, when in-flight calls get a bounded time to finish.
package grpcworker

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sync/errgroup"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/kcl-lang/flux-kcl-controller/internal/metricsendpoint"
	"github.com/kcl-lang/flux-kcl-controller/internal/probes"
)

// Worker is what a worker service gives to be served.
type Worker struct {
	// Register adds the worker's gRPC services to a server.
	Register func(grpc.ServiceRegistrar)
	// ServerOptions configure the gRPC server.
	ServerOptions []grpc.ServerOption
	// Health is the worker's gRPC health server; it is shut down first on stop.
	Health *health.Server
	// Gatherer serves /metrics on MetricsAddr; nil serves none.
	Gatherer prometheus.Gatherer
	// Endpoints are where it listens; Serve uses all but GRPCAddr (its listener is given).
	Endpoints
}

// gracePeriod bounds how long in-flight calls may finish after the context ends.
const gracePeriod = 10 * time.Second

// Serve serves w on lis (nil serves no gRPC) plus its HTTP endpoints, until ctx ends.
func Serve(ctx context.Context, lis net.Listener, w Worker) error {
	g, ctx := errgroup.WithContext(ctx)
	if lis != nil {
		opts := w.ServerOptions
		if w.TLS.Enabled() {
			creds, err := serverCredentials(w.TLS)
			if err != nil {
				_ = lis.Close()
				return err
			}
			opts = append(opts[:len(opts):len(opts)], grpc.Creds(creds))
		}
		srv := grpc.NewServer(opts...)
		w.Register(srv)
		healthpb.RegisterHealthServer(srv, w.Health)
		g.Go(func() error {
			if err := srv.Serve(lis); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
				return fmt.Errorf("serving gRPC: %w", err)
			}
			return nil
		})
		g.Go(func() error {
			<-ctx.Done()
			w.Health.Shutdown()
			stopGracefully(srv, gracePeriod)
			return nil
		})
	}
	if w.Gatherer != nil {
		g.Go(func() error {
			return probes.Serve(ctx, w.MetricsAddr, metricsendpoint.Handler(w.Gatherer, w.EnablePprof))
		})
	}
	g.Go(func() error {
		return probes.Serve(ctx, w.HealthAddr, probes.Health(func(r *http.Request) error { return w.ready(r.Context(), lis != nil) }))
	})
	g.Go(func() error { <-ctx.Done(); return nil })
	return g.Wait()
}

// ready reports whether the worker can take calls: it serves gRPC and its
// health service says SERVING (it stops saying so as shutdown begins).
func (w Worker) ready(ctx context.Context, serving bool) error {
	if !serving || w.Health == nil {
		return errors.New("not serving gRPC")
	}
	resp, err := w.Health.Check(ctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		return fmt.Errorf("gRPC health: %w", err)
	}
	if resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		return fmt.Errorf("gRPC health: %s", resp.GetStatus())
	}
	return nil
}

// stopGracefully lets in-flight calls finish, within a bound.
func stopGracefully(srv *grpc.Server, within time.Duration) {
	done := make(chan struct{})
	go func() { srv.GracefulStop(); close(done) }()
	select {
	case <-done:
	case <-time.After(within):
		srv.Stop()
	}
}
