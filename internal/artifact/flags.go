package artifact

import "github.com/spf13/pflag"

// CacheFlags are a worker's artifact cache flags.
type CacheFlags struct {
	// ArtifactCacheDir keeps unpacked artifacts by digest; empty uses a temporary folder.
	ArtifactCacheDir string
	// ArtifactCacheBytes bounds the artifact cache on disk.
	ArtifactCacheBytes int64
	// ArtifactMaxBytes refuses bigger artifacts.
	ArtifactMaxBytes int64
}

// DefaultCacheFlags: 1 GiB on disk, artifacts up to 100 MiB.
func DefaultCacheFlags() CacheFlags {
	return CacheFlags{ArtifactCacheBytes: 1 << 30, ArtifactMaxBytes: 100 << 20}
}

// BindFlags registers the flags on fs, defaulting to the values already in c.
func (c *CacheFlags) BindFlags(fs *pflag.FlagSet) {
	fs.StringVar(&c.ArtifactCacheDir, "artifact-cache-dir", c.ArtifactCacheDir, "The folder caching unpacked artifacts by digest; empty uses a temporary folder.")
	fs.Int64Var(&c.ArtifactCacheBytes, "artifact-cache-bytes", c.ArtifactCacheBytes, "The disk bound of the artifact cache.")
	fs.Int64Var(&c.ArtifactMaxBytes, "artifact-max-bytes", c.ArtifactMaxBytes, "The maximum size of an artifact.")
}

// Opener builds the worker's artifact cache from the flags (see NewOpener).
func (c CacheFlags) Opener(worker string) (Opener, error) {
	return NewOpener(worker, c.ArtifactCacheDir, c.ArtifactMaxBytes, c.ArtifactCacheBytes)
}
