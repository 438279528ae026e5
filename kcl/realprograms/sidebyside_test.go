package realprograms

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

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
	fmt.Fprintf(&table, "%-26s %12s %12s %8s %12s %12s %8s %12s %10s\n", "program", "ours ms/run", "official", "ratio",
		"ours cpu-ms", "official cpu", "ratio", "ours allocs", "ours KiB")
	for _, p := range all {
		opts := p.Options()
		if _, err := kcl.Run(context.Background(), opts); err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		// testing.Benchmark calls the function with growing b.N; the CPU
		// time kept is that of the last call, the one it reports.
		var cpu time.Duration
		r := testing.Benchmark(func(b *testing.B) {
			b.ReportAllocs()
			c0 := processCPU(b)
			for b.Loop() {
				if _, err := kcl.Run(context.Background(), opts); err != nil {
					b.Fatal(err)
				}
			}
			cpu = processCPU(b) - c0
		})
		ours := float64(r.NsPerOp()) / 1e6
		oursCPU := float64(cpu) / 1e6 / float64(r.N)
		official, officialCPU, err := officialMsPerRun(nodeModules, p, runs)
		if err != nil {
			t.Fatalf("%s: official engine: %v", p.Name, err)
		}
		fmt.Fprintf(&table, "%-26s %12.2f %12.2f %7.1fx %12.2f %12.2f %7.1fx %12d %10d\n", p.Name, ours, official, official/ours,
			oursCPU, officialCPU, officialCPU/oursCPU, r.AllocsPerOp(), r.AllocedBytesPerOp()/1024)
	}
	t.Logf("warm runs, official = execProgram of 0.12.1 in node (%d runs after 3 warm-up runs); "+
		"cpu = the process's user+system time per run (GC included), which a busy machine disturbs less than wall time\n%s", runs, table.String())
}

// processCPU is the process's user and system time so far.
func processCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// officialMsPerRun runs bench-official.js and reads its wall and CPU ms/run.
func officialMsPerRun(nodeModules string, p Program, runs int) (wall, cpu float64, err error) {
	script, err := filepath.Abs("../hack/bench-official.js")
	if err != nil {
		return 0, 0, err
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
		return 0, 0, fmt.Errorf("%w: %s", err, out)
	}
	fields := strings.Fields(string(out))
	if len(fields) < 8 || fields[2] != "ms/run" {
		return 0, 0, fmt.Errorf("unexpected output %q", out)
	}
	if wall, err = strconv.ParseFloat(fields[1], 64); err != nil {
		return 0, 0, fmt.Errorf("unexpected output %q: %w", out, err)
	}
	cpuText, ok := strings.CutPrefix(fields[7], "cpu=")
	if cpuText, ok = strings.CutSuffix(cpuText, "ms/run"); !ok {
		return 0, 0, fmt.Errorf("unexpected output %q", out)
	}
	if cpu, err = strconv.ParseFloat(cpuText, 64); err != nil {
		return 0, 0, fmt.Errorf("unexpected output %q: %w", out, err)
	}
	return wall, cpu, nil
}
