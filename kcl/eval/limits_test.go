package eval_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kcl-lang/flux-kcl-controller/kcl"
)

// runProgram writes files into a fresh program root and runs main.k.
func runProgram(t testing.TB, files map[string]string, limits kcl.Limits) (*kcl.Result, error) {
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
	return kcl.Run(context.Background(), kcl.Options{WorkDir: dir, Files: []string{"main.k"}, Limits: limits})
}

// wantProgramError asserts a *kcl.Error whose kind and message contain the
// given texts.
func wantProgramError(t *testing.T, err error, kind, msg string) {
	t.Helper()
	var kerr *kcl.Error
	if !errors.As(err, &kerr) {
		t.Fatalf("want a program error, got %v", err)
	}
	if !strings.Contains(kerr.Kind, kind) || !strings.Contains(kerr.Message, msg) {
		t.Fatalf("want %s containing %q, got %s: %s", kind, msg, kerr.Kind, kerr.Message)
	}
}

func TestInfiniteRecursionStopsAtDepthLimit(t *testing.T) {
	_, err := runProgram(t, map[string]string{"main.k": "f = lambda n { f(n + 1) }\na = f(0)\n"}, kcl.Limits{MaxDepth: 200})
	wantProgramError(t, err, "RecursionError", "maximum recursion depth exceeded")
}

func TestRecursiveSchemaStopsAtDepthLimit(t *testing.T) {
	src := "schema Node:\n    next: Node = Node {}\n\nn = Node {}\n"
	_, err := runProgram(t, map[string]string{"main.k": src}, kcl.Limits{MaxDepth: 100})
	wantProgramError(t, err, "RecursionError", "maximum recursion depth exceeded")
}

func TestHugeListIsRefused(t *testing.T) {
	_, err := runProgram(t, map[string]string{"main.k": "a = [0] * 10**12\n"}, kcl.Limits{})
	wantProgramError(t, err, "LimitError", "")
}

func TestHugeComprehensionHitsValueLimit(t *testing.T) {
	_, err := runProgram(t, map[string]string{"main.k": "a = [x for x in range(10**10)]\n"}, kcl.Limits{MaxValues: 100_000})
	wantProgramError(t, err, "LimitError", "")
}

func TestDeadlineEndsLongPrograms(t *testing.T) {
	src := "a = [[i * j for i in range(3000)] for j in range(3000)]\n"
	_, err := runProgram(t, map[string]string{"main.k": src}, kcl.Limits{Timeout: 50 * time.Millisecond})
	wantProgramError(t, err, "", "deadline")
}

func TestOutputSizeIsCapped(t *testing.T) {
	src := "a = [\"x\" * 1000 for _ in range(1000)]\n"
	_, err := runProgram(t, map[string]string{"main.k": src}, kcl.Limits{MaxOutputBytes: 10_000})
	wantProgramError(t, err, "LimitError", "output")
}

func TestFileReadCannotLeaveTheProgramRoot(t *testing.T) {
	for name, path := range map[string]string{
		"absolute": "/etc/passwd",
		"relative": "../../../../../../etc/passwd",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := runProgram(t, map[string]string{"main.k": "import file\na = file.read(\"" + path + "\")\n"}, kcl.Limits{})
			wantProgramError(t, err, "", "outside the program root")
		})
	}
}

func TestSymlinkCannotLeaveTheProgramRoot(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "link.txt")); err != nil {
		t.Skip("symlinks unavailable:", err)
	}
	if err := os.Symlink("/etc", filepath.Join(dir, "etc")); err != nil {
		t.Fatal(err)
	}
	for name, src := range map[string]string{
		"file link": "import file\na = file.read(\"link.txt\")\n",
		"dir link":  "import file\na = file.read(\"etc/passwd\")\n",
		"import":    "import etc.passwd\n",
	} {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(filepath.Join(dir, "main.k"), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := kcl.Run(context.Background(), kcl.Options{WorkDir: dir, Files: []string{"main.k"}})
			if err == nil {
				t.Fatalf("read through a symlink succeeded: %s", res.YAML)
			}
			if strings.Contains(err.Error(), "root:") {
				t.Fatalf("error leaks file content: %v", err)
			}
		})
	}
}

func TestEntryFileOutsideRootIsRefused(t *testing.T) {
	dir := t.TempDir()
	_, err := kcl.Run(context.Background(), kcl.Options{WorkDir: dir, Files: []string{"../../../etc/hostname"}})
	if err == nil {
		t.Fatal("an entry file outside the program root was read")
	}
}

func TestFileOverridesReplaceSources(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.k"), []byte("image = \"app:v1\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := kcl.Run(context.Background(), kcl.Options{
		WorkDir:       dir,
		Files:         []string{"main.k"},
		FileOverrides: map[string][]byte{"main.k": []byte("image = \"app:v2\"\n")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(res.YAML); got != "image: app:v2\n" {
		t.Fatalf("got %q", got)
	}
}
