package eval_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/kcl"
)

// runFiles writes files into a fresh program root and runs the given entries
// (none: the root folder), as `kcl run f1.k f2.k` there.
func runFiles(t *testing.T, files map[string]string, entries ...string) string {
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
	res, err := kcl.Run(context.Background(), kcl.Options{WorkDir: dir, Files: entries})
	return describeOutcome(res, err)
}

// An import in one file of the main package is visible in its other files, as
// in kcl run 0.12.1; in an imported package a name imported only by a sibling
// file passes the resolver but evaluates to Undefined.
func TestImportsAcrossFilesOfAPackage(t *testing.T) {
	for _, c := range []struct {
		name    string
		files   map[string]string
		entries []string
		want    string
	}{
		{"second file imports manifests", map[string]string{
			"main.k":              "apps = [{name = \"a\"}]\nmanifests.yaml_stream([{apiVersion = \"v1\", kind = \"ConfigMap\", metadata.name = a.name} for a in apps])\n",
			"kubernetes_render.k": "import manifests\nx = 1\n",
		}, []string{"main.k", "kubernetes_render.k"}, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a"},
		{"either order, a local package and an alias", map[string]string{
			"kcl.mod": "[package]\nname = \"b\"\n",
			"lib/l.k": "name = \"lib\"\n",
			"f1.k":    "a = json.encode({a = 1})\nb = lib.name\nc = m.yaml_stream\n",
			"f2.k":    "import json\nimport lib\nimport manifests as m\n",
		}, []string{"f2.k", "f1.k"}, "a: '{\"a\": 1}'\nb: lib"},
		{"schema and lambda bodies", map[string]string{
			"f1.k": "schema A:\n    v: str = json.encode({a = 1})\nf = lambda { yaml.encode({b = 2}) }\nx = A {}\ny = f()\n",
			"f2.k": "import json\nimport yaml\n",
		}, []string{"f1.k", "f2.k"}, "x:\n  v: '{\"a\": 1}'\n'y': |\n  b: 2"},
		{"the folder as the main package", map[string]string{
			"f1.k": "a = json.encode({a = 1})\n",
			"f2.k": "import json\nb = 1\n",
		}, nil, "a: '{\"a\": 1}'\nb: 1"},
		{"imported package", map[string]string{
			"kcl.mod":     "[package]\nname = \"i\"\n",
			"pkg/a_imp.k": "import json\nb = 1\n",
			"pkg/z_use.k": "a = json.encode({a = 1})\n",
			"main.k":      "import pkg\nx = pkg.a\n",
		}, []string{"main.k"}, "EvaluationError pkg/z_use.k:1 invalid value 'UndefinedType' to load attribute 'encode'"},
		{"no file imports it", map[string]string{
			"f1.k": "a = json.encode(1)\n",
			"f2.k": "b = 1\n",
		}, []string{"f1.k", "f2.k"}, "CompileError f1.k:1:5 name 'json' is not defined"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := runFiles(t, c.files, c.entries...); got != c.want {
				t.Fatalf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

// A type alias of a schema instantiates it, in its package and through an
// import (pkg.PersonOther {...}).
func TestSchemaThroughATypeAlias(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"local", map[string]string{
			"main.k": "schema Person:\n    name: str\ntype PO = Person\na = PO {name = \"x\"}\nb: PO = {name = \"y\"}\n",
		}, "a:\n  name: x\nb:\n  name: 'y'"},
		{"alias of an alias", map[string]string{
			"main.k": "schema P:\n    n: str = \"p\"\ntype A = P\ntype B = A\nb = B {}\n",
		}, "b:\n  'n': p"},
		{"imported", map[string]string{
			"kcl.mod":   "[package]\nname = \"app\"\n",
			"pkg/pkg.k": "type String = str\n\nschema Person:\n    name: String\n\ntype PersonOther = Person\n",
			"main.k":    "import pkg\n\nalice = pkg.Person { name = \"Alice\" }\nbob = pkg.PersonOther { name = \"Bob\" }\n",
		}, "alice:\n  name: Alice\nbob:\n  name: Bob"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := runFiles(t, c.files, "main.k"); got != c.want {
				t.Fatalf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}
