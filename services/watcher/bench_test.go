package watcher

import (
	"context"
	"fmt"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
)

// BenchmarkSourceFanOut measures, per source change, the time from the
// artifact update at the apiserver to a request with the new revision pending
// for every one of the source's KCLRuns (one publishing goroutine).
func BenchmarkSourceFanOut(b *testing.B) {
	for _, n := range []int{1, 100} {
		b.Run(fmt.Sprintf("kclruns=%d", n), func(b *testing.B) {
			ctx := context.Background()
			g := NewWithT(b)
			ns, err := testEnv.CreateNamespace(ctx, "bench")
			g.Expect(err).NotTo(HaveOccurred())
			repo, err := artifactserver.CreateSource(ctx, k8sClient, "GitRepository", ns, "repo", artifact("main@sha1:0"))
			g.Expect(err).NotTo(HaveOccurred())
			names := make([]string, n)
			for i := range names {
				names[i] = fmt.Sprintf("run-%d", i)
				newKCLRun(b, ns, names[i], "repo")
			}
			allAt := func(revision string) func(g Gomega) {
				return func(g Gomega) {
					for _, name := range names {
						req := pendingRequest(g, ns, name)
						g.Expect(req).NotTo(BeNil())
						g.Expect(req.Revision).To(Equal(revision))
					}
				}
			}
			// Warm up: every KCLRun got its Created request (its revision may
			// predate the source's status, as the caches fill independently).
			g.Eventually(func(g Gomega) {
				for _, name := range names {
					g.Expect(pendingRequest(g, ns, name)).NotTo(BeNil())
				}
			}, eventually, 10*time.Millisecond).Should(Succeed())
			b.ResetTimer()
			for i := range b.N {
				revision := fmt.Sprintf("main@sha1:%d", i+1)
				g.Expect(artifactserver.SetArtifact(ctx, k8sClient, repo, artifact(revision))).To(Succeed())
				g.Eventually(allAt(revision), eventually, time.Millisecond).Should(Succeed())
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "requests/s")
		})
	}
}
