package realprograms

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/kcl"
	"github.com/kcl-lang/flux-kcl-controller/kcl/eval"
)

const (
	testdataDir = "../testdata"
	realLikeDir = testdataDir + "/real_like"
)

// TestRealLike runs the repository's real-like programs and compares each
// output byte for byte with the official engine's (expected.yaml).
func TestRealLike(t *testing.T) {
	progs, err := RealLike(realLikeDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(progs) == 0 {
		t.Fatal("no programs under " + realLikeDir)
	}
	for _, p := range progs {
		t.Run(p.Name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(p.Dir, "expected.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := runOurs(p)
			CheckVerdict(t, p, "run", err, sameYAML(got, want), string(got), string(want))
		})
	}
}

// TestPublicPrograms runs the public programs found under $KCL_REAL_PROGRAMS
// (see Public) and, when the official engine is installed
// (KCL_OFFICIAL_NODE_MODULES, or the cache kcl/hack/oracle.sh fills), compares
// their outputs byte for byte.
func TestPublicPrograms(t *testing.T) {
	root := os.Getenv("KCL_REAL_PROGRAMS")
	if root == "" {
		t.Skip("KCL_REAL_PROGRAMS is not set")
	}
	progs := Public(root)
	if len(progs) == 0 {
		t.Fatalf("no public programs under %s", root)
	}
	nodeModules := officialNodeModules()
	for _, p := range progs {
		t.Run(p.Name, func(t *testing.T) {
			got, err := runOurs(p)
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			if nodeModules == "" {
				t.Logf("official engine not installed: output not compared (%d bytes)", len(got))
				return
			}
			want, err := runOfficial(nodeModules, p)
			if err != nil {
				t.Fatalf("official engine: %v", err)
			}
			if !sameYAML(got, want) {
				t.Fatalf("output differs from the official engine's\n--- got\n%s\n--- want\n%s", got, want)
			}
		})
	}
}

// TestParseCacheSharedAcrossRuns checks that a second run of the same program
// in the process parses nothing: every file comes from the shared cache.
func TestParseCacheSharedAcrossRuns(t *testing.T) {
	progs, err := RealLike(realLikeDir)
	if err != nil {
		t.Fatal(err)
	}
	var p Program
	for _, q := range progs {
		if q.Name == "konfig_app" {
			p = q
		}
	}
	if p.Name == "" {
		t.Fatal("konfig_app is missing")
	}
	if _, err := runOurs(p); err != nil {
		t.Fatal(err)
	}
	before := eval.ParseCacheStats()
	if _, err := runOurs(p); err != nil {
		t.Fatal(err)
	}
	after := eval.ParseCacheStats()
	if parsed := after.Misses - before.Misses; parsed != 0 {
		t.Fatalf("second run parsed %d files, want 0", parsed)
	}
	if after.Hits <= before.Hits {
		t.Fatalf("second run took nothing from the cache (hits %d -> %d)", before.Hits, after.Hits)
	}
}

func runOurs(p Program) ([]byte, error) {
	res, err := kcl.Run(context.Background(), p.Options())
	if err != nil {
		return nil, err
	}
	return res.YAML, nil
}

// sameYAML compares outputs up to the final newline, which `kcl run` adds when
// printing and the engines' APIs leave out.
func sameYAML(a, b []byte) bool {
	return bytes.Equal(bytes.TrimRight(a, "\n"), bytes.TrimRight(b, "\n"))
}

// officialNodeModules finds an installed official engine, or "".
func officialNodeModules() string {
	if _, err := exec.LookPath("node"); err != nil {
		return ""
	}
	candidates := []string{os.Getenv("KCL_OFFICIAL_NODE_MODULES")}
	if home, err := os.UserHomeDir(); err == nil {
		candidates = append(candidates, filepath.Join(home, ".cache", "flux-kcl-controller", "kcl-official", "node_modules"))
	}
	for _, c := range candidates {
		if c == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(c, "@kcl-lang", "lib-linux-x64-gnu", "package.json")); err == nil {
			return c
		}
	}
	return ""
}

// runOfficial runs the program once through kcl/hack/bench-official.js.
func runOfficial(nodeModules string, p Program) ([]byte, error) {
	script, err := filepath.Abs("../hack/bench-official.js")
	if err != nil {
		return nil, err
	}
	args := []string{script, "-print"}
	for name, dir := range p.allExternal() {
		args = append(args, "-E", name+"="+dir)
	}
	for _, a := range p.Args {
		args = append(args, "-D", a)
	}
	args = append(args, nodeModules, p.Dir)
	args = append(args, p.Files...)
	var stderr bytes.Buffer
	cmd := exec.Command("node", args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, &officialError{err: err, stderr: stderr.String()}
	}
	return out, nil
}

type officialError struct {
	err    error
	stderr string
}

func (e *officialError) Error() string { return e.err.Error() + ": " + e.stderr }
func (e *officialError) Unwrap() error { return e.err }
