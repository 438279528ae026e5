package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runIn runs the CLI in dir with args and returns exit code, stdout, stderr.
func runIn(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	var out, errOut bytes.Buffer
	code := runCLI(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestRunPrintsOutputAfterPrints(t *testing.T) {
	dir := writeFiles(t, map[string]string{"main.k": "print(\"hi\")\na = option(\"env\", default=\"dev\")\n"})
	code, out, errOut := runIn(t, dir, "run", "main.k", "-D", "env=prod")
	if code != 0 || out != "hi\na: prod\n" {
		t.Fatalf("code %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestSettingsFileSuppliesOptionsAndFlags(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.k": "a = option(\"key\")\nb = None\n",
		"settings.yaml": "kcl_cli_configs:\n  files:\n    - main.k\n  disable_none: true\n" +
			"kcl_options:\n  - key: key\n    value: value\n",
	})
	code, out, errOut := runIn(t, dir, "run", "-Y", "settings.yaml")
	if code != 0 || out != "a: value\n" {
		t.Fatalf("code %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestPathSelectorAndOverride(t *testing.T) {
	dir := writeFiles(t, map[string]string{"main.k": "schema P:\n    name: str\n    full: str = name + \"!\"\n\np = P {name = \"a\"}\n"})
	code, out, errOut := runIn(t, dir, "run", "main.k", "-O", "p.name=\"b\"", "-S", "p.full")
	if code != 0 || out != "b!\n\n" && out != "b!\n" {
		t.Fatalf("code %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestErrorsRenderLikeTheOfficialCLI(t *testing.T) {
	dir := writeFiles(t, map[string]string{"main.k": "a = 1\na = 2\n"})
	code, out, errOut := runIn(t, dir, "run", "main.k")
	want := []string{
		"error[E1001]: ImmutableError",
		" --> " + filepath.Join(dir, "main.k") + ":2:1",
		"2 | a = 2",
		"  | ^ Can not change the value of 'a', because it was declared immutable",
		"1 | a = 1",
		"note: change the variable name to '_a' to make it mutable",
	}
	if code != 1 || out != "" {
		t.Fatalf("code %d, stdout %q", code, out)
	}
	for _, w := range want {
		if !strings.Contains(errOut, w) {
			t.Fatalf("stderr lacks %q:\n%s", w, errOut)
		}
	}
}

// Every diagnostic is printed, two blank lines apart, as the official CLI does.
func TestErrorsAreSeparatedLikeTheOfficialCLI(t *testing.T) {
	dir := writeFiles(t, map[string]string{"main.k": "a = b\nc = d\n"})
	code, _, errOut := runIn(t, dir, "run", "main.k")
	want := "  |     ^ name 'b' is not defined\n  |\n\n\nerror[E2L23]: CompileError\n --> " + filepath.Join(dir, "main.k") + ":2:5\n"
	if code != 1 || !strings.Contains(errOut, want) {
		t.Fatalf("code %d, stderr lacks %q:\n%s", code, want, errOut)
	}
}

func TestInvalidArgumentIsRejected(t *testing.T) {
	dir := writeFiles(t, map[string]string{"main.k": "a = 1\n"})
	code, _, errOut := runIn(t, dir, "run", "main.k", "-D", "key=value=")
	if code != 1 || !strings.Contains(errOut, "Invalid value for top level arguments") {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
}

func TestPackageWithoutFilesUsesKclModProfile(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"kcl.mod":   "[package]\nname = \"app\"\n\n[profile]\nentries = [\"base.k\", \"prod.k\"]\n",
		"base.k":    "replicas = 1\n",
		"prod.k":    "env = \"prod\"\n",
		"ignored.k": "ignored = True\n",
	})
	code, out, errOut := runIn(t, dir, "run")
	if code != 0 || out != "replicas: 1\nenv: prod\n" {
		t.Fatalf("code %d, stdout %q, stderr %q", code, out, errOut)
	}

	// The list is TOML: over several lines, with a trailing comma, a folder.
	dir = writeFiles(t, map[string]string{
		"kcl.mod":        "[package]\nname = \"app\"\n\n[profile]\nentries = [\n    \"./overlay\",\n]\n",
		"main.k":         "ignored = True\n",
		"overlay/env.k":  "env = \"prod\"\n",
		"overlay/size.k": "replicas = 3\n",
	})
	code, out, errOut = runIn(t, dir, "run")
	if code != 0 || out != "env: prod\nreplicas: 3\n" {
		t.Fatalf("code %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// The caret sits under the column as the official renderer draws it: wide
// East Asian characters take two cells, a tab none; a message-less error
// (a bare assert) leaves the label line empty. Each want is what 0.12.1 prints.
func TestCaretColumnsRenderLikeTheOfficialCLI(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"schema P:\n    a: str\n    port: int\n\np = P {a = \"名前\", port = \"x\"}\n",
			"5 | p = P {a = \"名前\", port = \"x\"}\n  |                    ^ expected int, got str(x)\n"},
		{"if True:\n    a = 1\n\tb = 2\n",
			"3 | \tb = 2\n  | ^ inconsistent use of tabs and spaces in indentation\n"},
		{"x = 1\nassert x > 1\n",
			"2 | assert x > 1\n  | \n  |\n"},
	} {
		dir := writeFiles(t, map[string]string{"main.k": c.src})
		code, _, errOut := runIn(t, dir, "run", "main.k")
		if code != 1 || !strings.Contains(errOut, c.want) {
			t.Errorf("program:\n%s--- stderr:\n%s--- want it to contain:\n%s", c.src, errOut, c.want)
		}
	}
}

// Every syntax error of a file is reported, in source order, and the parser's
// errors draw no caret at column 1 unless they are past the line's end. Each want is what 0.12.1 prints.
func TestAllSyntaxErrorsAreReported(t *testing.T) {
	for _, c := range []struct {
		src  string
		want []string
	}{
		{"schema A:\n    a: int\n   b: int\n  c: int\n", []string{
			"3 |    b: int\n  |    ^ invalid indentation with 3 spaces, try to align indents by adding or removing spaces\n",
			"4 |   c: int\n  |   ^ invalid indentation with 2 spaces, try to align indents by adding or removing spaces\n",
		}},
		{"x = 1\n)\n", []string{
			"2 | )\n  |  error nesting on close paren\n",
			"2 | )\n  |  unexpected token ')'\n",
		}},
		// At the end of a line the parser knows a column: a caret even at 1.
		{"a = {\n    b = [\n}\n", []string{
			"3 | }\n  |  error nesting on close brace\n",
			"3 | }\n  | ^ expected one of [\"}\"] got eof\n",
		}},
		// The static pass runs on what was parsed; its errors follow.
		{"x = 1 +\ny = missing\n", []string{
			"1 | x = 1 +\n  |       ^ expected one of [\"identifier\", \"literal\", \"(\", \"[\", \"{\"] got newline\n",
			"error[E2L23]: CompileError\n",
			"2 | y = missing\n  |     ^ name 'missing' is not defined\n",
		}},
		// So for an imported package's file.
		{"import pkg\n\nx = pkg.b\n", []string{
			"3 |    b: int\n  |    ^ invalid indentation with 3 spaces, try to align indents by adding or removing spaces\n",
			"4 |   c: int\n  |   ^ invalid indentation with 2 spaces, try to align indents by adding or removing spaces\n",
			"error[E2G22]: TypeError\n",
			"3 | x = pkg.b\n  |     ^ attribute 'b' not found in 'module 'pkg''\n",
		}},
	} {
		dir := writeFiles(t, map[string]string{"main.k": c.src, "pkg/lib.k": "schema A:\n    a: int\n   b: int\n  c: int\n"})
		code, _, errOut := runIn(t, dir, "run", "main.k")
		rest := errOut
		for _, w := range c.want {
			i := strings.Index(rest, w)
			if code != 1 || i < 0 {
				t.Fatalf("program:\n%s--- stderr:\n%s--- want, in order:\n%s", c.src, errOut, strings.Join(c.want, ""))
			}
			rest = rest[i+len(w):]
		}
	}
}

// A run the parser or the loader refused prints the static pass's list, in
// which the parser's errors come first, and nothing before it. 0.12.1's
// exec_program fails with the parse session's errors (the parser's, the
// loader's "pkgpath … not found in the program") followed by that list, but
// its `kcl run` (crates/cmd run_command) prints the diagnostics the resolver
// stashed in the session whenever there are any, not the message: the
// add-on's message, which kcl-official prints under "error[E3M38]: ", is not
// what users see. The want is 0.12.1's list as the resolver reports it.
func TestRefusedLoadPrintsTheResolversListOnly(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.k":  "import pkg\nimport nope\na = (1\nc = x\n",
		"pkg/p.k": "b = 2 +\nd = y\n",
	})
	code, _, errOut := runIn(t, dir, "run", "main.k")
	main, pkg := filepath.Join(dir, "main.k"), filepath.Join(dir, "pkg/p.k")
	want := "error[E1001]: InvalidSyntax\n --> " + main + ":3:6\n  |\n3 | a = (1\n  |      ^ expected one of [\")\"] got newline\n  |\n\n\n" +
		"error[E1001]: InvalidSyntax\n --> " + pkg + ":1:7\n  |\n1 | b = 2 +\n" +
		"  |       ^ expected one of [\"identifier\", \"literal\", \"(\", \"[\", \"{\"] got newline\n  |\n\n\n" +
		"error[E2F04]: CannotFindModule\n --> " + main + ":2:1\n  |\n2 | import nope\n  | ^ Cannot find the module nope from " + filepath.Join(dir, "nope") + "\n  |\n" +
		"suggestion: try 'kcl mod add nope' to download the missing package\nsuggestion: browse more packages at 'https://artifacthub.io'\n\n\n" +
		"error[E2L23]: CompileError\n --> " + pkg + ":2:5\n  |\n2 | d = y\n  |     ^ name 'y' is not defined\n  |\n\n\n" +
		"error[E2L23]: CompileError\n --> " + main + ":4:5\n  |\n4 | c = x\n  |     ^ name 'x' is not defined\n  |\n"
	if code != 1 || errOut != want {
		t.Fatalf("code %d, stderr:\n%s--- want:\n%s", code, errOut, want)
	}
}

// A cycle of imports is refused before anything runs, with the loader's text
// and an error at each import of the cycle, as 0.12.1 prints them.
func TestImportCycleRendersLikeTheOfficialCLI(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.k": "import a\nz = a.x\n",
		"a/a.k":  "import b\nx = 1\n",
		"b/b.k":  "import a\ny = 1\n",
	})
	code, _, errOut := runIn(t, dir, "run", "main.k")
	want := "error[E3M38]: error[E1001]: RecursiveLoad\nCould not compiles due to cyclic import statements\n" +
		"- " + filepath.Join(dir, "b/b.k") + "\n- " + filepath.Join(dir, "a/a.k") + "\n" +
		"error[E2L23]: CompileError\n --> " + filepath.Join(dir, "a/a.k") + ":1:1\n  |\n1 | import b\n" +
		"  | ^ There is a circular reference between modules a, b\n  |\n" +
		"error[E2L23]: CompileError\n --> " + filepath.Join(dir, "b/b.k") + ":1:1\n  |\n1 | import a\n" +
		"  | ^ There is a circular reference between modules a, b\n  |\n"
	if code != 1 || errOut != want {
		t.Fatalf("code %d, stderr:\n%s--- want:\n%s", code, errOut, want)
	}
}

// --format json prints each document on a line as 0.12.1's planner encodes
// it (the YAML's filters, -n and -k too); -o writes what would be printed
// but its last line break; several -S give a stream of their values, and a
// number selects a list item. Each want is what 0.12.1 prints.
func TestOutputFormatFileAndSelectorsAsTheOfficialCLI(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.k":   "a = {b = 1, c = [1, 2], d = None}\n_h = 1\nname = option(\"name\") or \"x\"\n",
		"stream.k": "[{a = 1}, {b = 2}]\n",
	})
	for _, c := range []struct {
		args      []string
		out, errs string
	}{
		{[]string{"main.k", "--format", "json"}, "{\"a\": {\"b\": 1, \"c\": [1, 2], \"d\": null}, \"name\": \"x\"}\n", ""},
		{[]string{"main.k", "-f", "JSON", "-n", "-k"}, "{\"a\": {\"b\": 1, \"c\": [1, 2]}, \"name\": \"x\"}\n", ""},
		{[]string{"stream.k", "--format", "json"}, "{\"a\": 1}\n{\"b\": 2}\n", ""},
		{[]string{"main.k", "-S", "a", "-S", "name"}, "b: 1\nc:\n- 1\n- 2\nd: null\n---\nx\n", ""},
		{[]string{"main.k", "-S", "a.c.1"}, "2\n\n", ""},
		{[]string{"main.k", "--format", "toml"}, "", "Invalid format 'toml', expected 'yaml' or 'json'\n"},
	} {
		expectRun(t, dir, c.args, c.out, c.errs)
	}
	code, out, errOut := runIn(t, dir, "run", "main.k", "-o", "out.json", "--format", "json")
	written, err := os.ReadFile(filepath.Join(dir, "out.json"))
	if code != 0 || out != "" || err != nil || string(written) != "{\"a\": {\"b\": 1, \"c\": [1, 2], \"d\": null}, \"name\": \"x\"}" {
		t.Fatalf("-o: exit %d, stdout %q, stderr %q, file %q (%v)", code, out, errOut, written, err)
	}
}
