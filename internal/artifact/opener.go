package artifact

import (
	"context"
	"fmt"
	"os"

	programv1 "github.com/kcl-lang/flux-kcl-controller/proto/program/v1"
)

// Opener is how a gRPC worker (compiler, resolver) gets a program's artifact: downloaded,
// its digest verified, unpacked, and the folder kept until release is called. The folder
// is shared and must not be modified.
type Opener interface {
	Open(ctx context.Context, ref *programv1.ArtifactRef) (dir string, release func(), err error)
}

// NewOpener builds a worker's artifact cache from its flags: cacheDir (empty: a
// temporary folder named for the worker), the largest artifact and the disk bound.
func NewOpener(worker, cacheDir string, maxDownloadBytes, maxCacheBytes int64) (Opener, error) {
	if cacheDir == "" {
		var err error
		if cacheDir, err = os.MkdirTemp("", "flux-kcl-"+worker+"-artifacts-"); err != nil {
			return nil, fmt.Errorf("creating the artifact cache dir: %w", err)
		}
	}
	f, err := New(Options{
		CacheDir:         cacheDir,
		MaxDownloadBytes: maxDownloadBytes,
		MaxCacheBytes:    maxCacheBytes,
		// No retries inside a fetch: the applier's slot would wait with them. A
		// refused or failing download fails the reconcile at once; the applier
		// retries it while its slot serves other tenants.
		Retries: 0,
	})
	if err != nil {
		return nil, err
	}
	return protoRefs{f}, nil
}

// protoRefs opens the artifacts that the workers' requests name.
type protoRefs struct{ fetcher *Fetcher }

func (p protoRefs) Open(ctx context.Context, ref *programv1.ArtifactRef) (string, func(), error) {
	return p.fetcher.Open(ctx, Ref{URL: ref.GetUrl(), Revision: ref.GetRevision(), Digest: ref.GetDigest()})
}
