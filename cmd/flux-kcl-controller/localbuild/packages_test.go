package localbuild

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/kcl/mod/registrytest"
)

func TestBuildFetchesPackagesThroughAMirror(t *testing.T) {
	reg := registrytest.Start(t)
	digest := reg.Push(t, "kcl-lang/k8s:1.29", registrytest.K8sLike("1.29"))
	dir := registrytest.WriteFiles(t, map[string]string{
		"kcl.mod": "[package]\nname = \"app\"\n\n[dependencies]\nk8s = \"1.29\"\n",
		"main.k": `import k8s.api.core.v1

_image = "nginx:1.7.7"
apiVersion = "v1"
kind = "Pod"
metadata = {name = "web"}
spec = {containers = [v1.Container {name = "web", image = _image}]}
`,
	})
	opts := Options{Dir: dir, Packages: DefaultPackages()}
	opts.Packages.CacheDir = t.TempDir()
	opts.Packages.Mirrors = []string{"ghcr.io/kcl-lang=" + reg.Host + "/kcl-lang"}
	var out, log bytes.Buffer
	if err := Build(context.Background(), opts, &out, &log); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n  - image: nginx:1.7.7\n    name: web\n"; got != want {
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

// -E name=folder wins over the kcl.mod dependency of that name: the registry
// (a mirror that is not there) is never asked, with or without --vendor.
func TestBuildExternalPackageWinsOverKclMod(t *testing.T) {
	files := map[string]string{
		"app/kcl.mod": "[package]\nname = \"app\"\n\n[dependencies]\nk8s = \"1.29\"\n",
		"app/main.k":  "import k8s.api.core.v1\n\nc = v1.Container {name = \"web\"}\n",
	}
	for name, src := range registrytest.K8sLike("1.29") {
		files["k8s/"+name] = src
	}
	root := registrytest.WriteFiles(t, files)
	for _, vendor := range []bool{false, true} {
		opts := Options{Dir: filepath.Join(root, "app"), Packages: DefaultPackages(), Vendor: vendor,
			External: map[string]string{"k8s": filepath.Join(root, "k8s")}}
		opts.Packages.CacheDir = t.TempDir()
		opts.Packages.Mirrors = []string{"ghcr.io/kcl-lang=127.0.0.1:1/kcl-lang"}
		var out, log bytes.Buffer
		if err := Build(context.Background(), opts, &out, &log); err != nil {
			t.Fatalf("vendor=%v: %v", vendor, err)
		}
		if got, want := out.String(), "c:\n  name: web\n"; got != want {
			t.Fatalf("vendor=%v: output\n%s\nwant\n%s", vendor, got, want)
		}
		if want := "package k8s 1.29 ← " + filepath.Join(root, "k8s") + " (given with -E)"; !strings.Contains(log.String(), want) {
			t.Fatalf("log %q, want %q", log.String(), want)
		}
	}
}
