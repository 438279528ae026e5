package compiler_test

import (
	"context"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
	"github.com/kcl-lang/flux-kcl-controller/services/compiler"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
)

func TestCompileCache(t *testing.T) {
	w := startWorker(t, nil)
	a := w.publish(t, "cached", map[string]string{"main.k": deploymentProgram})
	in := workerclient.CompileInput{Artifact: ref(a), Config: workerclient.CompileConfig{Arguments: []string{"name=one"}}}
	ctx := context.Background()

	first, err := w.client.Compile(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	second, err := w.client.Compile(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if first.CacheHit || !second.CacheHit {
		t.Fatalf("cache hits: first %v, second %v; want false, true", first.CacheHit, second.CacheHit)
	}
	if first.OutputDigest != second.OutputDigest || second.Objects[0].GetName() != "one" {
		t.Fatalf("the cached result differs: %s vs %s", first.OutputDigest, second.OutputDigest)
	}

	in.Config.Arguments = []string{"name=two"}
	third, err := w.client.Compile(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if third.CacheHit || third.Objects[0].GetName() != "two" {
		t.Fatalf("changed arguments: cache hit %v, name %s", third.CacheHit, third.Objects[0].GetName())
	}
	// The artifact itself was downloaded once, then read from the disk cache.
	if n := w.artifacts.Downloads(artifactserver.ArtifactPath("GitRepository", "default", "cached", "")); n != 1 {
		t.Errorf("artifact downloaded %d times, want 1", n)
	}
	if hits, misses := w.counter(t, "flux_kcl_compile_cache_total", "result", "hit"), w.counter(t, "flux_kcl_compile_cache_total", "result", "miss"); hits != 1 || misses != 2 {
		t.Errorf("metrics: %v hits, %v misses; want 1, 2", hits, misses)
	}
}

func TestCompileCacheOff(t *testing.T) {
	w := startWorker(t, func(c *compiler.Config) { c.ResultCacheBytes = 0 })
	a := w.publish(t, "uncached", map[string]string{"main.k": deploymentProgram})
	for range 2 {
		got, err := w.client.Compile(context.Background(), workerclient.CompileInput{Artifact: ref(a)})
		if err != nil {
			t.Fatal(err)
		}
		if got.CacheHit {
			t.Fatal("cache hit with the cache off")
		}
	}
}
