package workerclient_test

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

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
	artifact := publish(t, map[string]string{"deploy/main.k": `_image = "nginx:1.0" # {"$imagepolicy": "web"}
[{apiVersion = "v1", kind = "ConfigMap", metadata.name = "app", data.image = _image}]
`})
	ctx := context.Background()

	// The applier's pipeline: resolve markers, then compile with the substitutions.
	lookup := func(_ context.Context, namespace, name string) (workerclient.ImagePolicy, error) {
		return workerclient.ImagePolicy{Found: true, LatestRef: &workerclient.LatestRef{Name: "nginx", Tag: "1.25.3"}}, nil
	}
	resolved, err := client.ResolveWithLookup(ctx, workerclient.ResolveInput{Artifact: artifact, Path: "deploy", Namespace: "default"}, lookup)
	if err != nil {
		t.Fatal(err)
	}
	if len(resolved.Resolutions) != 1 || len(resolved.Holds) != 0 {
		t.Fatalf("resolved %+v, want one resolution", resolved)
	}
	got, err := client.Compile(ctx, workerclient.CompileInput{Artifact: artifact, Path: "deploy", Substitutions: resolved.Substitutions()})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Objects) != 1 || got.Objects[0].GetKind() != "ConfigMap" {
		t.Fatalf("got %v, want one ConfigMap", got.Objects)
	}
	if image, _, _ := unstructured.NestedString(got.Objects[0].Object, "data", "image"); image != "nginx:1.25.3" {
		t.Fatalf("image %q, want nginx:1.25.3 from the policy", image)
	}
}
