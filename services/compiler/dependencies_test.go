package compiler_test

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
)

func TestCompileUsesVendoredAndLocalDependencies(t *testing.T) {
	w := startWorker(t, nil)
	a := w.publish(t, "deps", map[string]string{
		"app/kcl.mod": `[package]
name = "app"

[dependencies]
labels = "0.1.0" # vendored
common = { path = "../common" }
`,
		"app/kcl.mod.lock":                "[dependencies]\n  [dependencies.labels]\n    name = \"labels\"\n    full_name = \"labels_0.1.0\"\n    version = \"0.1.0\"\n",
		"app/vendor/labels_0.1.0/kcl.mod": "[package]\nname = \"labels\"\nversion = \"0.1.0\"\n",
		"app/vendor/labels_0.1.0/main.k":  "team = \"platform\"\n",
		"common/kcl.mod":                  "[package]\nname = \"common\"\n",
		"common/main.k":                   "namespace = \"apps\"\n",
		"app/main.k": `import labels
import common

[{apiVersion = "v1", kind = "ConfigMap", metadata = {name = "app", namespace = common.namespace, labels.team = labels.team}}]
`,
	})
	got, err := w.client.Compile(context.Background(), workerclient.CompileInput{Artifact: ref(a), Path: "app", Config: workerclient.CompileConfig{Vendor: true}})
	if err != nil {
		t.Fatal(err)
	}
	cm := got.Objects[0]
	if team, _, _ := unstructured.NestedString(cm.Object, "metadata", "labels", "team"); team != "platform" || cm.GetNamespace() != "apps" {
		t.Fatalf("got %v, want the vendored label and the local namespace", cm.Object)
	}
}

func TestCompileVendorModeNeedsVendoredDependencies(t *testing.T) {
	w := startWorker(t, nil)
	a := w.publish(t, "novendor", map[string]string{
		"kcl.mod": "[package]\nname = \"app\"\n\n[dependencies]\nk8s = \"1.31\"\n",
		"main.k":  "a = 1\n",
	})
	_, err := w.client.Compile(context.Background(), workerclient.CompileInput{Artifact: ref(a), Config: workerclient.CompileConfig{Vendor: true}})
	if ce := compileError(t, err); ce.Kind != "DependencyError" || !strings.Contains(ce.Message, "k8s is not vendored") {
		t.Fatalf("got %+v, want a DependencyError about k8s", ce)
	}
}

func TestCompileErrorInLocalDependencyHidesWorkerPaths(t *testing.T) {
	w := startWorker(t, nil)
	a := w.publish(t, "deperr", map[string]string{
		"app/kcl.mod":    "[package]\nname = \"app\"\n\n[dependencies]\ncommon = { path = \"../common\" }\n",
		"common/kcl.mod": "[package]\nname = \"common\"\n",
		"common/main.k":  "namespace = 1 +\n",
		"app/main.k":     "import common\n\n[{apiVersion = \"v1\", kind = \"Namespace\", metadata.name = common.namespace}]\n",
	})
	_, err := w.client.Compile(context.Background(), workerclient.CompileInput{Artifact: ref(a), Path: "app"})
	ce := compileError(t, err)
	if strings.HasPrefix(ce.File, "/") || strings.Contains(ce.Message, "/tmp") || ce.File != "common/main.k" {
		t.Fatalf("got %+v, want a location relative to the artifact (common/main.k)", ce)
	}
}
