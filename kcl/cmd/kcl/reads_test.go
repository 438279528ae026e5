package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// Programs read files under bin/kcl as under the official CLI: relative
// paths against the working directory (not the program's, nor the kcl.mod
// root), absolute ones and ".." anywhere. Every expected stdout and stderr
// below is what kcl-official (0.12.1, /work/shared/kcl-conformance) printed
// for the same files, run the same way from the same directory. ${DIR}
// stands for the temporary directory, symlinks resolved, in the files and
// in the output.
func TestProgramsReadFilesAsTheOfficialCLI(t *testing.T) {
	const layout = `import file
a = file.read("r.txt")
b = file.exists("r.txt")
c = file.size("r.txt")
d = file.abs("r.txt")
e = file.glob("*.txt")
f = file.workdir()
g = file.current()
h = file.modpath()
`
	// A kcl.mod package, a file in a folder beside it and one outside both.
	pkg := map[string]string{
		"proj/kcl.mod": "[package]\nname = \"proj\"\n", "proj/r.txt": "root\n",
		"proj/sub/r.txt": "sub\n", "proj/sub/main.k": layout, "proj/main.k": layout,
		"outside/o.txt": "outside\n",
	}
	cases := []struct {
		name   string
		files  map[string]string
		cwd    string
		args   []string
		stdout string
		stderr string
	}{
		{
			name:  "from a kcl.mod subfolder the reads are against it, not the kcl.mod root",
			files: pkg, cwd: "proj/sub", args: []string{"main.k"},
			stdout: "a: |\n  sub\nb: true\nc: 4\nd: ${DIR}/proj/sub/r.txt\ne:\n- r.txt\nf: ''\n" +
				"g: ${DIR}/proj/sub/main.k\nh: ${DIR}/proj\n",
		},
		{
			name:  "a program in a subfolder reads against the working directory, not its own",
			files: pkg, cwd: "proj", args: []string{"sub/main.k"},
			stdout: "a: |\n  root\nb: true\nc: 5\nd: ${DIR}/proj/r.txt\ne:\n- r.txt\nf: ''\n" +
				"g: ${DIR}/proj/sub/main.k\nh: ${DIR}/proj\n",
		},
		{
			name:  "a program above the working directory",
			files: pkg, cwd: "proj/sub", args: []string{"../main.k"},
			stdout: "a: |\n  sub\nb: true\nc: 4\nd: ${DIR}/proj/sub/r.txt\ne:\n- r.txt\nf: ''\n" +
				"g: ${DIR}/proj/main.k\nh: ${DIR}/proj\n",
		},
		{
			name: "what a program writes it reads back from the same place",
			files: map[string]string{"proj/kcl.mod": "", "proj/sub/main.k": `import file
file.write("x.txt", "written")
a = file.read("x.txt")
b = file.exists("../x.txt")
`},
			cwd: "proj/sub", args: []string{"main.k"},
			stdout: "a: written\nb: false\n",
		},
		{
			name: "absolute paths and .. reach outside the package",
			files: map[string]string{"proj/kcl.mod": "", "outside/o.txt": "outside\n", "proj/sub/main.k": `import file
a = file.read("${DIR}/outside/o.txt")
b = file.read("../../outside/o.txt")
c = file.glob("${DIR}/outside/*.txt")
d = file.abs("${DIR}/outside/../outside/o.txt")
e = file.exists("${DIR}/outside")
f = file.size("../../outside/o.txt")
g = file.glob("../../outside/*")
`},
			cwd: "proj/sub", args: []string{"main.k"},
			stdout: "a: |\n  outside\nb: |\n  outside\nc:\n- ${DIR}/outside/o.txt\nd: ${DIR}/outside/o.txt\ne: true\nf: 8\n" +
				"g:\n- '../../outside/o.txt'\n",
		},
		{
			name:  "without a kcl.mod modpath is the program's directory",
			files: map[string]string{"p/main.k": "import file\nm = file.modpath()\nc = file.current()\n", "w/": ""},
			cwd:   "w", args: []string{"../p/main.k"},
			stdout: "m: ${DIR}/p\nc: ${DIR}/p/main.k\n",
		},
		{
			name:  "current is the file evaluated, an imported one too",
			files: map[string]string{"p/main.k": "import pkg\nc = pkg.cur\n", "p/pkg/a.k": "import file\ncur = file.current()\n"},
			cwd:   "p", args: []string{"main.k"},
			stdout: "c: ${DIR}/p/pkg/a.k\n",
		},
		{
			name: "symlinks are followed; abs resolves them before a .. after them",
			files: map[string]string{"hi.txt": "hi\n", "l.txt": "-> hi.txt", "broken": "-> nowhere",
				"d/e/": "", "d/x": "", "lnk": "-> d/e", "main.k": `import file
a = file.read("l.txt")
b = file.exists("l.txt")
c = file.exists("broken")
d = file.abs("l.txt")
e = file.size("l.txt")
f = file.abs("lnk/..")
g = file.abs(".")
h = file.exists("hi.txt/")
`},
			stdout: "a: |\n  hi\nb: true\nc: false\nd: ${DIR}/hi.txt\ne: 3\nf: ${DIR}/d\ng: ${DIR}\nh: false\n",
		},
		{
			name: "file.workdir() is the directory of the settings file listing the entries, as written",
			files: map[string]string{"conf/kcl.yaml": "kcl_cli_configs:\n  files:\n    - ../p/main.k\n",
				"conf/r.txt": "conf\n", "p/r.txt": "p\n", "cwd/r.txt": "cwd\n",
				"p/main.k": "import file\na = file.read(\"r.txt\")\nw = file.workdir()\n"},
			cwd: "cwd", args: []string{"-Y", "../conf/kcl.yaml"},
			stdout: "a: |\n  cwd\nw: '../conf'\n",
		},
		{
			name: "entries on the command line keep the settings file's work dir",
			files: map[string]string{"conf/kcl.yaml": "kcl_cli_configs:\n  files:\n    - ../p/main.k\n",
				"p/main.k": "import file\nw = file.workdir()\n", "cwd/": ""},
			cwd: "cwd", args: []string{"../p/main.k", "-Y", "../conf/kcl.yaml"},
			stdout: "w: '../conf'\n",
		},
		{
			name: "a settings file without entries gives no work dir",
			files: map[string]string{"conf/opts.yaml": "kcl_options:\n  - key: x\n    value: 1\n",
				"p/main.k": "import file\nw = file.workdir()\n", "cwd/": ""},
			cwd: "cwd", args: []string{"../p/main.k", "-Y", "../conf/opts.yaml"},
			stdout: "w: ''\n",
		},
		{
			name: "a path that is not a string is empty",
			files: map[string]string{"main.k": `import file
import crypto
x: any = 1
a = file.exists(None)
b = file.glob(None)
c = file.exists(x)
`},
			stdout: "x: 1\na: false\nb: []\nc: false\n",
		},
		{
			name:  "crypto.filesha256 reads against the working directory",
			files: map[string]string{"w/hi.txt": "hi\n", "p/main.k": "import crypto\na = crypto.filesha256(\"hi.txt\")\n"},
			cwd:   "w", args: []string{"../p/main.k"},
			stdout: "a: '98ea6e4f216f2fb4b69fff9b3a44842c38686ca685f3f55dc48c5d3fb1107be4'\n",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			files := map[string]string{}
			for name, content := range c.files {
				files[name] = strings.ReplaceAll(content, "${DIR}", dir)
			}
			makeTree(t, dir, files)
			code, out, errOut := runIn(t, filepath.Join(dir, c.cwd), append([]string{"run"}, c.args...)...)
			want := strings.ReplaceAll(c.stdout, "${DIR}", dir)
			if code != 0 || out != want {
				t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s\nwant stdout:\n%s", code, out, errOut, want)
			}
		})
	}
}

