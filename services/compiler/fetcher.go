package compiler

import (
	"context"
	"fmt"
	"os"

	"github.com/kcl-lang/flux-kcl-controller/internal/artifact"
	programv1 "github.com/kcl-lang/flux-kcl-controller/proto/program/v1"
)

// artifactCache adapts internal/artifact to ArtifactFetcher.
type artifactCache struct{ fetcher *artifact.Fetcher }

// NewArtifactFetcher adapts an internal/artifact Fetcher (shared, for instance, by
// the compiler and resolver of the all-in-one process).
func NewArtifactFetcher(f *artifact.Fetcher) ArtifactFetcher { return artifactCache{fetcher: f} }

func (a artifactCache) Open(ctx context.Context, ref *programv1.ArtifactRef) (string, func(), error) {
	return a.fetcher.Open(ctx, artifact.Ref{URL: ref.GetUrl(), Revision: ref.GetRevision(), Digest: ref.GetDigest()})
}

// newArtifactFetcher builds the fetcher from the artifact flags.
func newArtifactFetcher(cfg Config) (ArtifactFetcher, error) {
	dir := cfg.ArtifactCacheDir
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "flux-kcl-compiler-artifacts-"); err != nil {
			return nil, fmt.Errorf("creating the artifact cache dir: %w", err)
		}
	}
	f, err := artifact.New(artifact.Options{
		CacheDir:         dir,
		MaxDownloadBytes: cfg.ArtifactMaxBytes,
		MaxCacheBytes:    cfg.ArtifactCacheBytes,
		// No retries inside a fetch: the applier's slot would wait with
		// them. A refused or failing download fails the reconcile at once;
		// the applier retries it while its slot serves other tenants.
		Retries: 0,
	})
	if err != nil {
		return nil, err
	}
	return NewArtifactFetcher(f), nil
}
