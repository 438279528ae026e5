package artifact_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/internal/artifact"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
)

// program is a KCL program of 50 files of about 2 KiB each, a mid-sized configuration repo.
func program() map[string]string {
	files := map[string]string{"kcl.mod": "[package]\nname = \"bench\"\n"}
	for i := range 50 {
		body := ""
		for j := range 40 {
			body += fmt.Sprintf("item_%d_%d = {name = \"svc-%d\", replicas = %d}\n", i, j, j, j%5)
		}
		files[fmt.Sprintf("pkg%d/main.k", i)] = body
	}
	return files
}

// BenchmarkFetchDownload measures a cache miss: download, digest check, untar.
func BenchmarkFetchDownload(b *testing.B) {
	s := artifactserver.StartT(b)
	a, err := s.PublishFiles(artifactserver.ArtifactPath("GitRepository", "bench", "app", ""), program(), "")
	if err != nil {
		b.Fatal(err)
	}
	ref := artifact.Ref{URL: a.URL, Revision: a.Revision, Digest: a.Digest}
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		f, err := artifact.New(artifact.Options{CacheDir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := f.Fetch(context.Background(), ref); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(*a.Size), "archive-bytes")
}

// BenchmarkFetchCached measures a cache hit, the steady state of a reconcile loop.
func BenchmarkFetchCached(b *testing.B) {
	s := artifactserver.StartT(b)
	a, err := s.PublishFiles(artifactserver.ArtifactPath("GitRepository", "bench", "app", ""), program(), "")
	if err != nil {
		b.Fatal(err)
	}
	f, err := artifact.New(artifact.Options{CacheDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	ref := artifact.Ref{URL: a.URL, Revision: a.Revision, Digest: a.Digest}
	if _, err := f.Fetch(context.Background(), ref); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := f.Fetch(context.Background(), ref); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
