package compiler_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
	"github.com/kcl-lang/flux-kcl-controller/services/compiler"
)

// BenchmarkCompile measures compilations per second through real gRPC on
// loopback, the artifact already on the worker's disk: "uncached" runs the
// engine every time (result cache off, and every request differs by an argument
// so none is coalesced with another in flight), "cached" answers identical
// requests from the result cache.
func BenchmarkCompile(b *testing.B) {
	for _, bc := range []struct {
		name       string
		cacheBytes int64
	}{{"uncached", 0}, {"cached", 64 << 20}} {
		b.Run(bc.name, func(b *testing.B) {
			w := startWorker(b, func(c *compiler.Config) { c.ResultCacheBytes = bc.cacheBytes })
			a := w.publish(b, "bench", map[string]string{"main.k": deploymentProgram})
			in := workerclient.CompileInput{Artifact: ref(a)}
			if _, err := w.client.Compile(context.Background(), in); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			var n atomic.Int64
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					in := in
					if bc.cacheBytes == 0 {
						in.Config.Arguments = []string{fmt.Sprintf("name=app%d", n.Add(1))}
					}
					got, err := w.client.Compile(context.Background(), in)
					if err != nil {
						b.Error(err)
						return
					}
					if len(got.Objects) != 2 {
						b.Errorf("got %d objects", len(got.Objects))
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "compiles/s")
		})
	}
}