// A failed read is refused with 0.12.1's words, the OS error printed as
// Rust prints it (measured with kcl-official, as above).
func TestFailedReadsAsTheOfficialCLI(t *testing.T) {
	cases := map[string]string{
		`file.read("nope.txt")`:     "failed to access the file 'nope.txt': No such file or directory (os error 2)",
		`file.read("")`:             "failed to access the file '': No such file or directory (os error 2)",
		`file.read(None)`:           "failed to access the file '': No such file or directory (os error 2)",
		`file.read(".")`:            "failed to access the file '.': Is a directory (os error 21)",
		`file.read("hi.txt/")`:      "failed to access the file 'hi.txt/': Not a directory (os error 20)",
		`file.read("bin.txt")`:      "failed to access the file 'bin.txt': stream did not contain valid UTF-8",
		`file.read("broken")`:       "failed to access the file 'broken': No such file or directory (os error 2)",
		`file.size("nope")`:         "failed to get size of 'nope': No such file or directory (os error 2)",
		`file.size(None)`:           "failed to get size of '': No such file or directory (os error 2)",
		`file.abs("nope")`:          "Could not get the absolute path of nope",
		`file.abs("")`:              "Could not get the absolute path of ",
		`file.abs("hi.txt/.")`:      "Could not get the absolute path of hi.txt/.",
		`crypto.filesha256("nope")`: "failed to access file 'nope': No such file or directory (os error 2)",
		`crypto.filesha256(".")`:    "failed to read file '.': Is a directory (os error 21)",
		`crypto.filesha256(None)`:   "failed to access file '': No such file or directory (os error 2)",
		`file.glob("[")`:            "Failed to read glob pattern: Pattern syntax error near position 0: invalid range pattern",
		`file.glob("[!]")`:          "Failed to read glob pattern: Pattern syntax error near position 0: invalid range pattern",
		`file.glob("x/[/]")`:        "Failed to read glob pattern: Pattern syntax error near position 0: invalid range pattern",
		`file.glob("a**")`:          "Failed to read glob pattern: Pattern syntax error near position 0: recursive wildcards must form a single path component",
		`file.glob("**a")`:          "Failed to read glob pattern: Pattern syntax error near position 2: recursive wildcards must form a single path component",
		`file.glob("***")`:          "Failed to read glob pattern: Pattern syntax error near position 2: wildcards are either regular `*` or recursive `**`",
		`file.glob("é/**b")`:        "Failed to read glob pattern: Pattern syntax error near position 4: recursive wildcards must form a single path component",
	}
	for call, msg := range cases {
		t.Run(call, func(t *testing.T) {
			dir := t.TempDir()
			makeTree(t, dir, map[string]string{"hi.txt": "hi\n", "bin.txt": "\xff\xfe", "broken": "-> nowhere",
				"main.k": "import file\nimport crypto\na = " + call + "\n"})
			code, out, errOut := runIn(t, dir, "run", "main.k")
			want := strings.ReplaceAll(failure(3, "a = "+call, msg), "${DIR}", dir)
			if code != 1 || errOut != want {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant:\n%s", code, out, errOut, want)
			}
		})
	}
}

