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

// An external package importing a package that is neither its own nor
// another external one (a dependency of its own that was not given) gets
// nothing from the main package's root, where 0.12.1 looks: a folder there
// is "Failed to import", anything else "Cannot find the module". Each want
// is what 0.12.1 prints.
func TestExternalPackageImportsNothingFromTheMainRoot(t *testing.T) {
	for name, c := range map[string]struct {
		main map[string]string
		want string
	}{
		"nothing there": {nil, "Cannot find the module helpers from ${DIR}/app/helpers\n"},
		"a folder":      {map[string]string{"app/helpers/h.k": "z = 5\n"}, "Failed to import the module helpers from ${DIR}/app/helpers. No KCL files found in the specified folder\n"},
		"a file":        {map[string]string{"app/helpers.k": "z = 5\n"}, "Cannot find the module helpers from ${DIR}/app/helpers\n"},
	} {
		t.Run(name, func(t *testing.T) {
			files := map[string]string{
				"app/kcl.mod": "[package]\nname = \"app\"\n",
				"app/main.k":  "import lib\n\na = lib.x\n",
				"lib/kcl.mod": "[package]\nname = \"lib\"\n",
				"lib/main.k":  "import helpers\n\nx = helpers.z\n",
			}
			for k, v := range c.main {
				files[k] = v
			}
			dir := writeFiles(t, files)
			code, _, errOut := runIn(t, dir+"/app", "run", "main.k", "-E", "lib="+dir+"/lib")
			want := strings.ReplaceAll(c.want, "${DIR}", dir)
			if code != 1 || !strings.Contains(errOut, want) || !strings.Contains(errOut, "attribute 'z' not found in 'module 'helpers''") {
				t.Fatalf("exit %d, stderr:\n%s\nwant it to contain %q and the TypeError", code, errOut, want)
			}
		})
	}
}

// A path below an external package's root where nothing is (k8s.core.v1 of
// a k8s package that has api/core/v1) is an empty package in 0.12.1: the
// import is no error, a member of it the static pass's TypeError.
func TestImportBelowAnExternalPackageWithNothingThereIsEmpty(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"app/main.k":  "import lib.nothing\n\nx = 1\n",
		"app/use.k":   "import lib.nothing\n\ny = nothing.a\n",
		"lib/kcl.mod": "[package]\nname = \"lib\"\n",
		"lib/a.k":     "a = 1\n",
	})
	code, out, errOut := runIn(t, dir+"/app", "run", "main.k", "-E", "lib="+dir+"/lib")
	if code != 0 || out != "x: 1\n" {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, out, errOut)
	}
	code, _, errOut = runIn(t, dir+"/app", "run", "use.k", "-E", "lib="+dir+"/lib")
	if code != 1 || !strings.Contains(errOut, "attribute 'a' not found in 'module 'lib.nothing''") {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
}
