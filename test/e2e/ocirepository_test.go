package e2e

import (
	"io"
	"log"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kclv1 "github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/sourcecontroller"
)

// Media types of a Flux OCI artifact, as `flux push artifact` writes them.
const (
	fluxConfigMediaType  types.MediaType = "application/vnd.cncf.flux.config.v1+json"
	fluxContentMediaType types.MediaType = "application/vnd.cncf.flux.content.v1.tar+gzip"
)

// pushProgram pushes files as a Flux OCI artifact to ref and returns its digest.
func pushProgram(t *testing.T, ref string, files map[string]string) string {
	t.Helper()
	g := NewWithT(t)
	archive, err := artifactserver.TarGz(files)
	g.Expect(err).NotTo(HaveOccurred())
	img, err := mutate.Append(empty.Image, mutate.Addendum{Layer: static.NewLayer(archive, fluxContentMediaType)})
	g.Expect(err).NotTo(HaveOccurred())
	img = mutate.ConfigMediaType(mutate.MediaType(img, types.OCIManifestSchema1), fluxConfigMediaType)
	parsed, err := name.ParseReference(ref, name.Insecure)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(remote.Write(parsed, img)).To(Succeed())
	var digest v1.Hash
	digest, err = img.Digest()
	g.Expect(err).NotTo(HaveOccurred())
	return digest.String()
}

// TestOCIRepositoryQuickStart delivers the quick-start program from an
// in-process OCI registry; a new push on the same tag is followed.
func TestOCIRepositoryQuickStart(t *testing.T) {
	s := newStory(t, "oci")
	g := NewWithT(t)
	reg := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(reg.Close)
	host := strings.TrimPrefix(reg.URL, "http://")
	ref := host + "/" + s.namespace + "/kcl-deployment:latest"

	program := readProgram(t, "kcl-deployment")
	first := pushProgram(t, ref, program)
	source := &sourcev1.OCIRepository{
		ObjectMeta: metav1.ObjectMeta{Namespace: s.namespace, Name: "kcl-deployment"},
		Spec: sourcev1.OCIRepositorySpec{
			URL:       "oci://" + host + "/" + s.namespace + "/kcl-deployment",
			Reference: &sourcev1.OCIRepositoryRef{Tag: "latest"},
			Insecure:  true,
			Interval:  metav1.Duration{Duration: time.Hour},
		},
	}
	g.Expect(s.c.Create(s.ctx, source)).To(Succeed())
	s.run = &kclv1.KCLRun{
		ObjectMeta: metav1.ObjectMeta{Namespace: s.namespace, Name: "kcl-deployment"},
		Spec: kclv1.KCLRunSpec{
			SourceRef:       kclv1.CrossNamespaceSourceReference{Kind: sourcev1.OCIRepositoryKind, Name: source.Name},
			Interval:        metav1.Duration{Duration: time.Hour},
			Prune:           true,
			TargetNamespace: s.namespace,
		},
	}
	g.Expect(s.c.Create(s.ctx, s.run)).To(Succeed())
	s.waitAppliedRevision(first)
	s.Eventually(func(g Gomega) {
		g.Expect(containerImages(s.deployment(g, "nginx-deployment"))).To(Equal([]string{"nginx:1.7.7"}))
	})

	second := pushProgram(t, ref, map[string]string{
		"main.k": strings.Replace(program["main.k"], `"nginx:1.7.7"`, `"nginx:1.7.8"`, 1),
	})
	g.Expect(sourcecontroller.RequestReconcile(s.ctx, s.c, source)).To(Succeed())
	s.waitAppliedRevision(second)
	s.Eventually(func(g Gomega) {
		g.Expect(containerImages(s.deployment(g, "nginx-deployment"))).To(Equal([]string{"nginx:1.7.8"}))
	})
}
