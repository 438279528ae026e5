package kcl_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/kcl"
)

// tree is an artifact root with a program in app/ and, beside the root,
// another tenant's directory that nothing may read.
type tree struct {
	root, app, foreign string
}

func newTree(t *testing.T) tree {
	t.Helper()
	base := t.TempDir()
	tr := tree{root: filepath.Join(base, "artifact"), foreign: filepath.Join(base, "other-tenant")}
	tr.app = filepath.Join(tr.root, "app")
	write(t, filepath.Join(tr.app, "main.k"), "a = option(\"secret\") or \"unset\"\n")
	write(t, filepath.Join(tr.root, "common", "kcl.yaml"), "kcl_options:\n  - key: secret\n    value: shared\n")
	write(t, filepath.Join(tr.foreign, "kcl.yaml"), "kcl_options:\n  - key: secret\n    value: other-tenant-token\n")
	write(t, filepath.Join(tr.foreign, "main.k"), "a = \"other-tenant-program\"\n")
	return tr
}

func write(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (tr tree) run(settings ...string) (*kcl.Result, error) {
	return kcl.Run(context.Background(), kcl.Options{WorkDir: tr.app, Root: tr.root, Settings: settings})
}

func wantRefused(t *testing.T, res *kcl.Result, err error, msg string) {
	t.Helper()
	var kerr *kcl.Error
	if !errors.As(err, &kerr) || kerr.Kind != kcl.PathRefusedKind {
		t.Fatalf("want a %s error, got %v (output %v)", kcl.PathRefusedKind, err, res)
	}
	if !strings.Contains(kerr.Message, msg) {
		t.Fatalf("want the message to name %q, got %q", msg, kerr.Message)
	}
	if strings.Contains(kerr.Message, "other-tenant-token") {
		t.Fatalf("the message shows the refused file's content: %q", kerr.Message)
	}
}

func TestSettingsInsideTheRootAreRead(t *testing.T) {
	tr := newTree(t)
	res, err := tr.run("../common/kcl.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := string(res.YAML); got != "a: shared\n" {
		t.Fatalf("got %q", got)
	}
}

func TestSettingsOutsideTheRootAreRefused(t *testing.T) {
	tr := newTree(t)
	for _, f := range []string{"../../other-tenant/kcl.yaml", filepath.Join(tr.foreign, "kcl.yaml")} {
		res, err := tr.run(f)
		wantRefused(t, res, err, f)
	}
}

func TestSettingsSymlinkOutsideTheRootIsRefused(t *testing.T) {
	tr := newTree(t)
	for name, target := range map[string]string{
		"abs.yaml":      filepath.Join(tr.foreign, "kcl.yaml"),
		"rel.yaml":      "../../other-tenant/kcl.yaml",
		"dangling.yaml": filepath.Join(tr.foreign, "missing.yaml"),
	} {
		if err := os.Symlink(target, filepath.Join(tr.app, name)); err != nil {
			t.Fatal(err)
		}
		res, err := tr.run(name)
		wantRefused(t, res, err, name)
	}
}

func TestSettingsEntryFilesOutsideTheProgramAreRefused(t *testing.T) {
	tr := newTree(t)
	for _, entry := range []string{filepath.Join(tr.foreign, "main.k"), "../../other-tenant/main.k"} {
		write(t, filepath.Join(tr.app, "kcl.yaml"), "kcl_cli_configs:\n  files:\n    - "+entry+"\n")
		res, err := tr.run("kcl.yaml")
		wantRefused(t, res, err, entry)
	}
}

func TestSettingsEntryFileSymlinkOutsideTheProgramIsNotRead(t *testing.T) {
	tr := newTree(t)
	if err := os.Symlink(filepath.Join(tr.foreign, "main.k"), filepath.Join(tr.app, "link.k")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(tr.app, "kcl.yaml"), "kcl_cli_configs:\n  files:\n    - link.k\n")
	res, err := tr.run("kcl.yaml")
	if err == nil {
		t.Fatalf("the link was followed: %s", res.YAML)
	}
	if strings.Contains(err.Error(), "other-tenant-program") {
		t.Fatalf("the error shows the foreign file: %v", err)
	}
}

// A base/overlay layout inside the artifact (KCL's codelab "collaborative"
// layout): app/kcl.yaml lists ../base/base.k, which 0.12.1 runs; the root is
// the artifact, not the program's folder.
func TestSettingsEntryFilesInASiblingFolderOfTheArtifactRun(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.root, "base", "base.k"), "schema App:\n    name: str\n    labels: {str:str} = {}\n\napp: App {name = \"base\"}\n")
	write(t, filepath.Join(tr.app, "main.k"), "app: App {labels.env = \"dev\"}\n")
	write(t, filepath.Join(tr.app, "kcl.yaml"), "kcl_cli_configs:\n  files:\n    - ../base/base.k\n    - main.k\n")
	res, err := tr.run("kcl.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(res.YAML), "app:\n  name: base\n  labels:\n    env: dev\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	// A type error in the sibling file is located in it, relative to nothing
	// outside the artifact.
	write(t, filepath.Join(tr.root, "base", "base.k"), "schema App:\n    name: str\n    labels: {str:str} = {}\n\ny: int = \"s\"\n")
	_, err = tr.run("kcl.yaml")
	var kerr *kcl.Error
	if !errors.As(err, &kerr) || kerr.Kind != "TypeError" || kerr.File != filepath.Join(tr.root, "base", "base.k") || kerr.Line != 5 {
		t.Fatalf("got %v, want a TypeError at base/base.k:5", err)
	}
}

