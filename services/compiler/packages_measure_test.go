package compiler_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
	"github.com/kcl-lang/flux-kcl-controller/kcl/eval"
	"github.com/kcl-lang/flux-kcl-controller/kcl/mod"
	"github.com/kcl-lang/flux-kcl-controller/kcl/mod/registrytest"
)

// bigK8sLike is the k8s-like package plus generated API groups, so parsing the
// package costs about what a real schema library does.
func bigK8sLike(groups, schemasPerGroup int) map[string]string {
	files := registrytest.K8sLike("1.29")
	for g := 0; g < groups; g++ {
		var b strings.Builder
		for s := 0; s < schemasPerGroup; s++ {
			fmt.Fprintf(&b, "schema Kind%d:\n    \"\"\"Kind%d of group%d.\"\"\"\n    apiVersion: str = \"group%d/v1\"\n    kind: str = \"Kind%d\"\n    metadata?: {str:}\n    spec?: Kind%dSpec\n\nschema Kind%dSpec:\n    replicas?: int\n    selector?: {str:str}\n    names?: [str]\n    check:\n        replicas is None or replicas >= 0\n\n", s, s, g, g, s, s, s)
		}
		files[fmt.Sprintf("api/group%d/v1/types.k", g)] = b.String()
	}
	return files
}

// TestPackageCacheNumbers reports (no assertion on time) the cold and warm
// compile of a program importing a k8s-like package from a registry, and the
// package cache's hit ratio over 100 KCLRuns of distinct artifacts.
func TestPackageCacheNumbers(t *testing.T) {
	reg := registrytest.Start(t)
	pkg := bigK8sLike(60, 20)
	reg.Push(t, "kcl-lang/k8s:1.29", pkg)
	sum, err := mod.Sum(registrytest.WriteFiles(t, pkg))
	if err != nil {
		t.Fatal(err)
	}
	w := startWorker(t, mirrorTo(reg.Host))
	program := func(i int) map[string]string {
		return map[string]string{
			"kcl.mod":      k8sMod,
			"kcl.mod.lock": k8sLock(sum),
			"main.k":       strings.Replace(k8sProgram, `"nginx-deployment"`, fmt.Sprintf(`"app-%d"`, i), 1),
		}
	}
	compile := func(i int) time.Duration {
		t.Helper()
		a := w.publish(t, fmt.Sprintf("run-%d", i), program(i))
		start := time.Now()
		got, err := w.client.Compile(context.Background(), workerclient.CompileInput{Artifact: ref(a), KCLRun: fmt.Sprintf("default/run-%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		if got.CacheHit || len(got.Objects) != 1 {
			t.Fatalf("run %d: cache hit %v, %d objects", i, got.CacheHit, len(got.Objects))
		}
		return time.Since(start)
	}
	cold := compile(0)
	warm := compile(1)
	requestsBefore := reg.Requests.Load()
	parsedBefore := eval.ParseCacheStats()
	var total time.Duration
	for i := 2; i < 102; i++ {
		total += compile(i)
	}
	hits, misses := w.gauge(t, "flux_kcl_package_cache_hits_total"), w.gauge(t, "flux_kcl_package_cache_misses_total")
	t.Logf("k8s-like package: %d files, %d bytes of KCL", len(pkg), sizeOf(pkg))
	t.Logf("cold compile (download, unpack, sum, parse): %v", cold)
	t.Logf("warm compile (package cached on disk and parsed): %v", warm)
	t.Logf("100 KCLRuns of distinct artifacts: mean %v; package cache hits %.0f, misses %.0f, hit ratio %.3f; %d registry requests",
		total/100, hits, misses, hits/(hits+misses), reg.Requests.Load()-requestsBefore)
	parsed := eval.ParseCacheStats()
	t.Logf("engine parse cache over the 100 runs: %d files parsed, %d served parsed", parsed.Misses-parsedBefore.Misses, parsed.Hits-parsedBefore.Hits)
	if n := parsed.Misses - parsedBefore.Misses; n > 100 {
		t.Errorf("%d files parsed for 100 new main.k: the package was parsed again", n)
	}
	if misses != 1 {
		t.Fatalf("the package was downloaded %.0f times, want once", misses)
	}
}

func sizeOf(files map[string]string) int {
	n := 0
	for _, c := range files {
		n += len(c)
	}
	return n
}

// gauge reads an unlabelled counter or gauge of the worker's registry.
func (w *worker) gauge(tb testing.TB, name string) float64 {
	tb.Helper()
	families, err := w.registry.Gather()
	if err != nil {
		tb.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == name && len(f.GetMetric()) == 1 {
			m := f.GetMetric()[0]
			if m.GetCounter() != nil {
				return m.GetCounter().GetValue()
			}
			return m.GetGauge().GetValue()
		}
	}
	return 0
}
