package localbuild

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const program = `apiVersion = "v1"
kind = "ConfigMap"
metadata = {name = "images"}
data = {
    web = "nginx:1.7.7"  # {"$imagepolicy": "flux-system:nginx"}
    pinned = "nginx:1.7.7"
}
`

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestBuildFollowsThePolicyFile(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "main.k", program)
	policies := write(t, t.TempDir(), "policies.yaml", `apiVersion: image.toolkit.fluxcd.io/v1
kind: ImagePolicy
metadata: {name: nginx, namespace: flux-system}
status:
  latestRef: {name: nginx, tag: 1.7.9}
`)
	var out, log bytes.Buffer
	if err := Build(context.Background(), Options{Dir: dir, PolicyFiles: []string{policies}}, &out, &log); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), `apiVersion: v1
data:
  pinned: nginx:1.7.7
  web: nginx:1.7.9
kind: ConfigMap
metadata:
  name: images
`; got != want {
		t.Fatalf("output\n%s\nwant\n%s", got, want)
	}
	if !strings.Contains(log.String(), "main.k:5: nginx:1.7.7 → nginx:1.7.9 (policy flux-system/nginx)") {
		t.Errorf("log: %s", log.String())
	}
	// The program on disk is untouched.
	if src, _ := os.ReadFile(filepath.Join(dir, "main.k")); string(src) != program {
		t.Errorf("program changed on disk: %s", src)
	}
}

func TestBuildHoldsOnAForeignRepository(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "main.k", program)
	policies := write(t, t.TempDir(), "policies.yaml", `kind: ImagePolicy
metadata: {name: nginx, namespace: flux-system}
status:
  latestRef: {name: ghcr.io/elsewhere/nginx, tag: "2.0"}
`)
	var out, log bytes.Buffer
	err := Build(context.Background(), Options{Dir: dir, PolicyFiles: []string{policies}}, &out, &log)
	var hold *HoldError
	if !errors.As(err, &hold) || !strings.Contains(err.Error(), "ghcr.io/elsewhere/nginx") || out.Len() != 0 {
		t.Fatalf("want a hold naming the repository and no output, got %v / %q", err, out.String())
	}
}

func TestBuildHoldsOnAMissingPolicy(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "main.k", program)
	var out, log bytes.Buffer
	err := Build(context.Background(), Options{Dir: dir}, &out, &log)
	var hold *HoldError
	if !errors.As(err, &hold) || hold.Holds[0].Reason != "PolicyNotFound" {
		t.Fatalf("want a not-found hold, got %v", err)
	}
}
