package kcl

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// An option value of a settings file keeps its own keys as written; the
// dicts nested in it are ordered by key, as 0.12.1 prints them (its order of
// the outer keys varies from run to run; ours is the file's).
func TestSettingsOptionNestedKeysAreSorted(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("main.k", "a = option(\"a\")\nb = option(\"b\")\n")
	write("s.yaml", `kcl_options:
  - key: a
    value:
      zeta:
        z3:
          y: 1
          b: 2
        a3: 1
      alpha: 1
  - key: b
    value: [{q: 1, c: 2}, 3]
`)
	res, err := Run(context.Background(), Options{WorkDir: dir, Root: dir, Files: []string{"main.k"}, Settings: []string{"s.yaml"}})
	if err != nil {
		t.Fatal(err)
	}
	want := `a:
  zeta:
    a3: 1
    z3:
      b: 2
      'y': 1
  alpha: 1
b:
- c: 2
  q: 1
- 3
`
	if string(res.YAML) != want {
		t.Errorf("got\n%s\nwant\n%s", res.YAML, want)
	}
}
