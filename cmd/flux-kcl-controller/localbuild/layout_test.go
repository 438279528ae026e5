package localbuild

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// The base/overlay layout of issue 30: dev/kcl.yaml lists ../base/base.k. The
// expected output is kcl run 0.12.1's, as the applier receives it.
func layoutArtifact(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range map[string]string{
		"base/base.k": "schema ConfigMap:\n    apiVersion: str = \"v1\"\n    kind: str = \"ConfigMap\"\n    metadata: {str:any}\n    data: {str:str} = {}\n\n" +
			"_cm: ConfigMap {\n    metadata.name = \"layout\"\n    data.from = \"base\"\n}\nitems = [_cm]\n",
		"dev/main.k":   "_cm: ConfigMap {\n    metadata.labels.env = \"dev\"\n    metadata.labels.drop = \"me\"\n    data.env = \"dev\"\n}\n",
		"dev/kcl.yaml": "kcl_cli_configs:\n  files:\n    - ../base/base.k\n    - main.k\n",
	} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, dir, name, src)
	}
	return dir
}

// build DIR --path ./dev: DIR is the artifact, the sibling folder is read, and
// -O deletes a key set with a dotted key; the -E path runs the engine with the
// same root.
func TestBuildOfASiblingLayoutWithPath(t *testing.T) {
	dir := layoutArtifact(t)
	want := `apiVersion: v1
data:
  env: dev
  from: base
kind: ConfigMap
metadata:
  labels:
    env: dev
  name: layout
`
	cfg := &v1alpha1.ConfigSpec{Settings: []string{"kcl.yaml"}, Overrides: []string{"_cm.metadata.labels.drop-"}}
	var out, log bytes.Buffer
	if err := Build(context.Background(), Options{Dir: dir, Path: "./dev", Config: cfg}, &out, &log); err != nil {
		t.Fatal(err)
	}
	if out.String() != want {
		t.Fatalf("output\n%s\nwant\n%s", out.String(), want)
	}
	// With -E the engine runs directly: the same root, the engine's YAML.
	ext := t.TempDir()
	write(t, ext, "lib.k", "x = 1\n")
	out.Reset()
	if err := Build(context.Background(), Options{Dir: dir, Path: "dev", Config: cfg, External: map[string]string{"lib": ext}}, &out, &log); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "from: base") || strings.Contains(out.String(), "drop") {
		t.Fatalf("-E output:\n%s", out.String())
	}
}

// Without --path, DIR is the artifact and the program folder at once: the
// sibling folder lies outside it and is refused, as the controller refuses it.
func TestBuildOfASiblingLayoutWithoutPathIsRefused(t *testing.T) {
	dir := layoutArtifact(t)
	var out, log bytes.Buffer
	err := Build(context.Background(), Options{Dir: filepath.Join(dir, "dev"), Config: &v1alpha1.ConfigSpec{Settings: []string{"kcl.yaml"}}}, &out, &log)
	var ce *CompileError
	if !errors.As(err, &ce) || !strings.Contains(ce.Message, "PathRefused") || !strings.Contains(ce.Message, "../base/base.k") {
		t.Fatalf("got %v, want a PathRefused compile error naming ../base/base.k", err)
	}
}

// A marker in the sibling entry file is followed as one in spec.path is: the
// resolver scans the entries the settings list, the compiler edits the file.
func TestBuildFollowsAMarkerInASiblingEntryFile(t *testing.T) {
	dir := layoutArtifact(t)
	write(t, dir, "base/base.k", "schema ConfigMap:\n    apiVersion: str = \"v1\"\n    kind: str = \"ConfigMap\"\n    metadata: {str:any}\n    data: {str:str} = {}\n\n"+
		"_cm: ConfigMap {\n    metadata.name = \"layout\"\n    data.image = \"nginx:1.7.7\"  # {\"$imagepolicy\": \"flux-system:nginx\"}\n}\nitems = [_cm]\n")
	policies := write(t, t.TempDir(), "policies.yaml", `apiVersion: image.toolkit.fluxcd.io/v1
kind: ImagePolicy
metadata: {name: nginx, namespace: flux-system}
status:
  latestRef: {name: nginx, tag: 1.7.9}
`)
	var out, log bytes.Buffer
	cfg := &v1alpha1.ConfigSpec{Settings: []string{"kcl.yaml"}}
	if err := Build(context.Background(), Options{Dir: dir, Path: "dev", Config: cfg, PolicyFiles: []string{policies}}, &out, &log); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "image: nginx:1.7.9") {
		t.Fatalf("output\n%s\nwant the image nginx:1.7.9", out.String())
	}
	if !strings.Contains(log.String(), "base/base.k:9: nginx:1.7.7 → nginx:1.7.9 (policy flux-system/nginx)") {
		t.Errorf("log: %s", log.String())
	}
}
