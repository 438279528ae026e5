package compiler_test

import (
	"context"
	"net"
	"testing"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/kcl-lang/flux-kcl-controller/internal/kclpackage"
	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
	"github.com/kcl-lang/flux-kcl-controller/services/compiler"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
)

// worker is a compiler served on a loopback port, with the artifact server it reads.
type worker struct {
	artifacts *artifactserver.Server
	registry  *prometheus.Registry
	client    *workerclient.Client
	addr      string
}

// startWorker serves a real compiler (real artifact fetcher on a temp cache)
// through real gRPC on loopback, and dials it with the applier's client.
func startWorker(tb testing.TB, edit func(*compiler.Config)) *worker {
	tb.Helper()
	cfg := compiler.DefaultConfig()
	cfg.MetricsAddr, cfg.HealthAddr, cfg.GRPCAddr = "", "", ""
	cfg.ArtifactCacheDir = tb.TempDir()
	cfg.Packages.CacheDir = tb.TempDir()
	cfg.PackagePolicy = loopbackAllowance()
	if edit != nil {
		edit(&cfg)
	}
	registry := prometheus.NewRegistry()
	svc, err := compiler.New(cfg, compiler.Deps{Registerer: registry})
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
			tb.Errorf("compiler stopped with %v", err)
		}
	})

	clientCfg := workerclient.DefaultConfig()
	clientCfg.CompilerAddr = lis.Addr().String()
	clientCfg.ResolverAddr = lis.Addr().String() // unused here
	client, err := workerclient.Dial(clientCfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = client.Close() })
	return &worker{artifacts: artifactserver.StartT(tb), registry: registry, client: client, addr: lis.Addr().String()}
}

// loopbackAllowance is the test-only package policy: the test registries and
// Git servers listen on 127.0.0.1, which the default policy refuses.
func loopbackAllowance() kclpackage.Policy {
	return kclpackage.Policy{AllowedHosts: []string{"*"}, AllowedNetworks: []string{"127.0.0.1/32"}}
}

// publish serves a program as a GitRepository artifact.
func (w *worker) publish(tb testing.TB, name string, files map[string]string) *meta.Artifact {
	tb.Helper()
	a, err := w.artifacts.PublishFiles(artifactserver.ArtifactPath("GitRepository", "default", name, ""), files, "")
	if err != nil {
		tb.Fatal(err)
	}
	return a
}

func ref(a *meta.Artifact) workerclient.Artifact {
	return workerclient.Artifact{URL: a.URL, Revision: a.Revision, Digest: a.Digest}
}

// counter reads a counter of the worker's registry (0 when absent).
func (w *worker) counter(tb testing.TB, name, label, value string) float64 {
	tb.Helper()
	families, err := w.registry.Gather()
	if err != nil {
		tb.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label && l.GetValue() == value {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

// deploymentProgram renders two objects; its top-level variables are hidden
// (_-prefixed) so the output is the list alone, a ---separated stream.
const deploymentProgram = `
_name = option("name") or "app"
_replicas = option("replicas") or 1

[
    {
        apiVersion = "v1"
        kind = "ConfigMap"
        metadata = {name = _name, namespace = "default"}
        data = {n = "1"}
    }
    {
        apiVersion = "apps/v1"
        kind = "Deployment"
        metadata = {name = _name, namespace = "default"}
        spec = {
            replicas = _replicas
            selector.matchLabels.app = _name
            template.metadata.labels.app = _name
            template.spec.containers = [{name = "app", image = "nginx:1.25"}]
        }
    }
]
`
