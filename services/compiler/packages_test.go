package compiler_test

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
	"github.com/kcl-lang/flux-kcl-controller/kcl/mod"
	"github.com/kcl-lang/flux-kcl-controller/kcl/mod/registrytest"
	"github.com/kcl-lang/flux-kcl-controller/services/compiler"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/gitserver"
)

// k8sProgram imports the k8s-like package as the kcl-deployment example imports k8s.
const k8sProgram = `import k8s.api.apps.v1 as apps
import manifests

_deploy = apps.Deployment {
    metadata = {name = "nginx-deployment", namespace = "default"}
    spec = {
        selector.matchLabels.app = "nginx"
        template.metadata.labels.app = "nginx"
        template.spec.containers = [{name = "nginx", image = "nginx:1.25"}]
    }
}
manifests.yaml_stream([_deploy])
`

const k8sMod = "[package]\nname = \"app\"\nversion = \"0.1.0\"\n\n[dependencies]\nk8s = \"1.29\"\n"

func k8sLock(sum string) string {
	return "[dependencies]\n  [dependencies.k8s]\n    name = \"k8s\"\n    full_name = \"k8s_1.29\"\n    version = \"1.29\"\n    sum = \"" + sum +
		"\"\n    reg = \"ghcr.io\"\n    repo = \"kcl-lang/k8s\"\n    oci_tag = \"1.29\"\n"
}

func k8sSum(t testing.TB) string {
	sum, err := mod.Sum(registrytest.WriteFiles(t, registrytest.K8sLike("1.29")))
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// mirrorTo points the default registry (ghcr.io/kcl-lang) at host, as an
// air-gapped cluster's --kcl-registry-mirror does.
func mirrorTo(host string) func(*compiler.Config) {
	return func(c *compiler.Config) {
		c.Packages.Mirrors = []string{"ghcr.io/kcl-lang=" + host + "/kcl-lang"}
		c.Packages.Timeout = 20 * time.Second
	}
}

func TestCompileLockedRegistryPackage(t *testing.T) {
	reg := registrytest.Start(t)
	digest := reg.Push(t, "kcl-lang/k8s:1.29", registrytest.K8sLike("1.29"))
	w := startWorker(t, mirrorTo(reg.Host))
	a := w.publish(t, "k8s-locked", map[string]string{"kcl.mod": k8sMod, "kcl.mod.lock": k8sLock(k8sSum(t)), "main.k": k8sProgram})
	got, err := w.client.Compile(context.Background(), workerclient.CompileInput{Artifact: ref(a)})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Objects) != 1 || got.Objects[0].GetKind() != "Deployment" || got.Objects[0].GetName() != "nginx-deployment" {
		t.Fatalf("objects %v", got.Objects)
	}
	if replicas, _, _ := unstructured.NestedInt64(got.Objects[0].Object, "spec", "replicas"); replicas != 1 {
		t.Fatalf("the package's schema default did not apply: %v", got.Objects[0].Object)
	}
	p := got.Packages
	if len(p) != 1 || p[0].Name != "k8s" || !p[0].Locked || p[0].Digest != digest || p[0].Source != "oci://ghcr.io/kcl-lang/k8s:1.29" {
		t.Fatalf("packages %+v", p)
	}
	// Locked: the result is cached.
	again, err := w.client.Compile(context.Background(), workerclient.CompileInput{Artifact: ref(a)})
	if err != nil || !again.CacheHit || len(again.Packages) != 1 {
		t.Fatalf("second compile: %v, cache hit %v", err, again != nil && again.CacheHit)
	}
}

func TestCompileTamperedPackageFailsVerification(t *testing.T) {
	reg := registrytest.Start(t)
	tampered := registrytest.K8sLike("1.29")
	tampered["api/apps/v1/deployment.k"] = strings.Replace(tampered["api/apps/v1/deployment.k"], "replicas?: int = 1", "replicas?: int = 100", 1)
	reg.Push(t, "kcl-lang/k8s:1.29", tampered)
	w := startWorker(t, mirrorTo(reg.Host))
	a := w.publish(t, "k8s-tampered", map[string]string{"kcl.mod": k8sMod, "kcl.mod.lock": k8sLock(k8sSum(t)), "main.k": k8sProgram})
	_, err := w.client.Compile(context.Background(), workerclient.CompileInput{Artifact: ref(a)})
	ce := compileError(t, err)
	if ce.Stage != workerclient.StageCompile || ce.Kind != compiler.KindDependencyVerification ||
		!strings.Contains(ce.Message, "dependency k8s (oci://ghcr.io/kcl-lang/k8s:1.29): checksum mismatch") {
		t.Fatalf("got %+v", ce)
	}
}

