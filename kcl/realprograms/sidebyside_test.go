package realprograms

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/kcl"
)

// TestSideBySide times every program with this engine (testing.Benchmark over
// warm runs) and with the official engine (kcl/hack/bench-official.js, a warm
// execProgram loop in one node process) in the same run, and prints a table.
// It is a measurement, not a check: it asserts nothing about speed. Run it
// with kcl/hack/bench.sh (KCL_BENCH_SIDE_BY_SIDE=1; KCL_REAL_PROGRAMS adds the
// public programs, KCL_K8S_MODULE the k8s-importing one; KCL_BENCH_RUNS sets
// the official engine's runs).
func TestSideBySide(t *testing.T) {
	if os.Getenv("KCL_BENCH_SIDE_BY_SIDE") == "" {
		t.Skip("KCL_BENCH_SIDE_BY_SIDE is not set")
	}
	nodeModules := officialNodeModules()
	if nodeModules == "" {
		t.Skip("the official engine is not installed (kcl/hack/oracle.sh)")
	}
	runs := 20
	if n, err := strconv.Atoi(os.Getenv("KCL_BENCH_RUNS")); err == nil && n > 0 {
		runs = n
	}
	progs, err := RealLike(realLikeDir)
	if err != nil {
		t.Fatal(err)
	}
	var all []Program
	for _, p := range progs {
		if p.KnownDiff != "" {
			continue
		}
		all = append(all, p)
		if p.Name == "deployments" {
			p.Name, p.Args = "deployments-1000", []string{"n=1000"}
			all = append(all, p)
		}
	}
	if module := os.Getenv(K8sModuleEnv); module != "" {
		p, err := K8sDeployment(testdataDir, module)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, p)
	} else {
		t.Log(K8sModuleEnv + " is not set (the k8s 1.29 folder of kcl-lang/modules): the k8s-importing program is not timed")
	}
	if root := os.Getenv("KCL_REAL_PROGRAMS"); root != "" {
		for _, p := range Public(root) {
			// konfig's other examples resemble app_service; KCL_BENCH_ALL times them too.
			if !strings.HasPrefix(p.Name, "konfig/") || os.Getenv("KCL_BENCH_ALL") != "" {
				all = append(all, p)
			}
		}
	}
	var table strings.Builder
	fmt.Fprintf(&table, "%-26s %12s %12s %8s %12s %10s\n", "program", "ours ms/run", "official", "ratio", "ours allocs", "ours KiB")
	for _, p := range all {
		opts := p.Options()
		if _, err := kcl.Run(context.Background(), opts); err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		r := testing.Benchmark(func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := kcl.Run(context.Background(), opts); err != nil {
					b.Fatal(err)
				}
			}
		})
		ours := float64(r.NsPerOp()) / 1e6
		official, err := officialMsPerRun(nodeModules, p, runs)
		if err != nil {
			t.Fatalf("%s: official engine: %v", p.Name, err)
		}
		fmt.Fprintf(&table, "%-26s %12.2f %12.2f %7.1fx %12d %10d\n", p.Name, ours, official, official/ours, r.AllocsPerOp(), r.AllocedBytesPerOp()/1024)
	}
	t.Logf("warm runs, official = execProgram of 0.12.1 in node (%d runs after 3 warm-up runs)\n%s", runs, table.String())
}

// officialMsPerRun runs bench-official.js and reads its ms/run.
func officialMsPerRun(nodeModules string, p Program, runs int) (float64, error) {
	script, err := filepath.Abs("../hack/bench-official.js")
	if err != nil {
		return 0, err
	}
	args := []string{script, "-n", strconv.Itoa(runs)}
	for name, dir := range p.allExternal() {
		args = append(args, "-E", name+"="+dir)
	}
	for _, a := range p.Args {
		args = append(args, "-D", a)
	}
	args = append(args, nodeModules, p.Dir)
	args = append(args, p.Files...)
	out, err := exec.Command("node", args...).CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("%w: %s", err, out)
	}
	fields := strings.Fields(string(out))
	if len(fields) < 3 || fields[2] != "ms/run" {
		return 0, fmt.Errorf("unexpected output %q", out)
	}
	return strconv.ParseFloat(fields[1], 64)
}
