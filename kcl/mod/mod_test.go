package mod

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestParseFileKinds(t *testing.T) {
	f, err := ParseFile([]byte(`[package]
name = "app"
edition = "v0.9.0"
version = "0.0.1"

[dependencies]
k8s = "1.29"
helloworld = { oci = "oci://ghcr.io/kcl-lang/helloworld", tag = "0.1.4" }
konfig = { git = "https://github.com/kcl-lang/konfig.git", tag = "v0.4.0" }
common = { path = "../common" }
json-merge-patch = { version = "0.1.0" }
newpkg = { oci = "oci://ghcr.io/kcl-lang/helloworld", tag = "0.1.4", package = "subhelloworld" }

[profile]
entries = ["main.k"]
`))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Dependency{}
	for _, d := range f.Dependencies {
		got[d.Name] = d
	}
	if f.Package.Name != "app" || len(got) != 6 ||
		got["k8s"].Version != "1.29" ||
		got["helloworld"].OCI != "oci://ghcr.io/kcl-lang/helloworld" || got["helloworld"].Tag != "0.1.4" ||
		got["konfig"].Git == "" || got["konfig"].Tag != "v0.4.0" ||
		got["common"].Path != "../common" ||
		got["json-merge-patch"].ImportName() != "json_merge_patch" ||
		got["newpkg"].Package != "subhelloworld" {
		t.Fatalf("parsed %+v", f)
	}
	for _, bad := range []string{
		"[dependencies]\nx = { git = \"u\", path = \"p\" }\n",
		"[dependencies]\nx = { git = \"u\", tag = \"a\", branch = \"b\" }\n",
		"[dependencies]\nx = { oci = \"ghcr.io/x\" }\n",
		"[dependencies\n",
	} {
		if _, err := ParseFile([]byte(bad)); !errors.Is(err, ErrInvalid) {
			t.Errorf("%q: got %v, want ErrInvalid", bad, err)
		}
	}
	// A value neither a version nor a table is no dependency, as in kpm
	// (and `kcl run` 0.12.1 runs the program).
	if f, err := ParseFile([]byte("[dependencies]\nk8s = 1.29\nx = \"1.0\"\n")); err != nil || len(f.Dependencies) != 1 || f.Dependencies[0].Name != "x" {
		t.Errorf("a float version: got %+v, %v; want only x", f, err)
	}
	if p, err := ParseProfile([]byte("[profile]\nentries = [\n  \"a.k\",\n  \"b\",\n]\n[dependencies]\nk8s = { git = \"u\", path = \"p\" }\n")); err != nil || len(p.Entries) != 2 || p.Entries[1] != "b" {
		t.Errorf("ParseProfile: got %+v, %v", p, err)
	}
}

func TestParseLockKpmFields(t *testing.T) {
	l, err := ParseLock([]byte(`[dependencies]
  [dependencies.k8s]
    name = "k8s"
    full_name = "k8s_1.29"
    version = "1.29"
    sum = "abc="
    reg = "ghcr.io"
    repo = "kcl-lang/k8s"
    oci_tag = "1.29"
  [dependencies.konfig]
    name = "konfig"
    full_name = "konfig_v0.4.0"
    version = "v0.4.0"
    url = "https://github.com/kcl-lang/konfig.git"
    git_tag = "v0.4.0"
`))
	if err != nil {
		t.Fatal(err)
	}
	k, g := l.Dependencies["k8s"], l.Dependencies["konfig"]
	if k.FullName != "k8s_1.29" || k.Sum != "abc=" || k.Reg != "ghcr.io" || k.Repo != "kcl-lang/k8s" || k.OCITag != "1.29" ||
		g.URL == "" || g.GitTag != "v0.4.0" {
		t.Fatalf("parsed %+v", l)
	}
}

