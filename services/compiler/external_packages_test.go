package compiler_test

import (
	"context"
	"strings"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
	"github.com/kcl-lang/flux-kcl-controller/services/compiler"
)

// A settings file's package_maps (the settings' -E name=path) win over the
// kcl.mod dependency of that name: the worker never asks the registry (a
// mirror that is not there), with or without vendor mode.
func TestCompileSettingsPackageMapsWinOverKclMod(t *testing.T) {
	w := startWorker(t, func(c *compiler.Config) {
		c.Packages.Mirrors = []string{"ghcr.io/kcl-lang=127.0.0.1:1/kcl-lang"}
	})
	a := w.publish(t, "pkgmaps", map[string]string{
		"app/kcl.mod":               "[package]\nname = \"app\"\n\n[dependencies]\nk8s = \"1.29\"\n",
		"app/kcl.yaml":              "kcl_cli_configs:\n  package_maps:\n    k8s: ../libs/k8s\n",
		"libs/k8s/kcl.mod":          "[package]\nname = \"k8s\"\nversion = \"1.29\"\n",
		"libs/k8s/api/core/v1/ns.k": "schema Namespace:\n    apiVersion: \"v1\" = \"v1\"\n    kind: \"Namespace\" = \"Namespace\"\n    metadata: {str:}\n",
		"app/main.k":                "import k8s.api.core.v1\n\n[v1.Namespace {metadata.name = \"apps\"}]\n",
	})
	for _, vendor := range []bool{false, true} {
		got, err := w.client.Compile(context.Background(), workerclient.CompileInput{Artifact: ref(a), Path: "app",
			Config: workerclient.CompileConfig{Settings: []string{"kcl.yaml"}, Vendor: vendor}})
		if err != nil {
			t.Fatalf("vendor=%v: %v", vendor, err)
		}
		if len(got.Objects) != 1 || got.Objects[0].GetName() != "apps" {
			t.Fatalf("vendor=%v: got %+v", vendor, got.Objects)
		}
	}
}

// package_maps cannot reach outside the artifact.
func TestCompileSettingsPackageMapsStayInsideTheArtifact(t *testing.T) {
	w := startWorker(t, nil)
	a := w.publish(t, "pkgmapsout", map[string]string{
		"kcl.mod":  "[package]\nname = \"app\"\n\n[dependencies]\nk8s = \"1.29\"\n",
		"kcl.yaml": "kcl_cli_configs:\n  package_maps:\n    k8s: /etc\n",
		"main.k":   "a = 1\n",
	})
	_, err := w.client.Compile(context.Background(), workerclient.CompileInput{Artifact: ref(a),
		Config: workerclient.CompileConfig{Settings: []string{"kcl.yaml"}, Vendor: true}})
	if ce := compileError(t, err); ce.Kind != "DependencyError" || !strings.Contains(ce.Message, "leaves the artifact") {
		t.Fatalf("got %+v, want a DependencyError about package_maps", ce)
	}
}