// file.glob lists as the Rust glob crate does, not as filepath.Glob:
// dotfiles match *, byte order per directory, depth first, ** at any depth,
// "." and ".." for a pattern starting with ".", literal components kept as
// written, a broken symlink named outright listed (kcl-official's answers).
func TestGlobAsTheOfficialCLI(t *testing.T) {
	dir := t.TempDir()
	makeTree(t, dir, map[string]string{"b.txt": "", "a.txt": "", ".hid.txt": "", "C.txt": "",
		"d/x.txt": "", "d/e/y.txt": "", "d/.h/q.txt": "", "z/1.txt": "", "A/": "",
		"lnk": "-> d", "broken.txt": "-> nowhere", "main.k": `import file
a = file.glob("*")
b = file.glob("./*.txt")
c = file.glob("**/*.txt")
d = file.glob("d/**")
e = file.glob("*/")
f = file.glob("[!a-b]*.txt")
g = file.glob("?.txt")
h = file.glob("nope/*")
i = file.glob("")
j = file.glob("d/./e/../x.txt")
k = file.glob("{a,b}.txt")
l = file.glob("d//x.txt")
m = file.glob(".*")
n = file.glob("d/.*")
o = file.glob("a.txt/*")
p = file.glob("**")
q = file.glob("[a-]*")
r = file.glob("./d/../*.txt")
s = file.glob("broken.txt")
t = file.glob("**/**/e")
u = file.glob("/")
v = file.glob("./")
w = file.glob("*/..")
x = file.glob("**/.*")
y = file.glob("../` + filepath.Base(dir) + `/d/*")
`})
	code, out, errOut := runIn(t, dir, "run", "main.k")
	const want = `a:
- '.hid.txt'
- A
- C.txt
- a.txt
- b.txt
- broken.txt
- d
- lnk
- main.k
- z
b:
- '.hid.txt'
- C.txt
- a.txt
- b.txt
- broken.txt
c:
- '.hid.txt'
- C.txt
- a.txt
- b.txt
- broken.txt
- d/.h/q.txt
- d/e/y.txt
- d/x.txt
- lnk/.h/q.txt
- lnk/e/y.txt
- lnk/x.txt
- z/1.txt
d:
- d/.h
- d/e
e:
- A
- d
- lnk
- z
f:
- '.hid.txt'
- C.txt
g:
- C.txt
- a.txt
- b.txt
h: []
i: []
j:
- d/./e/../x.txt
k: []
l:
- d/x.txt
m:
- './..'
- './.'
- '.hid.txt'
'n':
- d/..
- d/.
- d/.h
o: []
p:
- A
- d
- d/.h
- d/e
- lnk
- lnk/.h
- lnk/e
- z
q:
- a.txt
r:
- d/../.hid.txt
- d/../C.txt
- d/../a.txt
- d/../b.txt
- d/../broken.txt
s:
- broken.txt
t:
- d/e
- lnk/e
u:
- /
v:
- '.'
w:
- A/..
- d/..
- lnk/..
- z/..
x:
- '.hid.txt'
- d/.h
- lnk/.h
'y':
- '../${BASE}/d/.h'
- '../${BASE}/d/e'
- '../${BASE}/d/x.txt'
`
	if w := strings.ReplaceAll(want, "${BASE}", filepath.Base(dir)); code != 0 || out != w {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s\nwant:\n%s", code, out, errOut, w)
	}
}
