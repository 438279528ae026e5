package workerclient_test

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
	"github.com/kcl-lang/flux-kcl-controller/services/compiler"
)

func TestInProcess(t *testing.T) {
	cfg := compiler.DefaultConfig()
	cfg.GRPCAddr, cfg.MetricsAddr, cfg.HealthAddr = "", "", ""
	cfg.ArtifactCacheDir = t.TempDir()
	comp, err := compiler.New(cfg, compiler.Deps{Registerer: prometheus.NewRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	client, err := workerclient.NewInProcess(comp, newResolver(t))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	artifact := publish(t, map[string]string{"main.k": program})

	resolved, err := client.Resolve(context.Background(), workerclient.ResolveInput{Artifact: artifact, Namespace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := client.Compile(context.Background(), workerclient.CompileInput{Artifact: artifact, Substitutions: resolved.Substitutions()})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Objects) != 1 || got.Objects[0].GetKind() != "ConfigMap" {
		t.Fatalf("got %v, want one ConfigMap", got.Objects)
	}
}
