package resolver_test

import (
	"context"
	"net"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
	"github.com/kcl-lang/flux-kcl-controller/services/resolver"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
)

// worker is a resolver served on a loopback port, with the artifact server it reads.
type worker struct {
	artifacts *artifactserver.Server
	client    *workerclient.Client
}

func startWorker(tb testing.TB) *worker {
	tb.Helper()
	cfg := resolver.DefaultConfig()
	cfg.MetricsAddr, cfg.HealthAddr, cfg.GRPCAddr = "", "", ""
	cfg.ArtifactCacheDir = tb.TempDir()
	svc, err := resolver.New(cfg, resolver.Deps{Registerer: prometheus.NewRegistry()})
	if err != nil {
		tb.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- svc.Serve(ctx, lis) }()
	tb.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			tb.Errorf("resolver stopped with %v", err)
		}
	})
	clientCfg := workerclient.DefaultConfig()
	clientCfg.CompilerAddr, clientCfg.ResolverAddr = lis.Addr().String(), lis.Addr().String()
	client, err := workerclient.Dial(clientCfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = client.Close() })
	return &worker{artifacts: artifactserver.StartT(tb), client: client}
}

func (w *worker) publish(tb testing.TB, name string, files map[string]string) workerclient.Artifact {
	tb.Helper()
	a, err := w.artifacts.PublishFiles(artifactserver.ArtifactPath("GitRepository", "apps", name, ""), files, "")
	if err != nil {
		tb.Fatal(err)
	}
	return workerclient.Artifact{URL: a.URL, Revision: a.Revision, Digest: a.Digest}
}

// policies is a PolicyLookup over a fixed table, standing in for the applier's cache.
type policies map[string]*workerclient.LatestRef

func (p policies) lookup(_ context.Context, namespace, name string) (workerclient.ImagePolicy, error) {
	ref, found := p[namespace+"/"+name]
	return workerclient.ImagePolicy{Namespace: namespace, Name: name, Found: found, LatestRef: ref}, nil
}
