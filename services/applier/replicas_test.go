package applier_test

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"testing"

	. "github.com/onsi/gomega"
	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
	"github.com/kcl-lang/flux-kcl-controller/services/compiler"
	"github.com/kcl-lang/flux-kcl-controller/services/resolver"
)

// TestTwoAppliersTwoCompilers runs the split shape on one NATS: two more appliers that
// reach two compiler replicas (and a resolver) over loopback gRPC, round-robin. 50 KCLRuns
// converge, both compilers take work, nothing overlaps, every request ends acked.
func TestTwoAppliersTwoCompilers(t *testing.T) {
	const runs = 50
	g := NewWithT(t)
	ctx := context.Background()
	var served [2]atomic.Int64
	var addrs []string
	for i := range served {
		addrs = append(addrs, serveCompiler(t, &served[i]))
	}
	cfg := workerclient.DefaultConfig()
	cfg.CompilerAddr = strings.Join(addrs, ",")
	cfg.ResolverAddr = serveResolver(t)
	split, err := workerclient.Dial(cfg)
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = split.Close() })
	for _, name := range []string{"applier-split-a", "applier-split-b"} {
		stop, err := startApplierWith(ctx, name, "", nil, split)
		g.Expect(err).NotTo(HaveOccurred())
		t.Cleanup(stop)
	}

	ns := newNamespace(t)
	revisions := make([]string, runs)
	for i := range runs {
		a := publishProgram(t, ns, fmt.Sprintf("src-%d", i), configMap(fmt.Sprintf("cm-%d", i), "v1"))
		revisions[i] = a.Revision
		createKCLRun(t, ns, fmt.Sprintf("run-%d", i), fmt.Sprintf("src-%d", i))
		request(t, ns, fmt.Sprintf("run-%d", i), reconcilerequest.ReasonSourceChanged)
	}
	for i := range runs {
		readyAt(t, ns, fmt.Sprintf("run-%d", i), revisions[i])
	}
	assertNoOverlap(t)
	expectAllAcked(t, ns)
	// The package's own applier competes in process, so only ask that both replicas served.
	g.Expect(served[0].Load()).To(BeNumerically(">", 0), "compiler replica 0 took no call")
	g.Expect(served[1].Load()).To(BeNumerically(">", 0), "compiler replica 1 took no call")
	t.Logf("compile calls per replica: %d and %d", served[0].Load(), served[1].Load())
}

// serveCompiler runs a compiler replica on a loopback port, counting the calls it serves.
func serveCompiler(t *testing.T, served *atomic.Int64) string {
	t.Helper()
	cfg := compiler.DefaultConfig()
	cfg.GRPCAddr, cfg.MetricsAddr, cfg.HealthAddr = "", "", ""
	cfg.ArtifactCacheDir = t.TempDir()
	cfg.ArtifactMaxBytes = maxArtifactBytes
	svc, err := compiler.New(cfg, compiler.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	count := grpc.UnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		if strings.HasSuffix(info.FullMethod, "/Compile") {
			served.Add(1)
		}
		return h(ctx, req)
	})
	srv := grpc.NewServer(append(svc.ServerOptions(), count)...)
	svc.Register(srv)
	healthpb.RegisterHealthServer(srv, svc.Health())
	return serve(t, srv)
}

func serveResolver(t *testing.T) string {
	t.Helper()
	cfg := resolver.DefaultConfig()
	cfg.ArtifactCacheDir = t.TempDir()
	svc, err := resolver.New(cfg, resolver.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(svc.ServerOptions()...)
	svc.Register(srv)
	healthpb.RegisterHealthServer(srv, svc.Health())
	return serve(t, srv)
}

func serve(t *testing.T, srv *grpc.Server) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	return lis.Addr().String()
}
