package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	corev1 "k8s.io/api/core/v1"

	kclv1 "github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/localbuild"
)

// The demo reaches its last state: what `make demo DEMO_EXIT=1` checks, on the real parts.
func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the demo starts an apiserver, source-controller and a Git server")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	if err := run(context.Background(), options{exitWhenDone: true}); err != nil {
		t.Fatal(err)
	}
}

// The demo applies what its README shows: a GitRepository polling every 30s and a
// pruning KCLRun of it, in the demo namespace.
func TestDeliveryManifests(t *testing.T) {
	objects, err := decode(strings.ReplaceAll(delivery, "${GIT_URL}", "http://127.0.0.1:1/kcl-deployment.git"))
	if err != nil {
		t.Fatal(err)
	}
	if len(objects) != 2 {
		t.Fatalf("got %d objects, want a GitRepository and a KCLRun", len(objects))
	}
	source, ok := objects[0].(*sourcev1.GitRepository)
	if !ok {
		t.Fatalf("first object is a %T", objects[0])
	}
	if source.Namespace != namespace || source.Name != name || source.Spec.Interval.Duration != 30*time.Second ||
		source.Spec.URL != "http://127.0.0.1:1/kcl-deployment.git" || source.Spec.Reference == nil || source.Spec.Reference.Branch != "main" {
		t.Errorf("GitRepository %s/%s: %+v", source.Namespace, source.Name, source.Spec)
	}
	run, ok := objects[1].(*kclv1.KCLRun)
	if !ok {
		t.Fatalf("second object is a %T", objects[1])
	}
	if run.Namespace != namespace || run.Name != name || !run.Spec.Prune ||
		run.Spec.SourceRef.Kind != sourcev1.GitRepositoryKind || run.Spec.SourceRef.Name != name {
		t.Errorf("KCLRun %s/%s: %+v", run.Namespace, run.Name, run.Spec)
	}
}

// policyYAML is the ImagePolicy demo/nginx with the latestRef the demo writes.
func policyYAML(tag string) string {
	return `apiVersion: image.toolkit.fluxcd.io/v1
kind: ImagePolicy
metadata:
  name: nginx
  namespace: demo
spec:
  imageRepositoryRef:
    name: nginx
  policy:
    semver:
      range: ">=0.0.0"
status:
  latestRef:
    name: nginx
    tag: "` + tag + `"
`
}

// build renders main.k with the ImagePolicy at tag (none when empty), as a KCLRun in the
// demo namespace would.
func build(t *testing.T, mainK, tag string) (string, error) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.k"), []byte(mainK), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := localbuild.Options{Dir: dir, Namespace: namespace}
	if tag != "" {
		policies := filepath.Join(t.TempDir(), "policies.yaml")
		if err := os.WriteFile(policies, []byte(policyYAML(tag)), 0o644); err != nil {
			t.Fatal(err)
		}
		opts.PolicyFiles = []string{policies}
	}
	var out bytes.Buffer
	err := localbuild.Build(context.Background(), opts, &out, io.Discard)
	return out.String(), err
}

// The program and the demo's commit render the states the demo waits for; an edit of the
// program that breaks them fails here rather than in a five-minute wait.
func TestProgramAndCommitRenderTheQuickStart(t *testing.T) {
	files, err := programFiles()
	if err != nil {
		t.Fatal(err)
	}
	first := files["main.k"]
	out, err := build(t, first, "")
	if err != nil {
		t.Fatalf("first commit: %v", err)
	}
	for _, want := range []string{"name: nginx-deployment\n", "image: nginx:1.7.7\n", "kind: Service\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("first commit renders no %q:\n%s", want, out)
		}
	}

	second := secondCommit.Replace(first)
	if strings.Count(second, `"nginx-deployment-1"`) != 1 || !strings.Contains(second, `# {"$imagepolicy": "demo:nginx"}`) {
		t.Fatalf("the second commit does not rename the Deployment and mark its image:\n%s", second)
	}
	for _, tag := range []string{"1.7.8", "1.7.9"} {
		out, err := build(t, second, tag)
		if err != nil {
			t.Fatalf("second commit, policy at %s: %v", tag, err)
		}
		for _, want := range []string{"name: nginx-deployment-1\n", "image: nginx:" + tag + "\n"} {
			if !strings.Contains(out, want) {
				t.Errorf("second commit, policy at %s, renders no %q:\n%s", tag, want, out)
			}
		}
	}
	// Without the policy the marker holds the KCLRun: why the demo creates it first.
	var hold *localbuild.HoldError
	if _, err := build(t, second, ""); !errors.As(err, &hold) {
		t.Fatalf("second commit without the policy: got %v, want a hold", err)
	}
}

// The rollout step applies a namespace labelled for the canary stage, a KCLRun there of the
// demo's GitRepository, and an ImageRollout of demo/nginx: canary by namespace, then the rest.
func TestRolloutManifests(t *testing.T) {
	objects, err := decode(rolloutManifests)
	if err != nil {
		t.Fatal(err)
	}
	if len(objects) != 3 {
		t.Fatalf("got %d objects, want a Namespace, a KCLRun and an ImageRollout", len(objects))
	}
	ns, ok := objects[0].(*corev1.Namespace)
	if !ok || ns.Name != canaryNamespace || ns.Labels["rollout.example.com/stage"] != "canary" {
		t.Errorf("first object: %+v", objects[0])
	}
	run, ok := objects[1].(*kclv1.KCLRun)
	if !ok || run.Namespace != canaryNamespace || run.Spec.SourceRef.Name != name || run.Spec.SourceRef.Namespace != namespace {
		t.Errorf("second object: %+v", objects[1])
	}
	ro, ok := objects[2].(*kclv1.ImageRollout)
	if !ok || ro.Namespace != namespace || ro.Spec.ImagePolicyRef.Name != policyName || len(ro.Spec.Stages) != 2 ||
		ro.Spec.Stages[0].NamespaceSelector == nil || ro.Spec.Stages[0].BakeDuration() != 5*time.Second || ro.Spec.Stages[1].HasSelector() {
		t.Errorf("third object: %+v", objects[2])
	}
}
