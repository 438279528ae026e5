package artifact_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/fluxcd/pkg/apis/meta"
	. "github.com/onsi/gomega"

	"github.com/kcl-lang/flux-kcl-controller/internal/artifact"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
)

func refOf(a *meta.Artifact) artifact.Ref {
	return artifact.Ref{URL: a.URL, Revision: a.Revision, Digest: a.Digest}
}

func newFetcher(t *testing.T, opts artifact.Options) *artifact.Fetcher {
	t.Helper()
	if opts.CacheDir == "" {
		opts.CacheDir = t.TempDir()
	}
	f, err := artifact.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func publish(t *testing.T, s *artifactserver.Server, name string, files map[string]string) (*meta.Artifact, string) {
	t.Helper()
	path := artifactserver.ArtifactPath("GitRepository", "default", name, "")
	a, err := s.PublishFiles(path, files, "")
	if err != nil {
		t.Fatal(err)
	}
	return a, path
}

func TestFetchExtractsAndCachesByDigest(t *testing.T) {
	g := NewWithT(t)
	s := artifactserver.StartT(t)
	a, path := publish(t, s, "app", map[string]string{"main.k": "a = 1\n", "lib/lib.k": "b = 2\n"})
	f := newFetcher(t, artifact.Options{})

	dir, err := f.Fetch(context.Background(), refOf(a))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(os.ReadFile(filepath.Join(dir, "main.k"))).To(BeEquivalentTo("a = 1\n"))
	g.Expect(os.ReadFile(filepath.Join(dir, "lib", "lib.k"))).To(BeEquivalentTo("b = 2\n"))

	again, err := f.Fetch(context.Background(), refOf(a))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(again).To(Equal(dir))
	g.Expect(s.Requests(path)).To(Equal(1))
}

func TestConcurrentFetchesOfOneDigestDownloadOnce(t *testing.T) {
	g := NewWithT(t)
	s := artifactserver.StartT(t)
	a, path := publish(t, s, "app", map[string]string{"main.k": strings.Repeat("x = 1\n", 10000)})
	f := newFetcher(t, artifact.Options{})

	const callers = 16
	dirs := make([]string, callers)
	errs := make([]error, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() { dirs[i], errs[i] = f.Fetch(context.Background(), refOf(a)) })
	}
	wg.Wait()
	for i := range callers {
		g.Expect(errs[i]).NotTo(HaveOccurred())
		g.Expect(dirs[i]).To(Equal(dirs[0]))
	}
	g.Expect(s.Requests(path)).To(Equal(1))
}

