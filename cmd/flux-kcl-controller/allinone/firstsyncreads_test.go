package allinone

import (
	"context"
	"strings"
	"testing"
	"time"

	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	. "github.com/onsi/gomega"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kclv1 "github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/apirequests"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/imagepolicy"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/kube"
)

// TestFirstSyncReadsNothing: in one process, a KCLRun's first reconcile reads
// its source and ImagePolicy from the watcher's caches and the KCLRun itself
// through the finalizer write, so it sends the apiserver no GET: only the
// object's apply, the finalizer, the status and events.
func TestFirstSyncReadsNothing(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	env := kube.StartT(t)
	artifacts := artifactserver.StartT(t)
	c := env.Client
	ns, err := env.CreateNamespace(ctx, "reads")
	g.Expect(err).NotTo(HaveOccurred())
	// Source and policy exist before the process starts, so its caches
	// hold them when the KCLRun comes (else their first read is a GET).
	_, err = imagepolicy.Create(ctx, c, ns, "nginx", imagev1.ImageRef{Name: "nginx", Tag: "1.7.8"})
	g.Expect(err).NotTo(HaveOccurred())
	path := artifactserver.ArtifactPath("GitRepository", ns, "repo", "v1.tar.gz")
	art, err := artifacts.PublishFiles(path, map[string]string{"main.k": strings.ReplaceAll(markedProgram, "NS", ns)}, "")
	g.Expect(err).NotTo(HaveOccurred())
	_, err = artifactserver.CreateSource(ctx, c, "GitRepository", ns, "repo", art)
	g.Expect(err).NotTo(HaveOccurred())

	requests := &apirequests.Log{}
	config := rest.CopyConfig(env.Config)
	config.Wrap(requests.Wrap)
	runProcess(t, config)

	run := &kclv1.KCLRun{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
		Spec: kclv1.KCLRunSpec{
			SourceRef: kclv1.CrossNamespaceSourceReference{Kind: "GitRepository", Name: "repo"},
			Interval:  metav1.Duration{Duration: time.Hour},
		},
	}
	g.Expect(c.Create(ctx, run)).To(Succeed())
	g.Eventually(func(g Gomega) {
		var cur kclv1.KCLRun
		g.Expect(c.Get(ctx, client.ObjectKeyFromObject(run), &cur)).To(Succeed())
		g.Expect(apimeta.IsStatusConditionTrue(cur.Status.Conditions, meta.ReadyCondition)).To(BeTrue())
		g.Expect(cur.Status.LastAppliedRevision).To(Equal(art.Revision))
		g.Expect(cur.Status.ImagePolicies).To(ConsistOf(ns + "/nginx"))
		g.Expect(cur.Finalizers).To(ContainElement(kclv1.KCLRunFinalizer))
	}, 2*time.Minute, 100*time.Millisecond).Should(Succeed())
	// Events (Flux's, one per reason) are not the point here: the writes and reads are.
	counts := requests.In(ns)
	delete(counts, "POST events")
	g.Expect(counts).To(Equal(map[string]int{
		"PATCH deployments":    1,
		"PATCH kclruns":        1,
		"PATCH kclruns/status": 1,
	}))
}