// A symlink from the program's folder to another folder of the artifact is
// followed; the sandbox still stops one that leaves the artifact.
func TestEntrySymlinkInsideTheArtifactIsFollowed(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.root, "shared", "main.k"), "a = \"shared\"\n")
	if err := os.Remove(filepath.Join(tr.app, "main.k")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../shared/main.k", filepath.Join(tr.app, "main.k")); err != nil {
		t.Fatal(err)
	}
	res, err := kcl.Run(context.Background(), kcl.Options{WorkDir: tr.app, Root: tr.root})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(res.YAML); got != "a: shared\n" {
		t.Fatalf("got %q", got)
	}
	// Without Root the program's folder is the root, as before.
	if res, err := kcl.Run(context.Background(), kcl.Options{WorkDir: tr.app}); err == nil {
		t.Fatalf("the link left the program root: %s", res.YAML)
	}
}

// A symlinked entry is read where it points, as kcl run 0.12.1 reads its
// entries: its relative imports climb from the target's folder. Inside the
// artifact that is followed; a link leaving it is still refused.
func TestSymlinkedEntryImportsFromItsTarget(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.root, "shared", "main.k"), "import .sub as s\nb = s.sub\n")
	write(t, filepath.Join(tr.root, "shared", "sub.k"), "sub = \"shared\"\n")
	write(t, filepath.Join(tr.app, "sub.k"), "sub = \"app\"\n")
	if err := os.Remove(filepath.Join(tr.app, "main.k")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../shared/main.k", filepath.Join(tr.app, "main.k")); err != nil {
		t.Fatal(err)
	}
	res, err := kcl.Run(context.Background(), kcl.Options{WorkDir: tr.app, Root: tr.root, Files: []string{"main.k"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(res.YAML); got != "b: shared\n" {
		t.Fatalf("got %q", got)
	}
	// The same link with the program's folder as the root leaves it.
	if res, err := kcl.Run(context.Background(), kcl.Options{WorkDir: tr.app, Files: []string{"main.k"}}); err == nil {
		t.Fatalf("the link left the program root: %s", res.YAML)
	}
	write(t, filepath.Join(tr.foreign, "main.k"), "import .sub as s\nb = s.sub\n")
	write(t, filepath.Join(tr.foreign, "sub.k"), "sub = \"other-tenant-program\"\n")
	if err := os.Remove(filepath.Join(tr.app, "main.k")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(tr.foreign, "main.k"), filepath.Join(tr.app, "main.k")); err != nil {
		t.Fatal(err)
	}
	res, err = kcl.Run(context.Background(), kcl.Options{WorkDir: tr.app, Root: tr.root, Files: []string{"main.k"}})
	if err == nil {
		t.Fatalf("a link leaving the artifact was followed: %s", res.YAML)
	}
	if strings.Contains(err.Error(), "other-tenant-program") {
		t.Fatalf("the error shows the foreign file: %v", err)
	}
}

// The file module still reads below the program's folder, whatever the root.
func TestFileModuleReadsRelativeToTheWorkDir(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.app, "data.txt"), "local")
	write(t, filepath.Join(tr.app, "main.k"), "import file\na = file.read(\"data.txt\")\n")
	res, err := kcl.Run(context.Background(), kcl.Options{WorkDir: tr.app, Root: tr.root})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(res.YAML); got != "a: local\n" {
		t.Fatalf("got %q", got)
	}
}
