package compiler

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	programv1 "github.com/kcl-lang/flux-kcl-controller/proto/program/v1"
)

func TestApplySubstitutions(t *testing.T) {
	dir := t.TempDir()
	src := `a = "nginx:1.0" # {"$imagepolicy": "ns:p"}
b = "redis:6" # {"$imagepolicy": "ns:q"}
`
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sub", "main.k"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	at := func(lit string) (int64, int64) {
		i := int64(strings.Index(src, lit))
		return i, i + int64(len(lit))
	}
	s1, e1 := at(`"nginx:1.0"`)
	s2, e2 := at(`"redis:6"`)
	overrides, err := applySubstitutions(dir, ".", []*programv1.Substitution{
		{File: "sub/main.k", Start: s1, End: e1, Old: `"nginx:1.0"`, New: `"nginx:1.25.3"`},
		{File: "./sub/main.k", Start: s2, End: e2, Old: `"redis:6"`, New: `"redis:7.2"`},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.NewReplacer(`"nginx:1.0"`, `"nginx:1.25.3"`, `"redis:6"`, `"redis:7.2"`).Replace(src)
	if got := string(overrides["sub/main.k"]); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if on, _ := os.ReadFile(filepath.Join(dir, "sub", "main.k")); string(on) != src {
		t.Fatal("the file on disk was modified")
	}

	for name, sub := range map[string]*programv1.Substitution{
		"stale":   {File: "sub/main.k", Start: s1, End: e1, Old: `"nginx:0.9"`, New: `"x"`},
		"range":   {File: "sub/main.k", Start: 0, End: 10000, Old: "", New: ""},
		"escape":  {File: "../main.k", Start: 0, End: 1, Old: "a", New: "b"},
		"missing": {File: "nope.k", Start: 0, End: 1, Old: "a", New: "b"},
	} {
		if _, err := applySubstitutions(dir, ".", []*programv1.Substitution{sub}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	overlapping := []*programv1.Substitution{
		{File: "sub/main.k", Start: s1, End: e1, Old: `"nginx:1.0"`, New: "x"},
		{File: "sub/main.k", Start: s1 + 1, End: e1, Old: src[s1+1 : e1], New: "y"},
	}
	if _, err := applySubstitutions(dir, ".", overlapping); err == nil {
		t.Error("overlapping substitutions: no error")
	}
	// In a program at sub/, files are keyed relative to it; a file in another
	// folder of the artifact (an entry a settings file lists, ../sub/main.k
	// from other/) is keyed by its path from there, as the engine reads it.
	inSub, err := applySubstitutions(dir, "sub", overlapping[:1])
	if err != nil || inSub["main.k"] == nil {
		t.Errorf("program at sub/: got %v, %v; want main.k edited", inSub, err)
	}
	beside, err := applySubstitutions(dir, "other", overlapping[:1])
	if err != nil || beside[filepath.Join("..", "sub", "main.k")] == nil {
		t.Errorf("program at other/: got %v, %v; want ../sub/main.k edited", beside, err)
	}
}