func TestCompileMissingPackageAndUnreachableRegistryAreRetried(t *testing.T) {
	reg := registrytest.Start(t)
	w := startWorker(t, mirrorTo(reg.Host))
	a := w.publish(t, "k8s-missing", map[string]string{"kcl.mod": k8sMod, "main.k": k8sProgram})
	_, err := w.client.Compile(context.Background(), workerclient.CompileInput{Artifact: ref(a)})
	if ce := compileError(t, err); ce.Stage != workerclient.StageArtifact || ce.Kind != compiler.KindDependencyNotFound ||
		!strings.Contains(ce.Message, "dependency k8s") {
		t.Fatalf("missing: got %+v", ce)
	}
	// The package appears: the next attempt succeeds (nothing failed was cached).
	reg.Push(t, "kcl-lang/k8s:1.29", registrytest.K8sLike("1.29"))
	got, err := w.client.Compile(context.Background(), workerclient.CompileInput{Artifact: ref(a)})
	if err != nil || len(got.Objects) != 1 || got.Packages[0].Locked {
		t.Fatalf("after the push: %v %+v", err, got)
	}

	closed := closedAddr(t)
	w2 := startWorker(t, mirrorTo(closed))
	_, err = w2.client.Compile(context.Background(), workerclient.CompileInput{Artifact: ref(w2.publish(t, "k8s-unreachable", map[string]string{"kcl.mod": k8sMod, "main.k": k8sProgram}))})
	if ce := compileError(t, err); ce.Stage != workerclient.StageArtifact || ce.Kind != compiler.KindDependencyFetch || !strings.Contains(ce.Message, closed) {
		t.Fatalf("unreachable: got %+v", ce)
	}
}

func TestCompileVendoredWithTheNetworkUnreachable(t *testing.T) {
	w := startWorker(t, mirrorTo(closedAddr(t)))
	files := map[string]string{"kcl.mod": k8sMod, "kcl.mod.lock": k8sLock(k8sSum(t)), "main.k": k8sProgram}
	for name, content := range registrytest.K8sLike("1.29") {
		files["vendor/k8s_1.29/"+name] = content
	}
	a := w.publish(t, "k8s-vendored", files)
	got, err := w.client.Compile(context.Background(), workerclient.CompileInput{Artifact: ref(a), Config: workerclient.CompileConfig{Vendor: true}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Objects) != 1 || len(got.Packages) != 1 || !got.Packages[0].Vendored || got.Packages[0].Source != "vendor/k8s_1.29" {
		t.Fatalf("got %+v", got)
	}
}

func TestCompileGitDependency(t *testing.T) {
	srv, err := gitserver.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	repo, err := srv.NewRepository("labels")
	if err != nil {
		t.Fatal(err)
	}
	commit, err := repo.Commit("labels 0.1.0", map[string]string{
		"kcl.mod": "[package]\nname = \"labels\"\nversion = \"0.1.0\"\n",
		"main.k":  "team = \"platform\"\n",
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"tag", "v0.1.0"}, {"push", "--quiet", "origin", "v0.1.0"}} {
		if _, err := repo.Git(args...); err != nil {
			t.Fatal(err)
		}
	}
	w := startWorker(t, nil)
	a := w.publish(t, "git-dep", map[string]string{
		"kcl.mod": "[package]\nname = \"app\"\n\n[dependencies]\nlabels = { git = \"" + repo.URL + "\", tag = \"v0.1.0\" }\n",
		"main.k":  "import labels\n\n[{apiVersion = \"v1\", kind = \"ConfigMap\", metadata = {name = \"app\", namespace = \"default\", labels.team = labels.team}}]\n",
	})
	got, err := w.client.Compile(context.Background(), workerclient.CompileInput{Artifact: ref(a)})
	if err != nil {
		t.Fatal(err)
	}
	if team, _, _ := unstructured.NestedString(got.Objects[0].Object, "metadata", "labels", "team"); team != "platform" {
		t.Fatalf("got %v", got.Objects[0].Object)
	}
	if p := got.Packages; len(p) != 1 || p[0].Digest != commit || p[0].Source != repo.URL+"@v0.1.0" || p[0].Version != "0.1.0" || p[0].Locked {
		t.Fatalf("packages %+v, want commit %s", p, commit)
	}
	// Locked to the commit with its sum, as kpm writes it: fetched at that
	// commit even after the tag moves, and verified.
	lock := fmt.Sprintf("[dependencies]\n  [dependencies.labels]\n    name = \"labels\"\n    full_name = \"labels_0.1.0\"\n    version = \"0.1.0\"\n"+
		"    sum = %q\n    url = %q\n    commit = %q\n    git_tag = \"v0.1.0\"\n", got.Packages[0].Sum, repo.URL, commit)
	if _, err := repo.Commit("moved", map[string]string{"main.k": "team = \"moved\"\n"}); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"tag", "-f", "v0.1.0"}, {"push", "--quiet", "-f", "origin", "v0.1.0"}} {
		if _, err := repo.Git(args...); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		"kcl.mod":      "[package]\nname = \"app\"\n\n[dependencies]\nlabels = { git = \"" + repo.URL + "\", tag = \"v0.1.0\" }\n",
		"kcl.mod.lock": lock,
		"main.k":       "import labels\n\n[{apiVersion = \"v1\", kind = \"ConfigMap\", metadata = {name = \"locked\", namespace = \"default\", labels.team = labels.team}}]\n",
	}
	fresh := startWorker(t, nil) // an empty package cache: the commit is cloned
	locked, err := fresh.client.Compile(context.Background(), workerclient.CompileInput{Artifact: ref(fresh.publish(t, "git-locked", files))})
	if err != nil {
		t.Fatal(err)
	}
	if team, _, _ := unstructured.NestedString(locked.Objects[0].Object, "metadata", "labels", "team"); team != "platform" || !locked.Packages[0].Locked {
		t.Fatalf("locked: %v %+v", locked.Objects[0].Object, locked.Packages)
	}
}