func TestFetchErrors(t *testing.T) {
	s := artifactserver.StartT(t)
	ctx := context.Background()

	t.Run("not found", func(t *testing.T) {
		g := NewWithT(t)
		a, path := publish(t, s, "gone", map[string]string{"main.k": "a = 1\n"})
		g.Expect(s.Remove(path)).To(Succeed())
		_, err := newFetcher(t, artifact.Options{}).Fetch(ctx, refOf(a))
		g.Expect(err).To(MatchError(artifact.ErrNotFound))
	})

	t.Run("digest mismatch is not cached", func(t *testing.T) {
		g := NewWithT(t)
		a, path := publish(t, s, "tampered", map[string]string{"main.k": "a = 1\n"})
		good, err := os.ReadFile(filepath.Join(s.Root(), path))
		g.Expect(err).NotTo(HaveOccurred())
		bad, err := artifactserver.TarGz(map[string]string{"main.k": "a = 666\n"})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(s.Replace(path, bad)).To(Succeed())

		f := newFetcher(t, artifact.Options{})
		_, err = f.Fetch(ctx, refOf(a))
		g.Expect(err).To(MatchError(artifact.ErrDigestMismatch))

		g.Expect(s.Replace(path, good)).To(Succeed())
		dir, err := f.Fetch(ctx, refOf(a))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(os.ReadFile(filepath.Join(dir, "main.k"))).To(BeEquivalentTo("a = 1\n"))
	})

	t.Run("download too large", func(t *testing.T) {
		g := NewWithT(t)
		a, _ := publish(t, s, "big", map[string]string{"main.k": randomish(1, 64<<10)})
		_, err := newFetcher(t, artifact.Options{MaxDownloadBytes: 16 << 10}).Fetch(ctx, refOf(a))
		g.Expect(err).To(MatchError(artifact.ErrTooLarge))
	})

	t.Run("extracted too large", func(t *testing.T) {
		g := NewWithT(t)
		// Compresses to a few KiB, expands to 8 MiB.
		a, _ := publish(t, s, "bomb", map[string]string{"zeros": strings.Repeat("\x00", 8<<20)})
		g.Expect(*a.Size).To(BeNumerically("<", 64<<10))
		_, err := newFetcher(t, artifact.Options{MaxExtractedBytes: 1 << 20}).Fetch(ctx, refOf(a))
		g.Expect(err).To(MatchError(artifact.ErrTooLarge))
	})

	t.Run("path traversal", func(t *testing.T) {
		g := NewWithT(t)
		path := artifactserver.ArtifactPath("Bucket", "default", "evil", "")
		a, err := s.PublishBytes(path, crafted(t, tar.Header{Name: "../../escaped.k", Typeflag: tar.TypeReg, Mode: 0o644}), "")
		g.Expect(err).NotTo(HaveOccurred())
		cache := t.TempDir()
		_, err = newFetcher(t, artifact.Options{CacheDir: filepath.Join(cache, "c")}).Fetch(ctx, refOf(a))
		g.Expect(err).To(MatchError(artifact.ErrUnsafePath))
		g.Expect(filepath.Join(cache, "escaped.k")).NotTo(BeAnExistingFile())
	})

	t.Run("symlinks are skipped", func(t *testing.T) {
		g := NewWithT(t)
		path := artifactserver.ArtifactPath("Bucket", "default", "links", "")
		a, err := s.PublishBytes(path, crafted(t,
			tar.Header{Name: "main.k", Typeflag: tar.TypeReg, Mode: 0o644},
			tar.Header{Name: "passwd", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"},
		), "")
		g.Expect(err).NotTo(HaveOccurred())
		dir, err := newFetcher(t, artifact.Options{}).Fetch(ctx, refOf(a))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(filepath.Join(dir, "main.k")).To(BeARegularFile())
		_, err = os.Lstat(filepath.Join(dir, "passwd"))
		g.Expect(os.IsNotExist(err)).To(BeTrue())
	})

	t.Run("invalid digest", func(t *testing.T) {
		g := NewWithT(t)
		f := newFetcher(t, artifact.Options{})
		for _, d := range []string{"", "sha256:../../etc", "md5:abc"} {
			_, err := f.Fetch(ctx, artifact.Ref{URL: s.URL() + "/x.tar.gz", Digest: d})
			g.Expect(err).To(MatchError(artifact.ErrInvalidRef), d)
		}
	})
}

func TestCacheEvictsLeastRecentlyUsedBeyondItsBound(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	s := artifactserver.StartT(t)
	const size = 40 << 10
	a, pathA := publish(t, s, "a", map[string]string{"f": randomish(1, size)})
	b, _ := publish(t, s, "b", map[string]string{"f": randomish(2, size)})
	c, _ := publish(t, s, "c", map[string]string{"f": randomish(3, size)})
	// Room for two entries.
	f := newFetcher(t, artifact.Options{MaxCacheBytes: 2*size + size/2})

	dirA, err := f.Fetch(ctx, refOf(a))
	g.Expect(err).NotTo(HaveOccurred())
	dirB, release, err := f.Open(ctx, refOf(b)) // pinned: survives eviction while open
	g.Expect(err).NotTo(HaveOccurred())
	_, err = f.Fetch(ctx, refOf(c))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(dirA).NotTo(BeADirectory())
	g.Expect(dirB).To(BeADirectory())
	release()

	// A was evicted, so it is downloaded again; now B is the least recently used.
	_, err = f.Fetch(ctx, refOf(a))
	g.Expect(err).NotTo(HaveOccurred())
	// Requests, not Downloads: the handler counts a download after its last
	// byte is written, which may be after Fetch has returned.
	g.Expect(s.Requests(pathA)).To(Equal(2))
	g.Expect(dirB).NotTo(BeADirectory())
}

func TestCacheSurvivesRestart(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	s := artifactserver.StartT(t)
	a, path := publish(t, s, "app", map[string]string{"main.k": "a = 1\n"})
	cache := t.TempDir()

	dir, err := newFetcher(t, artifact.Options{CacheDir: cache}).Fetch(ctx, refOf(a))
	g.Expect(err).NotTo(HaveOccurred())
	again, err := newFetcher(t, artifact.Options{CacheDir: cache}).Fetch(ctx, refOf(a))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(again).To(Equal(dir))
	g.Expect(s.Requests(path)).To(Equal(1))
}

// crafted builds a tar.gz from raw headers (regular files get a small body).
func crafted(t *testing.T, headers ...tar.Header) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, h := range headers {
		body := []byte("a = 1\n")
		if h.Typeflag == tar.TypeReg {
			h.Size = int64(len(body))
		}
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := tw.Write(body); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// randomish is incompressible-enough content of n bytes (a simple LCG), deterministic for
// a seed.
func randomish(seed uint32, n int) string {
	b := make([]byte, n)
	x := seed
	for i := range b {
		x = x*1664525 + 1013904223
		b[i] = byte(x >> 24)
	}
	return string(b)
}

func TestCancelledCallerDoesNotAbortTheSharedDownload(t *testing.T) {
	g := NewWithT(t)
	s := artifactserver.StartT(t)
	a, path := publish(t, s, "slow", map[string]string{"main.k": "a = 1\n"})
	f := newFetcher(t, artifact.Options{})

	release := s.Hold(path)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := f.Fetch(ctx, refOf(a))
		errc <- err
	}()
	cancel()
	g.Expect(<-errc).To(MatchError(context.Canceled))

	release()
	dir, err := f.Fetch(context.Background(), refOf(a))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(filepath.Join(dir, "main.k")).To(BeARegularFile())
	g.Expect(s.Requests(path)).To(Equal(1))
}

func TestServerErrorsAreNotCached(t *testing.T) {
	g := NewWithT(t)
	s := artifactserver.StartT(t)
	a, path := publish(t, s, "flaky", map[string]string{"main.k": "a = 1\n"})
	f := newFetcher(t, artifact.Options{})

	s.SetStatus(path, 503)
	_, err := f.Fetch(context.Background(), refOf(a))
	g.Expect(err).To(MatchError(ContainSubstring("503")))
	g.Expect(err).To(MatchError(ContainSubstring(a.URL)))

	s.SetStatus(path, 0)
	_, err = f.Fetch(context.Background(), refOf(a))
	g.Expect(err).NotTo(HaveOccurred())
}
