package eval_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kcl-lang/flux-kcl-controller/kcl"
)

// FuzzEval runs arbitrary programs under tight limits: the engine must end
// with a result or a program error, never panic or hang.
func FuzzEval(f *testing.F) {
	seeds := []string{
		"a = 1\n",
		"schema A:\n    x: int = 1\n    y = x + 1\na = A {x = 2}\n",
		"a = [i * 2 for i in range(10) if i % 2]\nb = {k: v for k, v in {x = 1}}\n",
		"f = lambda x { x + 1 }\nb = f(1)\n",
		"a = {x.y.z = 1} | {x.y.w = 2}\n",
		"schema B:\n    [k: str]: int\n    check:\n        len(k) > 0\nb = B {a = 1}\n",
		"a = \"${1 + 2:#json}\"\n",
		"if True:\n    a = 1\nelse:\n    a = 2\n",
		"import json\na = json.encode({a = [1, None, True]})\n",
		"a = all x in [1, 2] { x > 0 }\n",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, src string) {
		if err := os.WriteFile(filepath.Join(dir, "main.k"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := kcl.Run(context.Background(), kcl.Options{
			WorkDir: dir,
			Files:   []string{"main.k"},
			Limits:  kcl.Limits{Timeout: 2 * time.Second, MaxDepth: 100, MaxValues: 200_000, MaxOutputBytes: 1 << 20},
		})
		var kerr *kcl.Error
		if errors.As(err, &kerr) && kerr.Kind == kcl.InternalErrorKind {
			t.Fatalf("engine panic on %q: %s", src, kerr.Message)
		}
	})
}
