package watcher

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/fluxcd/pkg/apis/meta"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kclv1 "github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
)

// artifact describes an artifact of revision; nothing downloads it here.
func artifact(revision string) *meta.Artifact {
	return &meta.Artifact{
		Path: "gitrepository/x/y/latest.tar.gz", URL: "http://artifacts.invalid/latest.tar.gz",
		Revision: revision, Digest: digestOf(revision), LastUpdateTime: metav1.Now(),
	}
}

func digestOf(revision string) string {
	sum := sha256.Sum256([]byte(revision))
	return "sha256:" + hex.EncodeToString(sum[:])
}

func TestSourceChangeRequestsOnlyItsKCLRuns(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	other := newNamespace(t)

	repoA, err := artifactserver.CreateSource(ctx, k8sClient, "GitRepository", ns, "a", artifact("main@sha1:a1"))
	g.Expect(err).NotTo(HaveOccurred())
	_, err = artifactserver.CreateSource(ctx, k8sClient, "GitRepository", ns, "b", artifact("main@sha1:b1"))
	g.Expect(err).NotTo(HaveOccurred())

	newKCLRun(t, ns, "a1", "a")
	newKCLRun(t, other, "a2", "a", func(r *kclv1.KCLRun) { r.Spec.SourceRef.Namespace = ns })
	newKCLRun(t, ns, "b1", "b")
	// Same name as a's, another kind: the index key includes the kind.
	newKCLRun(t, ns, "oci-a", "a", func(r *kclv1.KCLRun) { r.Spec.SourceRef.Kind = "OCIRepository" })
	for _, r := range []client.ObjectKey{{Namespace: ns, Name: "a1"}, {Namespace: other, Name: "a2"}, {Namespace: ns, Name: "b1"}, {Namespace: ns, Name: "oci-a"}} {
		waitForReason(t, r.Namespace, r.Name, reconcilerequest.ReasonCreated)
		consume(t, r.Namespace, r.Name)
	}

	g.Expect(artifactserver.SetArtifact(ctx, k8sClient, repoA, artifact("main@sha1:a2"))).To(Succeed())
	for _, r := range []client.ObjectKey{{Namespace: ns, Name: "a1"}, {Namespace: other, Name: "a2"}} {
		req := waitForReason(t, r.Namespace, r.Name, reconcilerequest.ReasonSourceChanged)
		g.Expect(req.Revision).To(Equal("main@sha1:a2"))
		g.Expect(req.Digest).To(Equal(digestOf("main@sha1:a2")))
		g.Expect(req.Trigger).To(Equal("GitRepository/" + ns + "/a"))
	}

	// Barrier: requests are published in order by one goroutine, so once the
	// next revision reached a1, anything the first change queued is out.
	g.Expect(artifactserver.SetArtifact(ctx, k8sClient, repoA, artifact("main@sha1:a3"))).To(Succeed())
	g.Eventually(func(g Gomega) {
		req := pendingRequest(g, ns, "a1")
		g.Expect(req).NotTo(BeNil())
		g.Expect(req.Revision).To(Equal("main@sha1:a3"))
	}, eventually).Should(Succeed())
	g.Expect(pendingCount(g, ns, "b1")).To(BeZero())
	g.Expect(pendingCount(g, ns, "oci-a")).To(BeZero())
}

func TestSourceCreatedLaterPublishes(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	newKCLRun(t, ns, "early", "late")
	waitForReason(t, ns, "early", reconcilerequest.ReasonCreated)
	consume(t, ns, "early")

	_, err := artifactserver.CreateSource(ctx, k8sClient, "GitRepository", ns, "late", artifact("main@sha1:l1"))
	g.Expect(err).NotTo(HaveOccurred())
	req := waitForReason(t, ns, "early", reconcilerequest.ReasonSourceChanged)
	g.Expect(req.Revision).To(Equal("main@sha1:l1"))
}
