package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// Shapes found by running the public programs (kcl-lang/examples,
// kcl-lang/konfig, kcl-lang/kcl's test programs) as users run them. Each
// answer is what the official kcl run 0.12.1 printed for the same files and
// arguments (kcl-official), blank lines aside; ${DIR} is the program's folder.
// For a missing package the add-on prints its parser's "pkgpath … not found in
// the program" diagnostics first; the CLI prints only what follows them.
var publicCases = []struct {
	name  string
	files map[string]string
	in    string // the working directory below the program's folder
	args  []string
	code  int
	want  string // stdout, or stderr when code is 1
}{{
	name:  "an -O value is located where the value it replaces stood (examples/automation)",
	files: map[string]string{"main.k": "schema App:\n    name: str\n    replicas: int\n\napp: App {\n    name = \"app\"\n    replicas = 1\n}\n"},
	args:  []string{"main.k", "-O", "app.name=new_app"},
	code:  1,
	want: `error[E2L23]: CompileError
 --> ${DIR}/main.k:6:5
  |
6 |     name = "app"
  |     ^ name 'new_app' is not defined
  |`,
}, {
	name:  "what lies inside an -O value has no position",
	files: map[string]string{"main.k": "schema App:\n    name: str\n    replicas: int\n\napp: App {\n    name = \"app\"\n    replicas = 1\n}\n"},
	args:  []string{"main.k", "-O", "app.replicas=[1,zz]"},
	code:  1,
	want: `error[E2L23]: CompileError
name 'zz' is not defined
error[E2G22]: TypeError
 --> ${DIR}/main.k:7:5
  |
7 |     replicas = 1
  |     ^ expected int, got [any]
  |
 --> ${DIR}/main.k:3:5
  |
3 |     replicas: int
  |     ^ variable is defined here, its type is int, but got [any]
  |`,
}, {
	name:  "a name -O adds to a file that lacks it is declared nowhere",
	files: map[string]string{"main.k": "x = 1\n", "other.k": "y = 2\n"},
	args:  []string{"main.k", "other.k", "-O", "y=3"},
	code:  1,
	want: `error[E1001]: ImmutableError
 --> ${DIR}/other.k:1:1
  |
1 | y = 2
  | ^ Can not change the value of 'y', because it was declared immutable
  |
The variable 'y' is declared here
note: change the variable name to '_y' to make it mutable`,
}, {
	name:  "the artifacthub suggestion is printed once (crates/api/src/testdata/hello_import.k)",
	files: map[string]string{"main.k": "import external as ext\nimport external_1 as ext_1\n\na = ext.a\na1 = ext_1.a\n"},
	args:  []string{"main.k"},
	code:  1,
	want: `error[E2F04]: CannotFindModule
 --> ${DIR}/main.k:1:1
  |
1 | import external as ext
  | ^ Cannot find the module external from ${DIR}/external
  |
suggestion: try 'kcl mod add external' to download the missing package
suggestion: browse more packages at 'https://artifacthub.io'
error[E2F04]: CannotFindModule
 --> ${DIR}/main.k:2:1
  |
2 | import external_1 as ext_1
  | ^ Cannot find the module external_1 from ${DIR}/external_1
  |
suggestion: try 'kcl mod add external_1' to download the missing package
error[E2G22]: TypeError
 --> ${DIR}/main.k:4:5
  |
4 | a = ext.a
  |     ^ attribute 'a' not found in 'module 'external''
  |
error[E2G22]: TypeError
 --> ${DIR}/main.k:5:6
  |
5 | a1 = ext_1.a
  |      ^ attribute 'a' not found in 'module 'external_1''
  |`,
}, {
	name:  "an external package without a kcl.mod is none",
	files: map[string]string{"main.k": "import foo\n\na = foo.x\n", "nomod/x.k": "x = 1\n"},
	args:  []string{"main.k", "-E", "foo=nomod"},
	code:  1,
	want:  missingFoo,
}, {
	name:  "an external package mapped to no folder is none",
	files: map[string]string{"main.k": "import foo\n\na = foo.x\n"},
	args:  []string{"main.k", "-E", "foo=nowhere"},
	code:  1,
	want:  missingFoo,
}, {
	name:  "package_maps written for another work dir (crates/cmd/src/test_data/instances)",
	files: map[string]string{"main.k": "a = 1\n", "kcl.yaml": "kcl_cli_configs:\n  package_maps:\n    foo: ./src/test_data/foo\n"},
	args:  []string{"main.k"},
	want:  "a: 1",
}, {
	name:  "an entry in an external package without a kcl.mod",
	files: map[string]string{"nomod/x.k": "x = 1\n"},
	args:  []string{"${foo:KCL_MOD}/x.k", "-E", "foo=nomod"},
	code:  1,
	want:  "error[E3M38]: Cannot find the kcl file, please check the file path ${foo:KCL_MOD}/x.k",
}, {
	name:  "kcl run in a folder with a kcl.mod inside another's (crates/query/src/test_data/get_schema_ty/aaa)",
	files: map[string]string{"kcl.mod": "[package]\nname = \"outer\"\n", "inner/kcl.mod": "[package]\nname = \"inner\"\n", "inner/main.k": "import bbb as b\n\nx = b.x\n"},
	in:    "inner",
	code:  1,
	want: `error[E2F04]: CannotFindModule
 --> ${DIR}/inner/main.k:1:1
  |
1 | import bbb as b
  | ^ Cannot find the module bbb from ${DIR}/inner/bbb
  |
suggestion: try 'kcl mod add bbb' to download the missing package
suggestion: browse more packages at 'https://artifacthub.io'
error[E2G22]: TypeError
 --> ${DIR}/inner/main.k:3:5
  |
3 | x = b.x
  |     ^ attribute 'x' not found in 'module 'bbb''
  |`,
}, {
	name:  "a folder without KCL files",
	files: map[string]string{"values.yaml": "a: 1\n"},
	code:  1,
	want:  "error[E3M38]: No input KCL files",
}, {
	name:  "an import name given to two packages is defined multiple times (parser/testdata/import-01.k's subpkg/b1/c1.k)",
	files: map[string]string{"main.k": "import sub.c\nimport .a3\n", "sub/c.k": "import .a3\nimport ..a3\n", "sub/a3.k": "x = 1\n", "a3.k": "y = 1\n"},
	args:  []string{"main.k"},
	code:  1,
	want: `error[E2L23]: CompileError
 --> ${DIR}/sub/c.k:2:1
  |
2 | import ..a3
  | ^ the name 'a3' is defined multiple times, 'a3' must be defined only once
  |`,
}, {
	name:  "a relative import from a file imported as a package climbs from the file's folder",
	files: map[string]string{"main.k": "import sub.b.c\n", "sub/b/c.k": "import ..a3\nimport ...a3\n", "sub/a3.k": "x = 1\n"},
	args:  []string{"main.k"},
	code:  1,
	want: `error[E2F04]: CannotFindModule
 --> ${DIR}/sub/b/c.k:2:1
  |
2 | import ...a3
  | ^ Cannot find the module ...a3 from ${DIR}/a3
  |
suggestion: try 'kcl mod add a3' to download the missing package
suggestion: browse more packages at 'https://artifacthub.io'
error[E2L23]: CompileError
 --> ${DIR}/sub/b/c.k:2:1
  |
2 | import ...a3
  | ^ the name 'a3' is defined multiple times, 'a3' must be defined only once
  |`,
}, {
	name:  "every import of a missing package is reported",
	files: map[string]string{"main.k": "import nope\nimport nope as n2\nimport math as nope\n"},
	args:  []string{"main.k"},
	code:  1,
	want: `error[E2F04]: CannotFindModule
 --> ${DIR}/main.k:1:1
  |
1 | import nope
  | ^ Cannot find the module nope from ${DIR}/nope
  |
suggestion: try 'kcl mod add nope' to download the missing package
suggestion: browse more packages at 'https://artifacthub.io'
error[E2F04]: CannotFindModule
 --> ${DIR}/main.k:2:1
  |
2 | import nope as n2
  | ^ Cannot find the module nope from ${DIR}/nope
  |
error[E2L23]: CompileError
 --> ${DIR}/main.k:3:1
  |
3 | import math as nope
  | ^ the name 'nope' is defined multiple times, 'nope' must be defined only once
  |`,
}, {
	name:  "a relative import above the package root names the root, however far it climbs",
	files: map[string]string{"kcl.mod": "[package]\nname = \"p\"\n", "s1/main.k": "import ...up2\nimport ....up3\n"},
	args:  []string{"s1/main.k"},
	code:  1,
	want: `error[E2F04]: CannotFindModule
 --> ${DIR}/s1/main.k:1:1
  |
1 | import ...up2
  | ^ Failed to import the module ...up2 from ${DIR}/. No KCL files found in the specified folder
  |
error[E2F04]: CannotFindModule
 --> ${DIR}/s1/main.k:2:1
  |
2 | import ....up3
  | ^ Failed to import the module ....up3 from ${DIR}/. No KCL files found in the specified folder
  |`,
}, {
	name:  "a type alias of a union is no schema name",
	files: map[string]string{"main.k": "schema S:\n    a: int = 1\n\ntype A = S | int\nx: A {}\n"},
	args:  []string{"main.k"},
	code:  1,
	want: `error[E2L23]: CompileError
 --> ${DIR}/main.k:5:4
  |
5 | x: A {}
  |    ^ Invalid schema type 'S | int'
  |`,
}, {
	name:  "an any-typed int used as a schema fails where the runtime is: its last config entry",
	files: map[string]string{"main.k": "a: any = 1\nx = a {\n    b = 1\n}\n"},
	args:  []string{"main.k"},
	code:  1,
	want: `error[E3M38]: EvaluationError
 --> ${DIR}/main.k:3:1
  |
3 |     b = 1
  |  unsupported operand type(s) for |: '"int"' and '"dict"'
  |`,
}}

const missingFoo = `error[E2F04]: CannotFindModule
 --> ${DIR}/main.k:1:1
  |
1 | import foo
  | ^ Cannot find the module foo from ${DIR}/foo
  |
suggestion: try 'kcl mod add foo' to download the missing package
suggestion: browse more packages at 'https://artifacthub.io'
error[E2G22]: TypeError
 --> ${DIR}/main.k:3:5
  |
3 | a = foo.x
  |     ^ attribute 'x' not found in 'module 'foo''
  |`

func TestPublicProgramShapes(t *testing.T) {
	for _, c := range publicCases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeFiles(t, c.files)
			code, out, errOut := runIn(t, filepath.Join(dir, c.in), append([]string{"run"}, c.args...)...)
			got := out
			if c.code != 0 {
				got = errOut
			}
			want := strings.ReplaceAll(c.want, "${DIR}", filepath.Clean(dir))
			if code != c.code || nonBlank(got) != want {
				t.Fatalf("code %d (want %d), stdout %q\nstderr:\n%s\nwant:\n%s", code, c.code, out, errOut, want)
			}
		})
	}
}

// nonBlank is text without its blank lines, as the answers are written.
func nonBlank(s string) string {
	var kept []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n")
}
