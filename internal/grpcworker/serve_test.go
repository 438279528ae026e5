package grpcworker_test

import (
	"context"
	"net"
	"net/http"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/kcl-lang/flux-kcl-controller/internal/grpcworker"
)

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func readyz(addr string) int {
	resp, err := http.Get("http://" + addr + "/readyz")
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// waitFor polls f until it returns want, for at most a minute.
func waitFor(t *testing.T, want int, f func() int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for got := f(); got != want; got = f() {
		if time.Now().After(deadline) {
			t.Fatalf("got %d, want %d", got, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// /readyz is ok only while the worker serves gRPC and its health service
// says SERVING; a worker without a gRPC listener is never ready.
func TestReadyzFollowsTheGRPCHealth(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := health.NewServer()
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- grpcworker.Serve(ctx, lis, grpcworker.Worker{Register: func(grpc.ServiceRegistrar) {}, Health: hs, Endpoints: grpcworker.Endpoints{HealthAddr: addr}})
	}()
	defer func() { cancel(); <-done }()
	waitFor(t, http.StatusOK, func() int { return readyz(addr) })
	hs.SetServingStatus("", healthpb.HealthCheckResponse_NOT_SERVING)
	waitFor(t, http.StatusServiceUnavailable, func() int { return readyz(addr) })

	bare := freeAddr(t)
	ctx2, cancel2 := context.WithCancel(context.Background())
	done2 := make(chan error, 1)
	go func() {
		done2 <- grpcworker.Serve(ctx2, nil, grpcworker.Worker{Health: health.NewServer(), Endpoints: grpcworker.Endpoints{HealthAddr: bare}})
	}()
	defer func() { cancel2(); <-done2 }()
	waitFor(t, http.StatusServiceUnavailable, func() int { return readyz(bare) })
}
