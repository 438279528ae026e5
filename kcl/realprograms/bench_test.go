package realprograms

import (
	"context"
	"os"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/kcl"
)

// The benchmarks time whole warm runs (read, parse from the shared cache,
// evaluate, print YAML), as a compiler worker serving one program repeatedly
// does. kcl/hack/bench.sh sets them side by side with the official engine.

// BenchmarkRealLike runs each real-like program; deployments also runs with
// 1,000 Deployments.
func BenchmarkRealLike(b *testing.B) {
	progs, err := RealLike(realLikeDir)
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range progs {
		if p.KnownDiff != "" {
			continue
		}
		benchProgram(b, p)
		if p.Name == "deployments" {
			p.Name, p.Args = "deployments-1000", []string{"n=1000"}
			benchProgram(b, p)
		}
	}
}

// BenchmarkPublic runs the public programs under $KCL_REAL_PROGRAMS.
func BenchmarkPublic(b *testing.B) {
	root := os.Getenv("KCL_REAL_PROGRAMS")
	if root == "" {
		b.Skip("KCL_REAL_PROGRAMS is not set")
	}
	for _, p := range Public(root) {
		benchProgram(b, p)
	}
}

func benchProgram(b *testing.B, p Program) {
	b.Run(p.Name, func(b *testing.B) {
		opts := p.Options()
		// The first run fills the parse cache, as the first KCLRun would.
		if _, err := kcl.Run(context.Background(), opts); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		var size int
		for b.Loop() {
			res, err := kcl.Run(context.Background(), opts)
			if err != nil {
				b.Fatal(err)
			}
			size = len(res.YAML)
		}
		b.ReportMetric(float64(size), "yaml-bytes")
	})
}

// BenchmarkK8sDeployment runs the k8s-importing program (K8sDeployment,
// the module from $KCL_K8S_MODULE).
func BenchmarkK8sDeployment(b *testing.B) {
	module := os.Getenv(K8sModuleEnv)
	if module == "" {
		b.Skip(K8sModuleEnv + " is not set (the k8s 1.29 folder of kcl-lang/modules)")
	}
	p, err := K8sDeployment(testdataDir, module)
	if err != nil {
		b.Fatal(err)
	}
	benchProgram(b, p)
}
