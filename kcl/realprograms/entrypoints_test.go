package realprograms

import (
	"bytes"
	"fmt"
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
			if err != nil {
				err = fmt.Errorf("%w\n%s", err, stderr.String())
			}
			CheckVerdict(t, p, "bin/kcl run", err, sameYAML(stdout.Bytes(), want), stdout.String(), string(want))
		})
	}
}
