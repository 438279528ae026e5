package artifactserver_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/fluxcd/pkg/http/fetch"
	"github.com/fluxcd/pkg/tar"
	. "github.com/onsi/gomega"

	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
)

func TestDigestVerifiedFetch(t *testing.T) {
	g := NewWithT(t)
	s := artifactserver.StartT(t)
	path := artifactserver.ArtifactPath("GitRepository", "default", "app", "")
	a, err := s.PublishFiles(path, map[string]string{
		"main.k":         "apiVersion = \"v1\"\n",
		"deploy/sub.k":   "kind = \"ConfigMap\"\n",
		"deploy/kcl.mod": "[package]\nname = \"sub\"\n",
	}, "")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(a.Revision).To(HavePrefix("main@sha1:"))
	g.Expect(a.Digest).To(HavePrefix("sha256:"))
	g.Expect(a.URL).To(Equal(s.URL() + "/gitrepository/default/app/latest.tar.gz"))

	dir := t.TempDir()
	f := fetch.New(fetch.WithUntar(tar.WithMaxUntarSize(1 << 20)))
	g.Expect(f.FetchWithContext(context.Background(), a.URL, a.Digest, dir)).To(Succeed())
	main, err := os.ReadFile(filepath.Join(dir, "main.k"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(string(main)).To(Equal("apiVersion = \"v1\"\n"))
	g.Expect(filepath.Join(dir, "deploy", "sub.k")).To(BeARegularFile())
	g.Expect(s.Downloads(path)).To(Equal(1))
}

func TestDigestMismatchRejected(t *testing.T) {
	g := NewWithT(t)
	s := artifactserver.StartT(t)
	path := artifactserver.ArtifactPath("OCIRepository", "default", "app", "")
	a, err := s.PublishFiles(path, map[string]string{"main.k": "a = 1\n"}, "latest@sha256:0123")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(a.Revision).To(Equal("latest@sha256:0123"))

	tampered, err := artifactserver.TarGz(map[string]string{"main.k": "a = 2\n"})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(s.Replace(path, tampered)).To(Succeed())

	dir := t.TempDir()
	err = fetch.New(fetch.WithUntar()).FetchWithContext(context.Background(), a.URL, a.Digest, dir)
	g.Expect(err).To(MatchError(ContainSubstring("computed digest doesn't match")))
	g.Expect(filepath.Join(dir, "main.k")).NotTo(BeAnExistingFile())

	g.Expect(s.Remove(path)).To(Succeed())
	err = fetch.New(fetch.WithUntar()).FetchWithContext(context.Background(), a.URL, a.Digest, dir)
	g.Expect(err).To(MatchError(fetch.ErrFileNotFound))
}

func TestPublishDirMatchesSourceControllerArchive(t *testing.T) {
	g := NewWithT(t)
	s := artifactserver.StartT(t)
	src := t.TempDir()
	g.Expect(os.WriteFile(filepath.Join(src, "main.k"), []byte("a = 1\n"), 0o644)).To(Succeed())
	a, err := s.PublishDir(artifactserver.ArtifactPath("Bucket", "ns", "b", ""), src, "sha256:abc")
	g.Expect(err).NotTo(HaveOccurred())

	dir := t.TempDir()
	g.Expect(fetch.New(fetch.WithUntar()).FetchWithContext(context.Background(), a.URL, a.Digest, dir)).To(Succeed())
	g.Expect(filepath.Join(dir, "main.k")).To(BeARegularFile())
}
