package mod

import (
	"context"
	"testing"
)

// A package given by the user (-E name=path) wins over every kcl.mod that
// declares it, including a locked one and a transitive one, and is never
// fetched: the fetcher here knows only lib.
func TestResolveExternalPackagesWinOverKclMod(t *testing.T) {
	k8s := writeTree(t, map[string]string{"kcl.mod": "[package]\nname = \"k8s\"\nversion = \"1.29\"\n"})
	lib := writeTree(t, map[string]string{
		"kcl.mod": "[package]\nname = \"lib\"\nversion = \"0.1.0\"\n\n[dependencies]\nk8s = \"1.31\"\n",
	})
	program := writeTree(t, map[string]string{
		"kcl.mod":      "[package]\nname = \"app\"\n\n[dependencies]\nk8s = \"1.29\"\nlib = { oci = \"oci://reg.example/team/lib\", tag = \"0.1.0\" }\n",
		"kcl.mod.lock": "[dependencies]\n  [dependencies.k8s]\n    name = \"k8s\"\n    full_name = \"k8s_1.29\"\n    version = \"1.29\"\n    sum = \"not-the-sum-of-the-given-folder\"\n    reg = \"ghcr.io\"\n    repo = \"kcl-lang/k8s\"\n    oci_tag = \"1.29\"\n",
	})
	f := fakeFetcher{"oci://reg.example/team/lib:0.1.0": lib}
	res, err := Resolve(context.Background(), program, Options{Fetcher: f, External: map[string]string{"k8s": k8s}})
	if err != nil {
		t.Fatal(err)
	}
	pkgs := res.ExternalPkgs()
	if pkgs["k8s"] != k8s || pkgs["lib"] != lib {
		t.Fatalf("resolved %+v", res.Packages)
	}
	// With --vendor nothing is vendored, yet the given package needs nothing.
	program = writeTree(t, map[string]string{"kcl.mod": "[package]\nname = \"app\"\n\n[dependencies]\nk8s = \"1.29\"\n"})
	res, err = Resolve(context.Background(), program, Options{Vendor: true, External: map[string]string{"k8s": k8s}})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExternalPkgs()["k8s"] != k8s || !res.Reproducible() {
		t.Fatalf("resolved %+v", res.Packages)
	}
}
