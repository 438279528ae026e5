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
