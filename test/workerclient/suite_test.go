package workerclient_test

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
	"github.com/kcl-lang/flux-kcl-controller/services/compiler"
	"github.com/kcl-lang/flux-kcl-controller/services/resolver"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
)

// replica is one compiler worker on a loopback port, counting the calls it took.
type replica struct {
	addr   string
	server *grpc.Server
	calls  atomic.Int64
	// hold, when set, runs inside each call before the compiler does.
	hold atomic.Pointer[func(ctx context.Context)]
	// inflight lets the cleanup wait for held calls, so none writes into the cache
	// folder while the test removes it.
	inflight sync.WaitGroup
}

func startReplica(tb testing.TB) *replica {
	tb.Helper()
	cfg := compiler.DefaultConfig()
	cfg.ArtifactCacheDir = tb.TempDir()
	cfg.ResultCacheBytes = 0 // every call runs the engine
	svc, err := compiler.New(cfg, compiler.Deps{Registerer: prometheus.NewRegistry()})
	if err != nil {
		tb.Fatal(err)
	}
	r := &replica{}
	opts := append(svc.ServerOptions(), grpc.UnaryInterceptor(
		func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
			if info.FullMethod == "/fluxkcl.compiler.v1.Compiler/Compile" {
				r.calls.Add(1)
				r.inflight.Add(1)
				defer r.inflight.Done()
				if hold := r.hold.Load(); hold != nil {
					(*hold)(ctx)
					if err := ctx.Err(); err != nil {
						return nil, err // the caller is gone: nothing to compile for
					}
				}
			}
			return handler(ctx, req)
		}))
	r.server = grpc.NewServer(opts...)
	svc.Register(r.server)
	healthpb.RegisterHealthServer(r.server, svc.Health())
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	r.addr = lis.Addr().String()
	go func() { _ = r.server.Serve(lis) }()
	tb.Cleanup(func() {
		r.server.Stop()
		r.inflight.Wait()
	})
	return r
}

func dialReplicas(tb testing.TB, replicas ...*replica) *workerclient.Client {
	tb.Helper()
	addrs := ""
	for i, r := range replicas {
		if i > 0 {
			addrs += ","
		}
		addrs += r.addr
	}
	cfg := workerclient.DefaultConfig()
	cfg.CompilerAddr, cfg.ResolverAddr = addrs, addrs
	c, err := workerclient.Dial(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = c.Close() })
	return c
}

// untilAllServe makes calls until every replica has served one: the client
// connects to replicas in the background, and round-robin only picks ready ones.
// It counts calls, not time, and gives up after many.
func untilAllServe(tb testing.TB, client *workerclient.Client, artifact workerclient.Artifact, replicas ...*replica) {
	tb.Helper()
	for range 1000 {
		all := true
		for _, r := range replicas {
			all = all && r.calls.Load() > 0
		}
		if all {
			return
		}
		if _, err := client.Compile(context.Background(), workerclient.CompileInput{Artifact: artifact}); err != nil {
			tb.Fatal(err)
		}
	}
	tb.Fatal("some replica never served a call")
}

func publish(tb testing.TB, files map[string]string) workerclient.Artifact {
	tb.Helper()
	s := artifactserver.StartT(tb)
	a, err := s.PublishFiles(artifactserver.ArtifactPath("GitRepository", "default", "app", ""), files, "")
	if err != nil {
		tb.Fatal(err)
	}
	return ref(a)
}

func ref(a *meta.Artifact) workerclient.Artifact {
	return workerclient.Artifact{URL: a.URL, Revision: a.Revision, Digest: a.Digest}
}

func newResolver(tb testing.TB) *resolver.Service {
	tb.Helper()
	cfg := resolver.DefaultConfig()
	cfg.ArtifactCacheDir = tb.TempDir()
	r, err := resolver.New(cfg, resolver.Deps{Registerer: prometheus.NewRegistry()})
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

const program = `[{apiVersion = "v1", kind = "ConfigMap", metadata = {name = "app", namespace = "default"}, data.a = "b"}]
`