// Sum is kpm's HashDir: SHA-256 over file contents in walk order, base64,
// skipping paths with .git or .tar.
func TestSumIsKpmHashDir(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"kcl.mod":          "A",
		"b/main.k":         "B",
		"a.k":              "C",
		".git/HEAD":        "ignored",
		"k8s_1.29.tar":     "ignored",
		"z/nested/deep.k":  "D",
		"b/sub.k":          "E",
		"b/.gitignore.txt": "ignored too (kpm matches substrings)",
	})
	want := sha256.Sum256([]byte("C" + "B" + "E" + "A" + "D"))
	got, err := Sum(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got != base64.StdEncoding.EncodeToString(want[:]) {
		t.Fatalf("got %s", got)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "link.k")); err != nil {
		t.Fatal(err)
	}
	if _, err := Sum(dir); !errors.Is(err, ErrUnsafe) {
		t.Fatalf("symlink: got %v", err)
	}
}

// fakeFetcher serves folders by source string: a unit-test stand-in for the network.
type fakeFetcher map[string]string

func (f fakeFetcher) Fetch(_ context.Context, src Source) (*Fetched, error) {
	dir, ok := f[src.String()]
	if !ok {
		return nil, errors.New("not found: " + src.String())
	}
	return &Fetched{Dir: dir, Digest: "sha256:" + src.Tag}, nil
}

func TestResolveTransitiveHigherVersionWins(t *testing.T) {
	base1 := writeTree(t, map[string]string{"kcl.mod": "[package]\nname = \"base\"\nversion = \"1.2\"\n"})
	base2 := writeTree(t, map[string]string{"kcl.mod": "[package]\nname = \"base\"\nversion = \"1.10\"\n"})
	lib := writeTree(t, map[string]string{
		"kcl.mod":    "[package]\nname = \"lib\"\nversion = \"0.1.0\"\n\n[dependencies]\nbase = \"1.10\"\nhelper = { path = \"helper\" }\n",
		"helper/a.k": "",
	})
	git := writeTree(t, map[string]string{
		"kcl.mod":        "[package]\nname = \"monorepo\"\n",
		"pkgs/x/kcl.mod": "[package]\nname = \"x\"\nversion = \"0.3.0\"\n",
	})
	program := writeTree(t, map[string]string{
		"kcl.mod": "[package]\nname = \"app\"\n\n[dependencies]\nbase = \"1.2\"\nlib = { oci = \"oci://reg.example/team/lib\", tag = \"0.1.0\" }\n" +
			"x = { git = \"https://git.example/mono.git\", branch = \"main\", package = \"x\" }\n",
	})
	f := fakeFetcher{
		"oci://ghcr.io/kcl-lang/base:1.2":   base1,
		"oci://ghcr.io/kcl-lang/base:1.10":  base2,
		"oci://reg.example/team/lib:0.1.0":  lib,
		"https://git.example/mono.git@main": git,
	}
	res, err := Resolve(context.Background(), program, Options{Fetcher: f})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Resolved{}
	for _, p := range res.Packages {
		got[p.Name] = p
	}
	if got["base"].Dir != base2 || got["base"].Version != "1.10" || got["lib"].Dir != lib ||
		got["helper"].Dir != filepath.Join(lib, "helper") || !got["helper"].Local ||
		got["x"].Dir != filepath.Join(git, "pkgs", "x") || got["x"].Version != "0.3.0" {
		t.Fatalf("resolved %+v", res.Packages)
	}
}

func TestResolveRefusesPathsLeavingTheArtifact(t *testing.T) {
	root := writeTree(t, map[string]string{
		"app/kcl.mod": "[package]\nname = \"app\"\n\n[dependencies]\nsecret = { path = \"../../outside\" }\n",
	})
	_, err := Resolve(context.Background(), filepath.Join(root, "app"), Options{Root: root})
	if !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), "leaves the artifact") {
		t.Fatalf("got %v", err)
	}
}

func TestVersionLess(t *testing.T) {
	for _, c := range []struct {
		a, b string
		less bool
	}{{"1.9", "1.29", true}, {"1.29", "1.9", false}, {"v0.1.0", "v0.2.0", true}, {"1.2", "1.2.1", true}, {"1.2", "1.2", false}} {
		if versionLess(c.a, c.b) != c.less {
			t.Errorf("versionLess(%s, %s) != %v", c.a, c.b, c.less)
		}
	}
}
