package kube_test

import (
	"context"
	"testing"

	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/imagepolicy"
)

func namespace(name string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
}

func TestFluxSourcesCarryPublishedArtifacts(t *testing.T) {
	ctx := context.Background()
	s := artifactserver.StartT(t)
	ns, err := env.CreateNamespace(ctx, "sources")
	NewWithT(t).Expect(err).NotTo(HaveOccurred())

	for _, kind := range []string{
		sourcev1.GitRepositoryKind, sourcev1.OCIRepositoryKind, sourcev1.BucketKind, sourcev1.ExternalArtifactKind,
	} {
		t.Run(kind, func(t *testing.T) {
			g := NewWithT(t)
			a, err := s.PublishFiles(artifactserver.ArtifactPath(kind, ns, "app", ""),
				map[string]string{"main.k": "apiVersion = \"v1\"\n"}, "")
			g.Expect(err).NotTo(HaveOccurred())
			obj, err := artifactserver.CreateSource(ctx, env.Client, kind, ns, "app", a)
			g.Expect(err).NotTo(HaveOccurred())

			fresh, err := artifactserver.NewSource(kind, ns, "app")
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(obj), fresh)).To(Succeed())
			src := fresh.(sourcev1.Source)
			g.Expect(src.GetArtifact()).NotTo(BeNil())
			g.Expect(src.GetArtifact().Digest).To(Equal(a.Digest))
			g.Expect(src.GetArtifact().URL).To(Equal(a.URL))
			g.Expect(*src.GetArtifact().Size).To(Equal(*a.Size))
			g.Expect(apimeta.IsStatusConditionTrue(fresh.(interface{ GetConditions() []metav1.Condition }).GetConditions(),
				meta.ReadyCondition)).To(BeTrue())
		})
	}
}

func TestImagePolicyLatestRefRoundTrips(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns, err := env.CreateNamespace(ctx, "images")
	g.Expect(err).NotTo(HaveOccurred())

	first := imagev1.ImageRef{Name: "ghcr.io/example/app", Tag: "1.2.3", Digest: "sha256:" + sixtyFourHex}
	policy, err := imagepolicy.Create(ctx, env.Client, ns, "app", first)
	g.Expect(err).NotTo(HaveOccurred())
	second := imagev1.ImageRef{Name: "ghcr.io/example/app", Tag: "1.3.0"}
	g.Expect(imagepolicy.SetLatest(ctx, env.Client, policy, second)).To(Succeed())

	var got imagev1.ImagePolicy
	g.Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(policy), &got)).To(Succeed())
	g.Expect(got.Status.LatestRef).To(HaveValue(Equal(second)))
	g.Expect(got.Status.ObservedPreviousRef).To(HaveValue(Equal(first)))
	g.Expect(apimeta.IsStatusConditionTrue(got.Status.Conditions, meta.ReadyCondition)).To(BeTrue())
}

const sixtyFourHex = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
