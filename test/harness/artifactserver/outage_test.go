package artifactserver_test

import (
	"io"
	"net/http"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
)

// Down refuses connections and cuts held requests; Up serves the same artifacts at the
// same URL again.
func TestDownAndUpKeepTheAddress(t *testing.T) {
	g := NewWithT(t)
	s := artifactserver.StartT(t)
	path := artifactserver.ArtifactPath("GitRepository", "default", "app", "")
	a, err := s.PublishFiles(path, map[string]string{"main.k": "a = 1\n"}, "")
	g.Expect(err).NotTo(HaveOccurred())

	release := s.Hold(path)
	defer release()
	held := make(chan error, 1)
	go func() {
		resp, err := http.Get(a.URL)
		if err == nil {
			_, err = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		held <- err
	}()
	g.Eventually(func() int { return s.Waiting(path) }).Should(Equal(1))

	s.Down()
	g.Expect(<-held).To(HaveOccurred(), "a request held during Down is cut")
	_, err = http.Get(a.URL)
	g.Expect(err).To(MatchError(ContainSubstring("connection refused")))

	release()
	g.Expect(s.Up()).To(Succeed())
	g.Expect(s.URL() + "/" + path).To(Equal(a.URL))
	resp, err := http.Get(a.URL)
	g.Expect(err).NotTo(HaveOccurred())
	resp.Body.Close()
	g.Expect(resp.StatusCode).To(Equal(http.StatusOK))
}

// HoldAfter lets the first requests through and holds the next.
func TestHoldAfterPassesTheFirstRequests(t *testing.T) {
	g := NewWithT(t)
	s := artifactserver.StartT(t)
	path := artifactserver.ArtifactPath("GitRepository", "default", "app", "")
	a, err := s.PublishFiles(path, map[string]string{"main.k": "a = 1\n"}, "")
	g.Expect(err).NotTo(HaveOccurred())

	release := s.HoldAfter(path, 1)
	resp, err := http.Get(a.URL)
	g.Expect(err).NotTo(HaveOccurred())
	resp.Body.Close()
	done := make(chan int, 1)
	go func() {
		resp, err := http.Get(a.URL)
		if err != nil {
			done <- 0
			return
		}
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	g.Eventually(func() int { return s.Waiting(path) }).Should(Equal(1))
	g.Consistently(done).ShouldNot(Receive())
	release()
	g.Eventually(done).Should(Receive(Equal(http.StatusOK)))
	g.Expect(s.Waiting(path)).To(BeZero())
}

// PublishZeros serves a huge artifact from a sparse file.
func TestPublishZerosStreamsAHugeArtifact(t *testing.T) {
	g := NewWithT(t)
	s := artifactserver.StartT(t)
	path := artifactserver.ArtifactPath("GitRepository", "default", "huge", "")
	const size = 64 << 20
	a, err := s.PublishZeros(path, size, "")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(*a.Size).To(BeEquivalentTo(size))
	g.Expect(a.Digest).To(HavePrefix("sha256:"))
	resp, err := http.Get(a.URL)
	g.Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	g.Expect(resp.ContentLength).To(BeEquivalentTo(size))
	n, err := io.Copy(io.Discard, resp.Body)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(n).To(BeEquivalentTo(size))
}
