package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The base/overlay layouts of issue 30, each answer measured with the official
// kcl run 0.12.1 (kcl-official) in the same layout.

const (
	layoutBase = "schema App:\n    name: str\n    replicas: int = 1\n    labels: {str:str} = {}\n\napp: App {\n    name = \"base\"\n}\n"
	layoutDev  = "app: App {\n    replicas = 3\n    labels.env = \"dev\"\n}\n"
	layoutOut  = "app:\n  name: base\n  replicas: 3\n  labels:\n    env: dev\n"
)

func layout(t *testing.T) string {
	return writeFiles(t, map[string]string{
		"base/base.k":  layoutBase,
		"dev/main.k":   layoutDev,
		"dev/kcl.yaml": "kcl_cli_configs:\n  files:\n    - ../base/base.k\n    - main.k\n",
	})
}

func TestSettingsEntryInASiblingFolderRuns(t *testing.T) {
	dir := layout(t)
	for _, args := range [][]string{{"run"}, {"run", "-Y", "kcl.yaml"}, {"run", "../base/base.k", "main.k"}} {
		code, out, errOut := runIn(t, filepath.Join(dir, "dev"), args...)
		if code != 0 || out != layoutOut {
			t.Errorf("%q in dev: code %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
	// With a kcl.mod above (the work dir widens to it), the entries stay
	// relative to the settings file.
	if err := os.WriteFile(filepath.Join(dir, "kcl.mod"), []byte("[package]\nname = \"layout\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runIn(t, filepath.Join(dir, "dev"), "run"); code != 0 || out != layoutOut {
		t.Errorf("with kcl.mod: code %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// 0.12.1 loads the settings against the working directory first: from the
// parent, -Y dev/kcl.yaml is refused because ../base/base.k is not there.
func TestSettingsEntriesMustExistFromTheWorkingDirectory(t *testing.T) {
	dir := layout(t)
	code, out, errOut := runIn(t, dir, "run", "-Y", "dev/kcl.yaml")
	want := "error[E3M38]: EvaluationError\nCannot find the kcl file, please check the file path ../base/base.k\n"
	if code != 1 || out != "" || errOut != want {
		t.Fatalf("code %d, stdout %q, stderr %q, want %q", code, out, errOut, want)
	}
}

func TestMissingEntryFileOnTheCommandLine(t *testing.T) {
	dir := layout(t)
	code, _, errOut := runIn(t, filepath.Join(dir, "dev"), "run", "../nope/x.k")
	if want := "error[E3M38]: Cannot find the kcl file, please check the file path ../nope/x.k\n"; code != 1 || errOut != want {
		t.Fatalf("code %d, stderr %q, want %q", code, errOut, want)
	}
}

// A symlinked main.k (or package folder) pointing out of the working
// directory is followed, as kcl run does.
func TestSymlinkedEntryIsFollowed(t *testing.T) {
	dir := writeFiles(t, map[string]string{"shared/main.k": "a = \"shared\"\n"})
	for _, p := range []string{"dev", "ldir"} {
		if err := os.MkdirAll(filepath.Join(dir, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../shared/main.k", filepath.Join(dir, "dev", "main.k")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../shared", filepath.Join(dir, "ldir", "pkg")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dir  string
		args []string
	}{{"dev", []string{"run"}}, {"dev", []string{"run", "main.k"}}, {"ldir", []string{"run", "pkg"}}, {"ldir", []string{"run", "pkg/main.k"}}} {
		code, out, errOut := runIn(t, filepath.Join(dir, c.dir), c.args...)
		if code != 0 || out != "a: shared\n" {
			t.Errorf("%q in %s: code %d, stdout %q, stderr %q", c.args, c.dir, code, out, errOut)
		}
	}
}

// kcl run reads a symlinked entry where it points: in a folder whose files
// link to another folder (runner/src/test_symbolic_link/test_pkg/bbb), the
// relative import climbs from the target, outside the package root, where
// 0.12.1 spells the package from the root and finds none. The answer is what
// kcl run 0.12.1 printed, blank lines aside.
func TestSymlinkedEntryOutsideItsPackageImportsFromTheTarget(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"aaa/kcl.mod":     "[package]\nname = \"aaa\"\n",
		"aaa/sub/main.k":  "import .sub as s\n\nThe_first_kcl_program = 'Hello World!'\nb = s.sub",
		"aaa/sub/sub.k":   "sub = 1",
		"bbb/kcl.mod":     "[package]\nname = \"bbb\"\n",
		"inner/real.k":    "import .sub as s\nb = s.sub\n",
		"inner/sub.k":     "sub = 2\n",
		"kcl.mod":         "[package]\nname = \"top\"\n",
		"q/placeholder.k": "",
	})
	for _, l := range [][2]string{{"../aaa/sub/main.k", "bbb/main.k"}, {"../aaa/sub/sub.k", "bbb/sub.k"}, {"../inner/real.k", "q/main.k"}} {
		if err := os.Symlink(l[0], filepath.Join(dir, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	code, _, errOut := runIn(t, filepath.Join(dir, "bbb"), "run")
	want := strings.ReplaceAll(`error[E2F04]: CannotFindModule
 --> ${DIR}/aaa/sub/main.k:1:1
  |
1 | import .sub as s
  | ^ Cannot find the module .sub from ///aaa/sub/sub
  |
suggestion: try 'kcl mod add ' to download the missing package
suggestion: browse more packages at 'https://artifacthub.io'
error[E2G22]: TypeError
 --> ${DIR}/aaa/sub/main.k:4:5
  |
4 | b = s.sub
  |     ^ attribute 'sub' not found in 'module '...aaa.sub.sub''
  |`, "${DIR}", dir)
	if code != 1 || nonBlank(errOut) != want {
		t.Errorf("code %d, stderr:\n%s\nwant:\n%s", code, errOut, want)
	}
	// Given as a file, the entry's package root is searched from the target
	// (aaa's kcl.mod), where the import is found.
	code, out, errOut := runIn(t, filepath.Join(dir, "bbb"), "run", "main.k")
	if code != 0 || out != "The_first_kcl_program: Hello World!\nb: 1\n" {
		t.Errorf("code %d, stdout %q, stderr %q", code, out, errOut)
	}
	// Inside the package root the target's folder is where the import is
	// found (b: 2, not a sub.k beside the link).
	code, out, errOut = runIn(t, filepath.Join(dir, "q"), "run", "main.k")
	if code != 0 || out != "b: 2\n" {
		t.Errorf("code %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// ${KCL_MOD} stands for the package root of the plain entries, as 0.12.1's
// get_compile_entries_from_paths finds it: a file's own folder when no
// kcl.mod is above it, the work dir when the entries' roots differ. Entries
// that are all mod-relative are refused, a settings file's even under
// command-line entries; ${name:KCL_MOD} entries with no package or no file
// are dropped. Each want is what 0.12.1 prints.
func TestModRelativeEntriesExpandAsTheOfficialCLI(t *testing.T) {
	files := map[string]string{
		"a.k":         "a = 1\n",
		"b.k":         "b = 2\n",
		"sub/a.k":     "c = 3\n",
		"sub/b.k":     "d = 4\n",
		"libdir/x.k":  "x = 9\n",
		"only.yaml":   "kcl_cli_configs:\n  file:\n    - ${KCL_MOD}/a.k\n",
		"mixed.yaml":  "kcl_cli_configs:\n  file:\n    - ${KCL_MOD}/a.k\n    - sub/../b.k\n    - sub/a.k\n",
		"nested.yaml": "kcl_cli_configs:\n  file:\n    - sub/b.k\n    - ${KCL_MOD}/a.k\n",
	}
	for _, c := range []struct {
		args      []string
		out, errs string
	}{
		{[]string{"-Y", "only.yaml"}, "", "error[E3M38]: EvaluationError\nCan not find ${KCL_MOD}/a.k in the path: \n"},
		{[]string{"b.k", "-Y", "only.yaml"}, "", "error[E3M38]: EvaluationError\nCan not find ${KCL_MOD}/a.k in the path: \n"},
		{[]string{"-Y", "mixed.yaml"}, "a: 1\nb: 2\nc: 3\n", ""},
		{[]string{"-Y", "nested.yaml"}, "d: 4\nc: 3\n", ""},
		{[]string{"${lib:KCL_MOD}/x.k", "b.k", "-E", "lib=./libdir"}, "x: 9\nb: 2\n", ""},
		{[]string{"${nolib:KCL_MOD}/x.k", "b.k"}, "b: 2\n", ""},
		{[]string{"${lib:KCL_MOD}/y.k", "b.k", "-E", "lib=./libdir"}, "b: 2\n", ""},
		{[]string{"${lib:KCL_MOD}/x.k", "-E", "lib=./libdir"}, "", "error[E3M38]: Cannot find the kcl file, please check the file path ${lib:KCL_MOD}/x.k\n"},
	} {
		expectRun(t, writeFiles(t, files), c.args, c.out, c.errs)
	}
}

// 0.12.1 compiles the entries that have a package root (an existing .k
// file, or a path below a kcl.mod) and drops the others; only when none has
// one is a missing entry refused, on the command line and in a settings
// file alike. Each want is what 0.12.1 prints.
func TestEntriesWithoutAPackageRootAreDropped(t *testing.T) {
	base := map[string]string{"test.k": "value = 1\n", "sub/s.k": "s = 5\n"}
	withMod := map[string]string{"kcl.mod": "", "test.k": "value = 1\n", "sub/s.k": "s = 5\n"}
	missing := "error[E3M38]: Cannot find the kcl file, please check the file path nope.k\n"
	for _, c := range []struct {
		files     map[string]string
		args      []string
		out, errs string
	}{
		{base, []string{"nope.k", "test.k"}, "value: 1\n", ""},
		{base, []string{"nodir/", "test.k"}, "value: 1\n", ""},
		{base, []string{"sub/", "test.k"}, "value: 1\n", ""},
		{base, []string{"sub/", "nope.k"}, "", missing},
		{withMod, []string{"sub/", "test.k"}, "s: 5\nvalue: 1\n", ""},
		{withMod, []string{"sub/", "nope.k"}, "s: 5\n", ""},
		{map[string]string{"test.k": "value = 1\n", "kcl.yaml": "kcl_cli_configs:\n  files:\n    - ./nope/test.k\n    - test.k\n"}, nil, "value: 1\n", ""},
		{map[string]string{"test.k": "value = 1\n", "kcl.yaml": "kcl_cli_configs:\n  files:\n    - ./nope/test.k\n"}, []string{"test.k"}, "",
			"error[E3M38]: EvaluationError\nCannot find the kcl file, please check the file path ./nope/test.k\n"},
	} {
		expectRun(t, writeFiles(t, c.files), c.args, c.out, c.errs)
	}
}

// expectRun runs `kcl run args...` in dir: exit 0 with stdout out, or exit 1
// with stderr errs when errs is not empty.
func expectRun(t *testing.T, dir string, args []string, out, errs string) {
	t.Helper()
	code, gotOut, gotErr := runIn(t, dir, append([]string{"run"}, args...)...)
	wantCode := 0
	if errs != "" {
		wantCode = 1
	}
	if code != wantCode || gotOut != out || gotErr != errs {
		t.Errorf("%v: exit %d, stdout %q, stderr %q; want stdout %q, stderr %q", args, code, gotOut, gotErr, out, errs)
	}
}
