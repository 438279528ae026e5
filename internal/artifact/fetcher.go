// Package artifact fetches Flux source artifacts (tar.gz over HTTP) for the compiler and the
// resolver: the digest is verified, download and extracted sizes are bounded, and the untar
// (fluxcd/pkg/tar) rejects paths that escape the target and skips symlinks.
//
// Extracted artifacts are cached on local disk by digest, bounded in total size with
// least-recently-used eviction. Concurrent fetches of one digest share one download. An
// artifact refused for what it is (too large, unsafe paths) is remembered by digest and
// refused again without a download.
//
//	f, err := artifact.New(artifact.Options{CacheDir: dir})
//	dir, err := f.Fetch(ctx, artifact.Ref{URL: a.URL, Revision: a.Revision, Digest: a.Digest})
//	dir, release, err := f.Open(ctx, ref) // dir is not evicted until release()
//
// The dir returned is shared: callers must not modify it. One Fetcher owns a CacheDir (share
// the Fetcher, not the dir, between services of one process). Errors match ErrNotFound,
// ErrDigestMismatch, ErrTooLarge, ErrUnsafePath or ErrInvalidRef with errors.Is.
package artifact

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/opencontainers/go-digest"
)

// Errors a fetch can be classified as.
var (
	ErrNotFound       = errors.New("artifact not found")
	ErrDigestMismatch = errors.New("artifact digest mismatch")
	ErrTooLarge       = errors.New("artifact too large")
	ErrUnsafePath     = errors.New("artifact has an entry outside its root")
	ErrInvalidRef     = errors.New("invalid artifact reference")
)

// Defaults for zero Options fields.
const (
	DefaultMaxDownloadBytes  = 50 << 20
	DefaultMaxExtractedBytes = 200 << 20
	DefaultMaxCacheBytes     = 1 << 30
	DefaultDownloadTimeout   = 5 * time.Minute
)

// Ref identifies an artifact as a Flux source's status.artifact does.
type Ref struct {
	// URL to download the tar.gz from.
	URL string
	// Revision is only used in error messages.
	Revision string
	// Digest "<algorithm>:<hex>" of the tar.gz; it keys the cache.
	Digest string
}

// Options configure a Fetcher.
type Options struct {
	// CacheDir holds the extracted artifacts; created if missing. Entries found there at
	// start-up are reused.
	CacheDir string
	// MaxDownloadBytes bounds the size of the tar.gz.
	MaxDownloadBytes int64
	// MaxExtractedBytes bounds the total size of the files in one artifact.
	MaxExtractedBytes int64
	// MaxCacheBytes bounds the cache; least recently used entries are removed beyond it.
	MaxCacheBytes int64
	// DownloadTimeout bounds one download and extraction, which outlives the callers
	// waiting on it (they may give up, the download serves the next fetch).
	DownloadTimeout time.Duration
	// Retries of a failed download (5xx, connection errors).
	Retries int
	// HostnameOverwrite replaces the host of artifact URLs, as Flux's --artifact-hostname does
	// (for controllers reaching source-controller under another name).
	HostnameOverwrite string
}

// Fetcher downloads, verifies, extracts and caches artifacts. Safe for concurrent use.
type Fetcher struct {
	opts       Options
	downloader *downloader

	mu       sync.Mutex
	lru      *lru
	inflight map[string]*download
	// refused are the permanent failures by cache key: a digest names one content, so
	// its size and its paths never change.
	refused map[string]error
}

// maxRefused bounds the memory of refusals; beyond it they are forgotten all at once.
const maxRefused = 4096

// download is one in-progress fetch shared by all callers asking for the same digest.
type download struct {
	done chan struct{}
	err  error
}

// New prepares the cache dir (removing leftovers of interrupted downloads, indexing the
// entries already there) and returns a Fetcher.
func New(opts Options) (*Fetcher, error) {
	if opts.CacheDir == "" {
		return nil, errors.New("artifact cache dir is required")
	}
	if opts.MaxDownloadBytes <= 0 {
		opts.MaxDownloadBytes = DefaultMaxDownloadBytes
	}
	if opts.MaxExtractedBytes <= 0 {
		opts.MaxExtractedBytes = DefaultMaxExtractedBytes
	}
	if opts.MaxCacheBytes <= 0 {
		opts.MaxCacheBytes = DefaultMaxCacheBytes
	}
	if opts.DownloadTimeout <= 0 {
		opts.DownloadTimeout = DefaultDownloadTimeout
	}
	f := &Fetcher{
		opts:       opts,
		downloader: newDownloader(opts),
		lru:        newLRU(),
		inflight:   map[string]*download{},
		refused:    map[string]error{},
	}
	if err := f.loadCache(); err != nil {
		return nil, err
	}
	return f, nil
}

// Fetch returns the dir holding the extracted artifact, downloading it unless cached.
// The dir stays until evicted by later fetches; use Open to hold it while reading.
func (f *Fetcher) Fetch(ctx context.Context, ref Ref) (string, error) {
	dir, release, err := f.Open(ctx, ref)
	if err != nil {
		return "", err
	}
	release()
	return dir, nil
}

