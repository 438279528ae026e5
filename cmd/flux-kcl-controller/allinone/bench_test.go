package allinone

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	. "github.com/onsi/gomega"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kclv1 "github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
)

// BenchmarkSourceChangeToReady measures, per new artifact, the time from the
// source's status update to the KCLRun Ready at that revision: watcher,
// JetStream, applier, artifact fetch, compile and server-side apply.
func BenchmarkSourceChangeToReady(b *testing.B) {
	g := NewWithT(b)
	ctx := context.Background()
	env, artifacts, _ := startProcess(b)
	c := env.Client
	ns, err := env.CreateNamespace(ctx, "bench")
	g.Expect(err).NotTo(HaveOccurred())
	publish := func(i int) *meta.Artifact {
		path := artifactserver.ArtifactPath("GitRepository", ns, "repo", fmt.Sprintf("v%d.tar.gz", i))
		art, err := artifacts.PublishFiles(path, program(fmt.Sprintf("nginx:1.%d", i)), "")
		g.Expect(err).NotTo(HaveOccurred())
		return art
	}
	repo, err := artifactserver.CreateSource(ctx, c, "GitRepository", ns, "repo", publish(0))
	g.Expect(err).NotTo(HaveOccurred())
	run := &kclv1.KCLRun{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
		Spec: kclv1.KCLRunSpec{
			SourceRef:       kclv1.CrossNamespaceSourceReference{Kind: "GitRepository", Name: "repo"},
			Interval:        metav1.Duration{Duration: time.Hour},
			TargetNamespace: ns,
		},
	}
	g.Expect(c.Create(ctx, run)).To(Succeed())
	readyAt := func(revision string) func(g Gomega) {
		return func(g Gomega) {
			var cur kclv1.KCLRun
			g.Expect(c.Get(ctx, client.ObjectKeyFromObject(run), &cur)).To(Succeed())
			g.Expect(apimeta.IsStatusConditionTrue(cur.Status.Conditions, meta.ReadyCondition)).To(BeTrue())
			g.Expect(cur.Status.LastAppliedRevision).To(Equal(revision))
		}
	}
	var cur kclv1.KCLRun
	g.Eventually(func(g Gomega) {
		g.Expect(c.Get(ctx, client.ObjectKeyFromObject(run), &cur)).To(Succeed())
		g.Expect(cur.Status.LastAppliedRevision).NotTo(BeEmpty())
	}, 2*time.Minute, 50*time.Millisecond).Should(Succeed())

	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		art := publish(i + 1)
		b.StartTimer()
		g.Expect(artifactserver.SetArtifact(ctx, c, repo, art)).To(Succeed())
		g.Eventually(readyAt(art.Revision), 2*time.Minute, 5*time.Millisecond).Should(Succeed())
	}
}
