package artifact_test

import (
	"archive/tar"
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/kcl-lang/flux-kcl-controller/internal/artifact"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
)

// endlessServer serves 1 GiB of zeros, with or without declaring its length,
// and counts what it managed to write.
func endlessServer(t *testing.T, declare bool) (*httptest.Server, *atomic.Int64) {
	var written atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if declare {
			w.Header().Set("Content-Length", strconv.Itoa(1<<30))
		}
		chunk := make([]byte, 32<<10)
		for total := 0; total < 1<<30; total += len(chunk) {
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	}))
	t.Cleanup(s.Close)
	return s, &written
}

// A huge artifact costs its refusal, not its size: one retried by a failing
// KCLRun was read in full on every attempt.
func TestTooLargeDownloadIsNotReadToTheEnd(t *testing.T) {
	const limit = 1 << 20
	ref := artifact.Ref{Digest: "sha256:" + strings.Repeat("0", 64)}
	for _, declare := range []bool{true, false} {
		t.Run("Content-Length "+strconv.FormatBool(declare), func(t *testing.T) {
			g := NewWithT(t)
			s, written := endlessServer(t, declare)
			ref.URL = s.URL + "/huge.tar.gz"
			_, err := newFetcher(t, artifact.Options{MaxDownloadBytes: limit}).Fetch(context.Background(), ref)
			g.Expect(err).To(MatchError(artifact.ErrTooLarge))
			g.Expect(err).To(MatchError(ContainSubstring("max download size")))
			s.CloseClientConnections()
			s.Close() // waits for the handler
			// Socket buffers take some MiB beyond what the client read.
			g.Expect(written.Load()).To(BeNumerically("<", 64<<20))
		})
	}
}

func TestRefusedArtifactsAreNotDownloadedAgain(t *testing.T) {
	g := NewWithT(t)
	s := artifactserver.StartT(t)
	ctx := context.Background()
	f := newFetcher(t, artifact.Options{MaxDownloadBytes: 16 << 10})

	big, bigPath := publish(t, s, "big", map[string]string{"main.k": randomish(2, 64<<10)})
	path := artifactserver.ArtifactPath("Bucket", "default", "evil", "")
	evil, err := s.PublishBytes(path, crafted(t, tar.Header{Name: "../../escaped.k", Typeflag: tar.TypeReg, Mode: 0o644}), "")
	g.Expect(err).NotTo(HaveOccurred())

	for range 3 {
		_, err := f.Fetch(ctx, refOf(big))
		g.Expect(err).To(MatchError(artifact.ErrTooLarge))
		_, err = f.Fetch(ctx, refOf(evil))
		g.Expect(err).To(MatchError(artifact.ErrUnsafePath))
	}
	// Requests, not Downloads: the refused big one is cut off mid-response, and
	// the handler may count its download after Fetch has returned.
	g.Expect(s.Requests(bigPath)).To(Equal(1))
	g.Expect(s.Requests(path)).To(Equal(1))
}

// Transient failures are not remembered: the next fetch downloads again.
func TestNotFoundIsNotRemembered(t *testing.T) {
	g := NewWithT(t)
	s := artifactserver.StartT(t)
	a, path := publish(t, s, "later", map[string]string{"main.k": "a = 1\n"})
	s.SetStatus(path, http.StatusNotFound)
	f := newFetcher(t, artifact.Options{})
	_, err := f.Fetch(context.Background(), refOf(a))
	g.Expect(err).To(MatchError(artifact.ErrNotFound))
	s.SetStatus(path, 0)
	_, err = f.Fetch(context.Background(), refOf(a))
	g.Expect(err).NotTo(HaveOccurred())
}