// Open is Fetch that also pins the entry: it is not evicted until release is called
// (release is idempotent).
func (f *Fetcher) Open(ctx context.Context, ref Ref) (dir string, release func(), err error) {
	key, err := cacheKey(ref.Digest)
	if err != nil {
		return "", nil, err
	}
	for {
		f.mu.Lock()
		if e := f.lru.get(key); e != nil {
			if _, statErr := os.Stat(e.dir); statErr == nil {
				e.pins++
				f.mu.Unlock()
				return e.dir, f.releaser(e), nil
			}
			// Removed behind our back: forget it and download again.
			f.lru.remove(e)
		}
		if err := f.refused[key]; err != nil {
			f.mu.Unlock()
			return "", nil, err
		}
		d, running := f.inflight[key]
		if !running {
			d = &download{done: make(chan struct{})}
			f.inflight[key] = d
			go f.download(ctx, key, ref, d)
		}
		f.mu.Unlock()

		select {
		case <-ctx.Done():
			return "", nil, fmt.Errorf("fetching artifact %s: %w", describe(ref), ctx.Err())
		case <-d.done:
		}
		if d.err != nil {
			return "", nil, d.err
		}
		// Loop to pin the new entry under the lock; it cannot be evicted before we do
		// unless the cache is tiny and busy, in which case we simply fetch again.
	}
}

func (f *Fetcher) releaser(e *entry) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			f.mu.Lock()
			e.pins--
			f.evict(nil)
			f.mu.Unlock()
		})
	}
}

// download runs detached from the first caller's cancellation, so that callers that joined
// it are not failed by one that gave up; DownloadTimeout bounds it instead.
func (f *Fetcher) download(ctx context.Context, key string, ref Ref, d *download) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), f.opts.DownloadTimeout)
	defer cancel()
	dir, size, err := f.fetchInto(ctx, key, ref)

	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case err == nil:
		e := f.lru.add(key, dir, size)
		f.evict(e)
	case errors.Is(err, ErrTooLarge), errors.Is(err, ErrUnsafePath):
		if len(f.refused) >= maxRefused {
			clear(f.refused)
		}
		f.refused[key] = err
	}
	d.err = err
	delete(f.inflight, key)
	close(d.done)
}

// fetchInto downloads and extracts into a temp dir, then renames it into place, so a cache
// entry is either complete or absent.
func (f *Fetcher) fetchInto(ctx context.Context, key string, ref Ref) (string, int64, error) {
	tmpRoot := filepath.Join(f.opts.CacheDir, tmpDirName)
	if err := os.MkdirAll(tmpRoot, 0o755); err != nil {
		return "", 0, fmt.Errorf("creating artifact cache: %w", err)
	}
	tmp, err := os.MkdirTemp(tmpRoot, "fetch-")
	if err != nil {
		return "", 0, fmt.Errorf("creating artifact cache: %w", err)
	}
	defer os.RemoveAll(tmp)

	if err := f.downloader.fetch(ctx, ref.URL, ref.Digest, tmp); err != nil {
		return "", 0, classify(ref, err)
	}
	size, err := dirSize(tmp)
	if err != nil {
		return "", 0, fmt.Errorf("measuring artifact %s: %w", describe(ref), err)
	}
	final := filepath.Join(f.opts.CacheDir, filepath.FromSlash(key))
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return "", 0, fmt.Errorf("creating artifact cache: %w", err)
	}
	_ = os.RemoveAll(final) // a stale entry the index did not know about
	if err := os.Rename(tmp, final); err != nil {
		return "", 0, fmt.Errorf("storing artifact %s in cache: %w", describe(ref), err)
	}
	return final, size, nil
}

// classify maps download and untar failures to our sentinel errors, keeping the
// original message. fluxcd/pkg/tar reports its refusals as plain text.
func classify(ref Ref, err error) error {
	msg := err.Error()
	var kind error
	switch {
	case errors.Is(err, ErrNotFound), errors.Is(err, ErrDigestMismatch), errors.Is(err, ErrInvalidRef):
		return fmt.Errorf("fetching artifact %s: %w", describe(ref), err)
	case errors.Is(err, errTooLargeDownload), strings.Contains(msg, "bigger than max archive size"):
		kind = ErrTooLarge
	case strings.Contains(msg, "invalid name"):
		kind = ErrUnsafePath
	default:
		return fmt.Errorf("fetching artifact %s: %w", describe(ref), err)
	}
	return fmt.Errorf("fetching artifact %s: %w: %w", describe(ref), kind, err)
}

func describe(ref Ref) string {
	if ref.Revision != "" {
		return fmt.Sprintf("%s (revision %s)", ref.URL, ref.Revision)
	}
	return ref.URL
}

// cacheKey turns a digest into a relative cache path "<algorithm>/<hex>", validating it so
// that it cannot point elsewhere.
func cacheKey(dig string) (string, error) {
	if dig == "" {
		return "", fmt.Errorf("%w: empty digest", ErrInvalidRef)
	}
	d, err := digest.Parse(dig)
	if err != nil {
		return "", fmt.Errorf("%w: digest %q: %w", ErrInvalidRef, dig, err)
	}
	return d.Algorithm().String() + "/" + d.Encoded(), nil
}
