package compiler_test

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
)

func TestCompileReturnsObjects(t *testing.T) {
	w := startWorker(t, nil)
	a := w.publish(t, "app", map[string]string{
		"kcl.mod":         "[package]\nname = \"app\"\n",
		"deploy/main.k":   deploymentProgram,
		"deploy/README":   "not KCL",
		"other/broken.k":  "this is not KCL",
		"other/ignored.k": "x = 1",
	})
	got, err := w.client.Compile(context.Background(), workerclient.CompileInput{
		Artifact:  ref(a),
		Path:      "./deploy",
		Config:    workerclient.CompileConfig{Arguments: []string{"name=web"}},
		Arguments: []workerclient.Argument{{Name: "replicas", Value: "3", Sensitive: true}},
		KCLRun:    "default/app",
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Objects) != 2 {
		t.Fatalf("got %d objects, want 2", len(got.Objects))
	}
	cm, deploy := got.Objects[0], got.Objects[1]
	if cm.GetKind() != "ConfigMap" || cm.GetName() != "web" {
		t.Errorf("first object is %s %s, want ConfigMap web", cm.GetKind(), cm.GetName())
	}
	if deploy.GetKind() != "Deployment" || deploy.GetAPIVersion() != "apps/v1" {
		t.Errorf("second object is %s %s, want apps/v1 Deployment", deploy.GetAPIVersion(), deploy.GetKind())
	}
	replicas, _, _ := unstructuredInt(deploy.Object, "spec", "replicas")
	if replicas != 3 {
		t.Errorf("replicas = %d, want 3 (from the referenced argument)", replicas)
	}
	if got.CacheHit || got.EngineVersion == "" || got.OutputDigest == "" {
		t.Errorf("cache hit %v, engine %q, digest %q", got.CacheHit, got.EngineVersion, got.OutputDigest)
	}
}

func TestCompileRejectsOutputThatIsNotObjects(t *testing.T) {
	w := startWorker(t, nil)
	a := w.publish(t, "plain", map[string]string{"main.k": "a = 1\nb = {c = 2}\n"})
	_, err := w.client.Compile(context.Background(), workerclient.CompileInput{Artifact: ref(a)})
	ce := compileError(t, err)
	if ce.Stage != workerclient.StageOutput || ce.Kind != "InvalidOutput" {
		t.Fatalf("got %+v, want an Output/InvalidOutput error", ce)
	}
}

func TestCompileMissingPath(t *testing.T) {
	w := startWorker(t, nil)
	a := w.publish(t, "nopath", map[string]string{"main.k": "a = 1\n"})
	_, err := w.client.Compile(context.Background(), workerclient.CompileInput{Artifact: ref(a), Path: "deploy"})
	if ce := compileError(t, err); ce.Stage != workerclient.StageArtifact || ce.Kind != "PathNotFound" {
		t.Fatalf("got %+v, want an Artifact/PathNotFound error", ce)
	}
	if _, err := w.client.Compile(context.Background(), workerclient.CompileInput{Artifact: ref(a), Path: "../etc"}); err == nil {
		t.Fatal("a path escaping the artifact was accepted")
	}
}

func unstructuredInt(obj map[string]any, fields ...string) (int64, bool, error) {
	var cur any = obj
	for _, f := range fields {
		m, ok := cur.(map[string]any)
		if !ok {
			return 0, false, nil
		}
		cur = m[f]
	}
	n, ok := cur.(int64)
	return n, ok, nil
}

func compileError(t *testing.T, err error) *workerclient.CompileError {
	t.Helper()
	ce, ok := err.(*workerclient.CompileError)
	if !ok {
		t.Fatalf("got error %v (%T), want a *workerclient.CompileError", err, err)
	}
	return ce
}

func TestCompileAppliesSubstitutions(t *testing.T) {
	w := startWorker(t, nil)
	program := `_image = "nginx:1.0" # {"$imagepolicy": "default:web"}
[{apiVersion = "v1", kind = "ConfigMap", metadata.name = "images", data.image = _image}]
`
	a := w.publish(t, "marked", map[string]string{"main.k": program})
	start := int64(strings.Index(program, `"nginx:1.0"`))
	sub := workerclient.Substitution{File: "main.k", Start: start, End: start + int64(len(`"nginx:1.0"`)), Old: `"nginx:1.0"`, New: `"nginx:1.25.3"`}

	got, err := w.client.Compile(context.Background(), workerclient.CompileInput{Artifact: ref(a), Substitutions: []workerclient.Substitution{sub}})
	if err != nil {
		t.Fatal(err)
	}
	if image, _, _ := unstructured.NestedString(got.Objects[0].Object, "data", "image"); image != "nginx:1.25.3" {
		t.Fatalf("image = %q, want the substituted nginx:1.25.3", image)
	}

	sub.Old = `"nginx:0.9"` // what a resolver would have seen in another revision
	_, err = w.client.Compile(context.Background(), workerclient.CompileInput{Artifact: ref(a), Substitutions: []workerclient.Substitution{sub}})
	if ce := compileError(t, err); ce.Stage != workerclient.StageSubstitution {
		t.Fatalf("got %+v, want a Substitution error", ce)
	}
}
