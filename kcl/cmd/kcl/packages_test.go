package main

import (
	"strings"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/kcl/mod/registrytest"
)

func TestRunFetchesKclModDependencies(t *testing.T) {
	reg := registrytest.Start(t)
	reg.Push(t, "team/k8s:1.29", registrytest.K8sLike("1.29"))
	t.Setenv("KPM_REG", reg.Host)
	t.Setenv("KPM_REPO", "team")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := writeFiles(t, map[string]string{
		"kcl.mod": "[package]\nname = \"app\"\n\n[dependencies]\nk8s = \"1.29\"\n",
		"main.k":  "import k8s.api.core.v1\n\nc = v1.Container {name = \"web\"}\n",
	})
	code, out, errOut := runIn(t, dir, "run")
	if code != 0 || out != "c:\n  name: web\n" {
		t.Fatalf("exit %d\nstdout %q\nstderr %s", code, out, errOut)
	}
	code, _, errOut = runIn(t, dir, "run", "--vendor")
	if code != 1 || !strings.Contains(errOut, "k8s is not vendored") {
		t.Fatalf("--vendor: exit %d, stderr %s", code, errOut)
	}
}

// -E name=path wins over the kcl.mod dependency of that name: nothing is
// fetched (KPM_REG points at a registry that is not there), with or without
// --vendor; a settings file's package_maps do the same.
func TestExternalPackageWinsOverKclMod(t *testing.T) {
	t.Setenv("KPM_REG", "127.0.0.1:1")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	files := map[string]string{
		"kcl.mod":  "[package]\nname = \"app\"\n\n[dependencies]\nk8s = \"1.29\"\n",
		"main.k":   "import k8s.api.core.v1\n\nc = v1.Container {name = \"web\"}\n",
		"kcl.yaml": "kcl_cli_configs:\n  package_maps:\n    k8s: ./local/k8s\n",
	}
	for name, src := range registrytest.K8sLike("1.29") {
		files["local/k8s/"+name] = src
	}
	dir := writeFiles(t, files)
	for _, args := range [][]string{
		{"run", "main.k", "-E", "k8s=local/k8s"},
		{"run", "main.k", "-E", "k8s=" + dir + "/local/k8s", "--vendor"},
		{"run", "main.k", "-Y", "kcl.yaml"},
		{"run", "main.k", "--vendor"}, // ./kcl.yaml is read when no -Y is given
	} {
		code, out, errOut := runIn(t, dir, args...)
		if code != 0 || out != "c:\n  name: web\n" {
			t.Fatalf("%v: exit %d\nstdout %q\nstderr %s", args, code, out, errOut)
		}
	}
}
