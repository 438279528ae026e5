package tenant

import (
	"context"
	"runtime"
	"strings"
	"testing"
)

func TestTwinRendersTheSameObjectsInItsOwnNamespace(t *testing.T) {
	ctx := context.Background()
	kcl := Tenant{Index: 7, Side: KCL}
	twin := Tenant{Index: 7, Side: Kustomize}
	a, err := Render(ctx, kcl.Program("r1", "1.0.0"))
	if err != nil {
		t.Fatal(err)
	}
	files, err := twin.Files(ctx, "r1", "1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	b := files["app.yaml"]
	if got := strings.ReplaceAll(string(a), kcl.Namespace(), twin.Namespace()); got != b {
		t.Errorf("twin differs beyond the namespace:\n%s\n---- vs ----\n%s", got, b)
	}
	for _, want := range []string{"kind: ConfigMap", "kind: Deployment", "kind: Service", "image: registry.example/tenant-0007/web:1.0.0", "REVISION: r1", "namespace: lt-kust-0007"} {
		if !strings.Contains(b, want) {
			t.Errorf("rendered YAML lacks %q:\n%s", want, b)
		}
	}
}

func TestNoServiceRendersTheOthers(t *testing.T) {
	out, err := Render(context.Background(), Tenant{Index: 7, Side: KCL, NoService: true}.Program("r1", "1.0.0"))
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	if strings.Contains(got, "kind: Service") || !strings.Contains(got, "kind: ConfigMap") || !strings.Contains(got, "kind: Deployment") {
		t.Errorf("want a ConfigMap and a Deployment, no Service:\n%s", got)
	}
}

func TestProgramsDifferAcrossTenants(t *testing.T) {
	if (Tenant{Index: 1, Side: KCL}).Program("r1", "1.0.0") == (Tenant{Index: 2, Side: KCL}).Program("r1", "1.0.0") {
		t.Error("two tenants share a program; compiles would hit the cache")
	}
}

// BenchmarkCompilerLiveHeap renders 2,000 distinct tenant programs, as the compiler does
// in a first sync, and reports the live heap left afterwards per program: what the KCL
// engine's caches keep (go test ./loadtest/tenant -run ^$ -bench CompilerLiveHeap).
func BenchmarkCompilerLiveHeap(b *testing.B) {
	const n = 2000
	ctx := context.Background()
	liveHeap := func() uint64 {
		runtime.GC()
		runtime.GC() // cleanups queued by the first run before the second
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	for range b.N {
		before := liveHeap()
		for i := range n {
			if _, err := Render(ctx, Tenant{Index: i, Side: KCL}.Program("r1", "1.0.0")); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(liveHeap()-before)/n, "live-B/program")
	}
}

func TestStagedTenantAddsOnlyTheAgentFollowingTheSharedPolicy(t *testing.T) {
	ctx := context.Background()
	plain := Tenant{Index: 7, Side: KCL}
	staged := Tenant{Index: 7, Side: KCL, Stage: "canary"}
	src := staged.Program("r1", "1.0.0")
	marker := `"registry.example/rollout/agent:1.0.0"  # {"$imagepolicy": "lt-rollout:agent"}`
	if !strings.Contains(src, marker) {
		t.Errorf("staged program lacks %s:\n%s", marker, src)
	}
	a, err := Render(ctx, plain.Program("r1", "1.0.0"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Render(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	agent := "      - name: agent\n        image: registry.example/rollout/agent:1.0.0\n"
	if got := strings.Replace(string(b), agent, "", 1); got != string(a) {
		t.Errorf("staged tenant differs beyond the agent container:\n%s\n---- vs ----\n%s", b, a)
	}
}
