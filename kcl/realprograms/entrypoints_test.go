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
	bin := buildBinKcl(t)
	for _, p := range progs {
		t.Run(p.Name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(p.Dir, "expected.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := runBinKcl(t, bin, p)
			CheckVerdict(t, p, "bin/kcl run", err, sameYAML(got, want), string(got), string(want))
		})
	}
}

// buildBinKcl builds kcl/cmd/kcl into a temporary folder.
func buildBinKcl(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "kcl")
	build := exec.Command("go", "build", "-o", bin, "github.com/kcl-lang/flux-kcl-controller/kcl/cmd/kcl")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build kcl/cmd/kcl: %v\n%s", err, out)
	}
	return bin
}

// runBinKcl runs p with bin in p's folder as a user types it and returns
// its stdout.
func runBinKcl(t *testing.T, bin string, p Program) ([]byte, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, append([]string{"run"}, p.UserCommandLine()...)...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = p.Dir, &stdout, &stderr
	// The programs carry their packages or name them with -E: nothing is
	// fetched, and an empty cache makes sure of it.
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir())
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%w\n%s", err, stderr.String())
	}
	return stdout.Bytes(), nil
}

// TestK8sDeployment runs the k8s-importing program (K8sDeployment, the
// module from $KCL_K8S_MODULE) through the Go API and bin/kcl, whose -E
// must win over the program's kcl.mod (k8s = "1.29"), and compares both
// outputs byte for byte with the official engine's (expected.yaml).
func TestK8sDeployment(t *testing.T) {
	module := os.Getenv(K8sModuleEnv)
	if module == "" {
		t.Skip(K8sModuleEnv + " is not set (the k8s 1.29 folder of kcl-lang/modules): the k8s-importing program is not run")
	}
	p, err := K8sDeployment(testdataDir, module)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(p.Dir, "expected.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := runOurs(p)
	CheckVerdict(t, p, "run", err, sameYAML(got, want), string(got), string(want))
	got, err = runBinKcl(t, buildBinKcl(t), p)
	CheckVerdict(t, p, "bin/kcl run", err, sameYAML(got, want), string(got), string(want))
}
