package localbuild

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/kcl/mod/registrytest"
)

func TestBuildFetchesPackagesThroughAMirror(t *testing.T) {
	reg := registrytest.Start(t)
	digest := reg.Push(t, "kcl-lang/k8s:1.29", registrytest.K8sLike("1.29"))
	dir := registrytest.WriteFiles(t, map[string]string{
		"kcl.mod": "[package]\nname = \"app\"\n\n[dependencies]\nk8s = \"1.29\"\n",
		"main.k":  "import k8s.api.core.v1\n\n_image = \"nginx:1.7.7\"\nc = v1.Container {name = \"web\", image = _image}\n",
	})
	opts := Options{Dir: dir, Packages: DefaultPackages()}
	opts.Packages.CacheDir = t.TempDir()
	opts.Packages.Mirrors = []string{"ghcr.io/kcl-lang=" + reg.Host + "/kcl-lang"}
	var out, log bytes.Buffer
	if err := Build(context.Background(), opts, &out, &log); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "c:\n  name: web\n  image: nginx:1.7.7\n"; got != want {
		t.Fatalf("output\n%s\nwant\n%s", got, want)
	}
	if want := "package k8s 1.29 ← oci://ghcr.io/kcl-lang/k8s:1.29 @ " + digest + " (not locked)"; !strings.Contains(log.String(), want) {
		t.Fatalf("log %q, want %q", log.String(), want)
	}
	opts.Vendor = true
	if err := Build(context.Background(), opts, &out, &log); err == nil || !strings.Contains(err.Error(), "k8s is not vendored") {
		t.Fatalf("vendor mode: got %v", err)
	}
}