func TestCompileRegistryCredentialsServeTheirKCLRunOnly(t *testing.T) {
	reg := registrytest.StartWithAuth(t, "tenant-a", "hunter2-secret")
	reg.Push(t, "kcl-lang/k8s:1.29", registrytest.K8sLike("1.29"))
	w := startWorker(t, mirrorTo(reg.Host))
	a := w.publish(t, "k8s-private", map[string]string{"kcl.mod": k8sMod, "kcl.mod.lock": k8sLock(k8sSum(t)), "main.k": k8sProgram})

	got, err := w.client.Compile(context.Background(), workerclient.CompileInput{Artifact: ref(a), KCLRun: "tenant-a/app", RegistryCredentials: reg.DockerConfig()})
	if err != nil || len(got.Objects) != 1 {
		t.Fatalf("with credentials: %v", err)
	}
	// Same artifact, another tenant without credentials: neither the result
	// cache nor the package cache serves it.
	_, err = w.client.Compile(context.Background(), workerclient.CompileInput{Artifact: ref(a), KCLRun: "tenant-b/app"})
	if ce := compileError(t, err); ce.Kind != compiler.KindDependencyUnauthorized || ce.Stage != workerclient.StageArtifact {
		t.Fatalf("without credentials: got %+v", ce)
	}
	wrong := registrytest.DockerConfig(reg.Host, "tenant-a", "wrong-password")
	_, err = w.client.Compile(context.Background(), workerclient.CompileInput{Artifact: ref(a), KCLRun: "tenant-c/app", RegistryCredentials: wrong})
	ce := compileError(t, err)
	if ce.Kind != compiler.KindDependencyUnauthorized || strings.Contains(ce.Message, "wrong-password") || strings.Contains(ce.Message, "hunter2") {
		t.Fatalf("wrong credentials: got %+v", ce)
	}
	_, err = w.client.Compile(context.Background(), workerclient.CompileInput{Artifact: ref(a), RegistryCredentials: []byte(`{"auths": "hunter2-secret"`)})
	if ce := compileError(t, err); ce.Kind != compiler.KindRegistryCredentials || strings.Contains(ce.Message, "hunter2") {
		t.Fatalf("malformed credentials: got %+v", ce)
	}
}

// closedAddr is a loopback address nothing listens on.
func closedAddr(t testing.TB) string {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	lis.Close()
	return addr
}
