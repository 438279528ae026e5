package realprograms

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestBinKclRun runs each real-like program the way a user runs it: the
// bin/kcl binary, built from kcl/cmd/kcl, executed in the program's folder
// with its files and -D arguments; kcl.mod's dependencies are resolved by the
// binary itself. Its stdout must equal the official engine's output.
func TestBinKclRun(t *testing.T) {
	progs, err := RealLike(realLikeDir)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "kcl")
	build := exec.Command("go", "build", "-o", bin, "github.com/kcl-lang/flux-kcl-controller/kcl/cmd/kcl")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build kcl/cmd/kcl: %v\n%s", err, out)
	}
	for _, p := range progs {
		t.Run(p.Name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(p.Dir, "expected.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			cmd := exec.Command(bin, append([]string{"run"}, p.UserCommandLine()...)...)
			cmd.Dir, cmd.Stdout, cmd.Stderr = p.Dir, &stdout, &stderr
			// The real-like programs carry their packages: nothing is fetched.
			cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir())
			err = cmd.Run()
			same := err == nil && sameYAML(stdout.Bytes(), want)
			switch {
			case p.KnownDiff != "" && same:
				t.Fatalf("output now equals the official engine's: delete %s/KNOWN_DIFF", p.Dir)
			case p.KnownDiff != "":
				t.Skipf("known difference: %s", p.KnownDiff)
			case err != nil:
				t.Fatalf("bin/kcl run: %v\n%s", err, stderr.String())
			case !same:
				t.Fatalf("output differs from the official engine's\n--- got\n%s\n--- want\n%s", stdout.String(), want)
			}
		})
	}
}
