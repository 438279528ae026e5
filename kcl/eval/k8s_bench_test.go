package eval_test

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/kcl-lang/flux-kcl-controller/kcl"
	"github.com/kcl-lang/flux-kcl-controller/kcl/eval"
	"github.com/kcl-lang/flux-kcl-controller/kcl/realprograms"
)

// BenchmarkK8sStaticPass times warm compiles (kcl.Run, as the compiler
// service calls it, with the process's parse and check caches warm) of the
// k8s-importing program (realprograms.K8sDeployment, the module from
// $KCL_K8S_MODULE) with the static pass and without it (as the engine ran
// before it had one), in turns within one loop so that both see the same
// machine. It reports wall and CPU (process user+system, GC included) ms per
// compile of each, and the pass's share: the CPU time's, which a busy
// shared machine disturbs least.
func BenchmarkK8sStaticPass(b *testing.B) {
	module := os.Getenv(realprograms.K8sModuleEnv)
	if module == "" {
		b.Skip(realprograms.K8sModuleEnv + " is not set (the k8s 1.29 folder of kcl-lang/modules)")
	}
	p, err := realprograms.K8sDeployment("../testdata", module)
	if err != nil {
		b.Fatal(err)
	}
	opts := p.Options()
	compile := func(off bool) (wall, cpu time.Duration) {
		eval.SetStaticPassOff(off)
		defer eval.SetStaticPassOff(false)
		w0, c0 := time.Now(), cpuTime(b)
		if _, err := kcl.Run(context.Background(), opts); err != nil {
			b.Fatal(err)
		}
		return time.Since(w0), cpuTime(b) - c0
	}
	compile(false) // warm the caches
	compile(true)
	var wall, cpu [2]time.Duration
	for b.Loop() {
		for i, off := range []bool{false, true} {
			w, c := compile(off)
			wall[i] += w
			cpu[i] += c
		}
	}
	n := float64(b.N)
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 / n }
	b.ReportMetric(ms(wall[0]), "pass-ms/op")
	b.ReportMetric(ms(wall[1]), "nopass-ms/op")
	b.ReportMetric(ms(cpu[0]), "pass-cpu-ms/op")
	b.ReportMetric(ms(cpu[1]), "nopass-cpu-ms/op")
	b.ReportMetric(100*(float64(cpu[0])/float64(cpu[1])-1), "pass-cpu-%")
}

// cpuTime is the process's user and system time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
