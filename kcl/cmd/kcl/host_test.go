package main

import (
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Programs write files and read the environment under bin/kcl as under the
// official CLI. Every expected stdout, stderr and file below is what
// kcl-official (0.12.1, /work/shared/kcl-conformance) printed and left for
// the same program run the same way. Stderr is compared whole, ${DIR}
// standing for the directory the program runs in.
func TestProgramsWriteFilesAsTheOfficialCLI(t *testing.T) {
	cases := []struct {
		name    string
		files   map[string]string // before the run: "name/" is a directory, "-> target" a symlink
		program string
		stdout  string
		stderr  string // empty: exit 0
		after   map[string]string
	}{
		{
			name:  "write creates or truncates a file and returns None",
			files: map[string]string{"over.txt": "old content\n"},
			program: `import file
a = file.write("w.txt", "héllo\n")
b = file.read("w.txt")
file.write(filepath="empty.txt", content="")
file.write("over.txt", "new")
`,
			stdout: "a: null\nb: |\n  héllo\n",
			after:  map[string]string{"w.txt": "héllo\n", "empty.txt": "", "over.txt": "new"},
		},
		{
			name: "append creates a file, then appends",
			program: `import file
a = file.append("a.txt", "one\n")
file.append("a.txt", "two")
file.append(filepath="a.txt", content="3")
b = file.read("a.txt")
`,
			stdout: "a: null\nb: |-\n  one\n  two3\n",
			after:  map[string]string{"a.txt": "one\ntwo3"},
		},
		{
			name:  "mkdir makes the parents, accepts a directory there, and a file there with exists=True",
			files: map[string]string{"f": ""},
			program: `import file
a = file.mkdir("d/e/f")
file.mkdir("d/e/f")
file.mkdir(directory="f", exists=True)
`,
			stdout: "a: null\n",
			after:  map[string]string{"d/": "", "d/e/": "", "d/e/f/": "", "f": ""},
		},
		{
			name:    "mkdir over a file",
			files:   map[string]string{"f": ""},
			program: "import file\nfile.mkdir(\"f\")\n",
			stderr:  failure(2, `file.mkdir("f")`, "Failed to create directory 'f': File exists (os error 17)"),
			after:   map[string]string{"f": ""},
		},
		{
			name:    "write into a missing directory",
			program: "import file\nfile.write(\"no/w.txt\", \"x\")\n",
			stderr:  failure(2, `file.write("no/w.txt", "x")`, "Failed to create file 'no/w.txt': No such file or directory (os error 2)"),
		},
		{
			name:    "write to a directory",
			files:   map[string]string{"d/": ""},
			program: "import file\nfile.write(\"d\", \"x\")\n",
			stderr:  failure(2, `file.write("d", "x")`, "Failed to create file 'd': Is a directory (os error 21)"),
			after:   map[string]string{"d/": ""},
		},
		{
			name:    "append into a missing directory",
			program: "import file\nfile.append(\"no/a.txt\", \"x\")\n",
			stderr:  failure(2, `file.append("no/a.txt", "x")`, "Failed to open or create file 'no/a.txt': No such file or directory (os error 2)"),
		},
		{
			name: "a path or content that is not a string is empty",
			program: `import file
x: any = 1
file.write("w.txt", x)
file.write(None, "c")
`,
			stderr: failure(4, `file.write(None, "c")`, "Failed to create file '': No such file or directory (os error 2)"),
			after:  map[string]string{"w.txt": ""},
		},
		{
			name:    "delete removes a file",
			files:   map[string]string{"f": "x", "d/x": ""},
			program: "import file\na = file.delete(\"f\")\nb = file.exists(\"f\")\n",
			stdout:  "a: null\nb: false\n",
			after:   map[string]string{"d/": "", "d/x": ""},
		},
		{
			name:    "delete refuses a directory, even an empty one",
			files:   map[string]string{"e/": ""},
			program: "import file\nfile.delete(\"e\")\n",
			stderr:  failure(2, `file.delete("e")`, "failed to delete 'e': Is a directory (os error 21)"),
			after:   map[string]string{"e/": ""},
		},
		{
			name:    "delete of nothing",
			program: "import file\nfile.delete(\"nope\")\n",
			stderr:  failure(2, `file.delete("nope")`, "failed to delete 'nope': No such file or directory (os error 2)"),
		},
		{
			name: "cp copies a file, and a directory without its symlinks, merged into one there",
			files: map[string]string{"f": "f\n", "d/x": "hi\n", "d/e/y": "yo\n", "d/l": "-> x",
				"m/keep": "old\n", "m/x": "old\n"},
			program: `import file
a = file.cp("f", "g")
file.cp("d", "d2/deep")
file.cp(src="d", dest="m")
`,
			stdout: "a: null\n",
			after: map[string]string{"f": "f\n", "g": "f\n", "d/": "", "d/x": "hi\n", "d/e/": "", "d/e/y": "yo\n", "d/l": "-> x",
				"d2/": "", "d2/deep/": "", "d2/deep/x": "hi\n", "d2/deep/e/": "", "d2/deep/e/y": "yo\n",
				"m/": "", "m/keep": "old\n", "m/x": "hi\n", "m/e/": "", "m/e/y": "yo\n"},
		},
		{
			name:    "cp a file onto a directory",
			files:   map[string]string{"f": "f", "d/": ""},
			program: "import file\nfile.cp(\"f\", \"d\")\n",
			stderr:  failure(2, `file.cp("f", "d")`, "Failed to copy from 'f' to 'd': Is a directory (os error 21)"),
			after:   map[string]string{"f": "f", "d/": ""},
		},
		{
			name:    "cp from nothing",
			program: "import file\nfile.cp(\"nope\", \"g\")\n",
			stderr:  failure(2, `file.cp("nope", "g")`, "Failed to copy from 'nope' to 'g': No such file or directory (os error 2)"),
		},
		{
			name:    "mv renames a file, and a directory over an empty one",
			files:   map[string]string{"f": "f", "d/x": "hi", "e/": ""},
			program: "import file\na = file.mv(\"f\", \"f2\")\nfile.mv(\"d\", \"e\")\n",
			stdout:  "a: null\n",
			after:   map[string]string{"f2": "f", "e/": "", "e/x": "hi"},
		},
		{
			name:    "mv a directory onto a non-empty one",
			files:   map[string]string{"d/x": "hi", "e/x/": ""},
			program: "import file\nfile.mv(\"d\", \"e\")\n",
			stderr:  failure(2, `file.mv("d", "e")`, "Failed to move 'd' to 'e': Directory not empty (os error 39)"),
			after:   map[string]string{"d/": "", "d/x": "hi", "e/": "", "e/x/": ""},
		},
		{
			name:    "mv a file onto a directory",
			files:   map[string]string{"f": "f", "d/": ""},
			program: "import file\nfile.mv(\"f\", \"d\")\n",
			stderr:  failure(2, `file.mv("f", "d")`, "Failed to move 'f' to 'd': Is a directory (os error 21)"),
			after:   map[string]string{"f": "f", "d/": ""},
		},
		{
			name: "json.dump_to_file writes json.encode's text, its options by keyword or position",
			program: `import json
schema P:
    name?: str
    _priv?: int = 1
    n?: int = None
    data?: [int] = [1, 2, None]
p = P {name = "A"}
json.dump_to_file({"b": 1, "a": {"z": None, "_y": 2}, "_x": 3}, "a.json")
json.dump_to_file({"b": 1, "a": {"z": None, "_y": 2}, "_x": 3}, "b.json", sort_keys=True, indent=2, ignore_private=True, ignore_none=True)
json.dump_to_file({"b": 1, "a": {"z": None, "_y": 2}, "_x": 3}, "c.json", True, 2, True, True)
json.dump_to_file(data={"b": 1}, filename="d.json", indent=0)
json.dump_to_file(p, "e.json", indent=4)
json.dump_to_file("str", "f.json")
a = json.dump_to_file([1, 2.5, True, None, "x"], "g.json", indent=2)
`,
			stdout: "p:\n  name: A\n  'n': null\n  data:\n  - 1\n  - 2\n  - null\n",
			after: map[string]string{
				"a.json": `{"b": 1, "a": {"z": null, "_y": 2}, "_x": 3}`,
				"b.json": "{\n  \"a\": {},\n  \"b\": 1\n}",
				"c.json": "{\n  \"a\": {},\n  \"b\": 1\n}",
				"d.json": `{"b": 1}`,
				"e.json": "{\n    \"name\": \"A\",\n    \"_priv\": 1,\n    \"n\": null,\n    \"data\": [\n        1,\n        2,\n        null\n    ]\n}",
				"f.json": `"str"`,
				"g.json": "[\n  1,\n  2.5,\n  true,\n  null,\n  \"x\"\n]",
			},
		},
		{
			name: "yaml.dump_to_file writes yaml.encode's text, its options by keyword or position",
			program: `import yaml
yaml.dump_to_file({"b": 1, "a": {"z": None, "_y": 2}, "_x": 3}, "a.yaml")
yaml.dump_to_file({"b": 1, "a": {"z": None, "_y": 2}, "_x": 3}, "b.yaml", sort_keys=True, ignore_private=True, ignore_none=True)
yaml.dump_to_file({"b": 1, "a": {"z": None, "_y": 2}, "_x": 3}, "c.yaml", True, True, True)
yaml.dump_to_file(data="a: b\nc: d", filename="d.yaml")
a = yaml.dump_to_file([1, 2.5, True, None, "x"], "e.yaml")
`,
			stdout: "{}\n",
			after: map[string]string{
				"a.yaml": "b: 1\na:\n  z: null\n  _y: 2\n_x: 3\n",
				"b.yaml": "a: {}\nb: 1\n",
				"c.yaml": "a: {}\nb: 1\n",
				"d.yaml": "|-\n  a: b\n  c: d\n",
				"e.yaml": "- 1\n- 2.5\n- true\n- null\n- x\n",
			},
		},
		{
			name: "yaml.dump_all_to_file writes the documents apart",
			program: `import yaml
yaml.dump_all_to_file([{"b": 1, "_a": None}, [1, 2], "s", None, 1], "a.yaml")
yaml.dump_all_to_file([{"b": 1, "_a": None, "a": 2}], "b.yaml", sort_keys=True, ignore_private=True, ignore_none=True)
yaml.dump_all_to_file([{"b": 1, "_a": None, "a": 2}], "c.yaml", True, True, True)
a = yaml.dump_all_to_file([], "d.yaml")
`,
			stdout: "{}\n",
			after: map[string]string{
				"a.yaml": "b: 1\n_a: null\n\n---\n- 1\n- 2\n\n---\ns\n\n---\nnull\n\n---\n1\n",
				"b.yaml": "a: 2\nb: 1\n",
				"c.yaml": "a: 2\nb: 1\n",
				"d.yaml": "",
			},
		},
		{
			name:    "json.dump_to_file into a missing directory",
			program: "import json\njson.dump_to_file({\"a\": 1}, \"no/a.json\")\n",
			stderr:  failure(2, `json.dump_to_file({"a": 1}, "no/a.json")`, "Unable to write file 'no/a.json': No such file or directory (os error 2)"),
		},
		{
			name:    "yaml.dump_to_file to a directory",
			files:   map[string]string{"d/": ""},
			program: "import yaml\nyaml.dump_to_file({\"a\": 1}, \"d\")\n",
			stderr:  failure(2, `yaml.dump_to_file({"a": 1}, "d")`, "Unable to write file 'd': Is a directory (os error 21)"),
			after:   map[string]string{"d/": ""},
		},
		{
			name:    "yaml.dump_all_to_file into a missing directory words the error as Rust debug-prints it",
			program: "import yaml\nyaml.dump_all_to_file([{\"a\": 1}], \"no/a.yaml\")\n",
			stderr: failure(2, `yaml.dump_all_to_file([{"a": 1}], "no/a.yaml")`,
				`Unable to write file: Os { code: 2, kind: NotFound, message: "No such file or directory" }`),
		},
		{
			name:    "yaml.dump_all_to_file of a value that is not a list",
			program: "import yaml\nx: any = {\"a\": 1}\nyaml.dump_all_to_file(x, \"a.yaml\")\n",
			stderr:  failure(3, `yaml.dump_all_to_file(x, "a.yaml")`, "invalid list value"),
		},
		{
			name: "each call writes once, in evaluation order",
			program: `import file
schema S:
    x: int = 1
    _w = file.append("log.txt", "S${x}\n")
a = S{}
b = S{x = 2}
c = a.x
f = lambda n {
    file.append("log.txt", "f${n}\n")
    n
}
d = [f(i) for i in range(2)]
e = f(9) + f(9)
`,
			stdout: "a:\n  x: 1\nb:\n  x: 2\nc: 1\nd:\n- 0\n- 1\ne: 18\n",
			after:  map[string]string{"log.txt": "S1\nS2\nf0\nf1\nf9\nf9\n"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			makeTree(t, dir, c.files)
			if err := os.WriteFile(filepath.Join(dir, "main.k"), []byte(c.program), 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, errOut := runIn(t, dir, "run", "main.k")
			wantCode := 0
			if c.stderr != "" {
				wantCode = 1
			}
			if code != wantCode || out != c.stdout || errOut != strings.ReplaceAll(c.stderr, "${DIR}", dir) {
				t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s\nwant exit %d, stdout:\n%s\nstderr:\n%s", code, out, errOut, wantCode, c.stdout, c.stderr)
			}
			after := c.after
			if after == nil {
				after = map[string]string{}
			}
			if got := readTree(t, dir); !maps.Equal(got, after) {
				t.Errorf("the directory holds %q, want %q", got, after)
			}
		})
	}
}

// Relative paths are against the working directory, not the program's.
func TestProgramWritesRelativeToTheWorkingDirectory(t *testing.T) {
	const program = "import file\nfile.write(\"w.txt\", \"hello\")\na = file.read(\"w.txt\")\n"
	dir := t.TempDir()
	makeTree(t, dir, map[string]string{"sub/main.k": program})
	code, out, errOut := runIn(t, dir, "run", "sub/main.k")
	if code != 0 || out != "a: hello\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if got, want := readTree(t, dir), map[string]string{"sub/": "", "sub/main.k": program, "w.txt": "hello"}; !maps.Equal(got, want) {
		t.Errorf("the directory holds %q, want %q", got, want)
	}
}

// read_env sees the environment: a variable set, even to "", is a string;
// one unset is Undefined (the attribute is left out, and `or` takes over).
func TestProgramReadsTheEnvironment(t *testing.T) {
	t.Setenv("KCL_HOST_TEST_SET", "value")
	t.Setenv("KCL_HOST_TEST_EMPTY", "")
	os.Unsetenv("KCL_HOST_TEST_UNSET")
	dir := writeFiles(t, map[string]string{"main.k": `import file
a = file.read_env("KCL_HOST_TEST_SET")
b = file.read_env("KCL_HOST_TEST_UNSET")
c = file.read_env(key="KCL_HOST_TEST_EMPTY")
d = b == None
e = file.read_env("KCL_HOST_TEST_SET") or "default"
f = file.read_env("KCL_HOST_TEST_UNSET") or "default"
`})
	code, out, errOut := runIn(t, dir, "run", "main.k")
	if want := "a: value\nc: ''\nd: false\ne: value\nf: default\n"; code != 0 || out != want {
		t.Fatalf("exit %d, stdout %q, stderr %q; want stdout %q", code, out, errOut, want)
	}
}

// failure is the diagnostic of a runtime error on line of main.k.
func failure(line int, src, msg string) string {
	l := strconv.Itoa(line)
	gutter := strings.Repeat(" ", len(l)) + " |"
	return "error[E3M38]: EvaluationError\n" +
		" --> ${DIR}/main.k:" + l + ":1\n" +
		gutter + "\n" +
		l + " | " + src + "\n" +
		gutter + "  " + msg + "\n" +
		gutter + "\n"
}

// makeTree creates files: "name/" is a directory, content "-> target" a symlink.
func makeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		switch target, link := strings.CutPrefix(content, "-> "); {
		case strings.HasSuffix(name, "/"):
			err = os.MkdirAll(p, 0o755)
		case link:
			err = os.Symlink(target, p)
		default:
			err = os.WriteFile(p, []byte(content), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// readTree is what makeTree would have made, main.k left out at the top.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, dir+string(filepath.Separator)))
		switch {
		case rel == "main.k":
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			got[rel] = "-> " + target
		case d.IsDir():
			got[rel+"/"] = ""
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			got[rel] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// net.fqdn asks the resolver as the runtime does: a name resolves to its
// first address and back (localhost to localhost); a name that does not
// resolve, or an address without a name, is returned as given.
func TestProgramAsksTheResolverForFQDN(t *testing.T) {
	dir := writeFiles(t, map[string]string{"main.k": `import net
a = net.fqdn("localhost")
b = net.fqdn(name="127.0.0.1")
c = net.fqdn("no-such-host.invalid")
`})
	code, out, errOut := runIn(t, dir, "run", "main.k")
	if want := "a: localhost\nb: localhost\nc: no-such-host.invalid\n"; code != 0 || out != want {
		t.Fatalf("exit %d, stdout %q, stderr %q; want stdout %q", code, out, errOut, want)
	}
}
