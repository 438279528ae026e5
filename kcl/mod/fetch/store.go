// Package fetch downloads KCL packages for kcl/mod: OCI artifacts in kpm's
// format (with go-containerregistry) and Git repositories (with go-git), kept
// in a size-bounded disk cache by content digest and shared by every compilation
// of the process. A package's folder path depends only on its digest, so the
// engine's parsed-package cache (keyed by path and content) parses it once.
//
// Sharing contents does not share access: every compilation asks the registry
// for the tag's digest with its own credentials (answers are remembered per
// credentials for Options.TagTTL), so a tenant cannot read a private package
// another tenant's credentials brought into the cache.
package fetch

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"

	"github.com/kcl-lang/flux-kcl-controller/kcl/mod"
)

// Errors of a fetch, for callers that classify failures.
var (
	ErrNotFound     = errors.New("package not found")
	ErrUnauthorized = errors.New("access to the package denied")
)

// Options configure a Store.
type Options struct {
	// CacheDir keeps packages; required.
	CacheDir string
	// MaxCacheBytes bounds the cache on disk; least recently used packages not
	// in use are removed past it. Default 2 GiB.
	MaxCacheBytes int64
	// MaxPackageBytes refuses bigger packages (download and unpacked). Default 100 MiB.
	MaxPackageBytes int64
	// Timeout bounds the fetch of one package. Default 2 minutes.
	Timeout time.Duration
	// Retries of a failed registry request, with exponential backoff. Default 3.
	Retries int
	// Mirrors rewrite registry locations before any request.
	Mirrors []Mirror
	// PlainHTTP lists registry hosts spoken to over plain HTTP.
	PlainHTTP []string
	// CAFile adds the PEM certificates of internal registries' authorities.
	CAFile string
	// Keychain serves requests without credentials of their own (the CLI's Docker
	// config); nil means anonymous.
	Keychain authn.Keychain
	// TagTTL is how long a tag's or branch's digest is reused for the same
	// credentials without asking the registry again. Default 1 minute; negative
	// asks every time.
	TagTTL time.Duration
	// Policy limits the hosts and addresses packages come from; nil allows all.
	Policy *Policy
}

// Mirror rewrites a registry location prefix: ghcr.io/kcl-lang → registry.internal/kcl-lang.
type Mirror struct{ From, To string }

// ParseMirror reads "from=to".
func ParseMirror(s string) (Mirror, error) {
	from, to, ok := strings.Cut(s, "=")
	from, to = strings.Trim(strings.TrimPrefix(from, "oci://"), "/"), strings.Trim(strings.TrimPrefix(to, "oci://"), "/")
	if !ok || from == "" || to == "" {
		return Mirror{}, fmt.Errorf("registry mirror %q: want from=to, such as ghcr.io/kcl-lang=registry.internal/kcl-lang", s)
	}
	return Mirror{From: from, To: to}, nil
}

// apply rewrites "registry/repository" when it starts with From at a path boundary.
func applyMirrors(mirrors []Mirror, registry, repository string) (string, string) {
	loc := registry + "/" + repository
	for _, m := range mirrors {
		if loc == m.From || strings.HasPrefix(loc, m.From+"/") {
			loc = m.To + strings.TrimPrefix(loc, m.From)
			reg, repo, _ := strings.Cut(loc, "/")
			return reg, repo
		}
	}
	return registry, repository
}

// Stats count cache use since the Store started.
type Stats struct {
	Hits, Misses int64
	Bytes        int64
	Packages     int
}

// Store is the process-wide package cache. It is safe for concurrent use.
type Store struct {
	opts      Options
	transport http.RoundTripper
	plainHTTP map[string]bool

	mu      sync.Mutex
	entries map[string]*entry
	size    int64
	digests map[string]memo // credentials key + location → digest or commit

	hits, misses atomic.Int64
}

type entry struct {
	dir, sum string
	size     int64
	refs     int
	lastUse  time.Time
	ready    chan struct{} // closed when dir is complete or err set
	err      error
}

type memo struct {
	digest string
	until  time.Time
}

// New opens the cache in opts.CacheDir, keeping the complete packages a
// previous process left there.
func New(opts Options) (*Store, error) {
	if opts.CacheDir == "" {
		return nil, errors.New("package cache: a cache folder is required")
	}
	if opts.MaxCacheBytes <= 0 {
		opts.MaxCacheBytes = 2 << 30
	}
	if opts.MaxPackageBytes <= 0 {
		opts.MaxPackageBytes = 100 << 20
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 2 * time.Minute
	}
	if opts.Retries <= 0 {
		opts.Retries = 3
	}
	if opts.TagTTL == 0 {
		opts.TagTTL = time.Minute
	}
	if err := os.MkdirAll(opts.CacheDir, 0o755); err != nil {
		return nil, fmt.Errorf("package cache: %w", err)
	}
	transport, err := newTransport(opts.CAFile)
	if err != nil {
		return nil, err
	}
	installGitTransport()
	s := &Store{opts: opts, transport: transport, plainHTTP: map[string]bool{}, entries: map[string]*entry{}, digests: map[string]memo{}}
	for _, h := range opts.PlainHTTP {
		s.plainHTTP[normaliseHost(h)] = true
	}
	if err := s.load(); err != nil {
		return nil, err
	}
	return s, nil
}

func newTransport(caFile string) (http.RoundTripper, error) {
	t := policyTransport(http.DefaultTransport.(*http.Transport))
	if caFile == "" {
		return t, nil
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("registry CA file: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("registry CA file %s holds no PEM certificate", caFile)
	}
	t.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return t, nil
}

// load indexes complete packages on disk and removes unfinished ones.
func (s *Store) load() error {
	items, err := os.ReadDir(s.opts.CacheDir)
	if err != nil {
		return fmt.Errorf("package cache: %w", err)
	}
	for _, it := range items {
		dir := filepath.Join(s.opts.CacheDir, it.Name())
		sum, err := os.ReadFile(filepath.Join(dir, "sum"))
		if !it.IsDir() || strings.HasPrefix(it.Name(), "tmp-") || err != nil {
			_ = os.RemoveAll(dir)
			continue
		}
		ready := make(chan struct{})
		close(ready)
		size, _ := dirSize(filepath.Join(dir, "pkg"))
		s.entries[it.Name()] = &entry{dir: filepath.Join(dir, "pkg"), sum: string(sum), size: size, ready: ready, lastUse: time.Now()}
		s.size += size
	}
	return nil
}

// Stats reports cache use.
func (s *Store) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Stats{Hits: s.hits.Load(), Misses: s.misses.Load(), Bytes: s.size, Packages: len(s.entries)}
}

// Session is one compilation's view of the store: its credentials, and the
// packages it holds until Release.
type Session struct {
	store *Store
	creds *Credentials

	mu       sync.Mutex
	releases []func()
}

// Session starts a compilation's use of the store; creds may be nil.
func (s *Store) Session(creds *Credentials) *Session {
	return &Session{store: s, creds: creds}
}

// Release lets the cache evict the packages this session used.
func (se *Session) Release() {
	se.mu.Lock()
	releases := se.releases
	se.releases = nil
	se.mu.Unlock()
	for _, r := range releases {
		r()
	}
}

// Fetch implements mod.Fetcher.
func (se *Session) Fetch(ctx context.Context, src mod.Source) (*mod.Fetched, error) {
	registry, _ := applyMirrors(se.store.opts.Mirrors, src.Registry, src.Repository)
	if err := se.store.opts.Policy.checkSource(src, registry); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, se.store.opts.Timeout)
	defer cancel()
	ctx, slot := withPolicy(ctx, se.store.opts.Policy, src.String())
	var (
		got *mod.Fetched
		err error
	)
	switch src.Kind {
	case mod.OCISource:
		got, err = se.fetchOCI(ctx, src)
	case mod.GitSource:
		got, err = se.fetchGit(ctx, src)
	default:
		err = fmt.Errorf("unknown package source %v", src.Kind)
	}
	if err != nil && ctx.Err() != nil && !errors.Is(err, context.Canceled) {
		err = fmt.Errorf("no answer within %s: %w", se.store.opts.Timeout, err)
	}
	return got, refusal(err, slot)
}

func (se *Session) keychain() authn.Keychain {
	if se.creds != nil {
		return se.creds
	}
	if se.store.opts.Keychain != nil {
		return se.store.opts.Keychain
	}
	return authn.NewMultiKeychain()
}

// digestFor returns a remembered digest of location for these credentials.
func (se *Session) digestFor(location string) (string, bool) {
	if se.store.opts.TagTTL < 0 {
		return "", false
	}
	se.store.mu.Lock()
	defer se.store.mu.Unlock()
	m, ok := se.store.digests[se.creds.Key()+"\x00"+location]
	if !ok || time.Now().After(m.until) {
		return "", false
	}
	return m.digest, true
}

func (se *Session) rememberDigest(location, digest string) {
	if se.store.opts.TagTTL < 0 {
		return
	}
	se.store.mu.Lock()
	defer se.store.mu.Unlock()
	if len(se.store.digests) > 10000 {
		se.store.digests = map[string]memo{}
	}
	se.store.digests[se.creds.Key()+"\x00"+location] = memo{digest: digest, until: time.Now().Add(se.store.opts.TagTTL)}
}

// obtain returns the cached package under key, filling it with fill (which
// writes the package into the folder it is given) the first time. Concurrent
// callers of one key wait for a single fill.
func (se *Session) obtain(ctx context.Context, key string, fill func(dir string) error) (*entry, error) {
	s := se.store
	for {
		s.mu.Lock()
		e, ok := s.entries[key]
		if !ok {
			e = &entry{ready: make(chan struct{})}
			s.entries[key] = e
			s.mu.Unlock()
			s.misses.Add(1)
			err := s.fill(key, e, fill)
			if err != nil {
				return nil, err
			}
			se.hold(key, e)
			return e, nil
		}
		s.mu.Unlock()
		select {
		case <-e.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if e.err != nil {
			continue // the filler failed and removed the entry: try ourselves
		}
		s.hits.Add(1)
		se.hold(key, e)
		return e, nil
	}
}

func (se *Session) hold(key string, e *entry) {
	s := se.store
	s.mu.Lock()
	e.refs++
	e.lastUse = time.Now()
	s.mu.Unlock()
	var once sync.Once
	se.mu.Lock()
	se.releases = append(se.releases, func() {
		once.Do(func() {
			s.mu.Lock()
			e.refs--
			e.lastUse = time.Now()
			s.evictLocked()
			s.mu.Unlock()
		})
	})
	se.mu.Unlock()
}

func (s *Store) fill(key string, e *entry, fill func(dir string) error) (err error) {
	final := filepath.Join(s.opts.CacheDir, key)
	defer func() {
		s.mu.Lock()
		if err != nil {
			e.err = err
			delete(s.entries, key)
		}
		close(e.ready)
		s.mu.Unlock()
	}()
	tmp, err := os.MkdirTemp(s.opts.CacheDir, "tmp-")
	if err != nil {
		return fmt.Errorf("package cache: %w", err)
	}
	defer os.RemoveAll(tmp)
	pkg := filepath.Join(tmp, "pkg")
	if err := os.Mkdir(pkg, 0o755); err != nil {
		return fmt.Errorf("package cache: %w", err)
	}
	if err := fill(pkg); err != nil {
		return err
	}
	size, err := dirSize(pkg)
	if err != nil {
		return err
	}
	if size > s.opts.MaxPackageBytes {
		return fmt.Errorf("%w: %d bytes, the limit is %d", ErrTooLarge, size, s.opts.MaxPackageBytes)
	}
	sum, err := mod.Sum(pkg)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, "sum"), []byte(sum), 0o644); err != nil {
		return fmt.Errorf("package cache: %w", err)
	}
	_ = os.RemoveAll(final) // a leftover of a crashed process
	if err := os.Rename(tmp, final); err != nil {
		return fmt.Errorf("package cache: %w", err)
	}
	s.mu.Lock()
	e.dir, e.sum, e.size, e.lastUse = filepath.Join(final, "pkg"), sum, size, time.Now()
	s.size += size
	s.mu.Unlock()
	return nil
}

// evictLocked removes least recently used packages nobody holds until the
// cache fits its bound.
func (s *Store) evictLocked() {
	if s.size <= s.opts.MaxCacheBytes {
		return
	}
	type candidate struct {
		key string
		e   *entry
	}
	var idle []candidate
	for k, e := range s.entries {
		if e.refs == 0 && e.dir != "" {
			idle = append(idle, candidate{k, e})
		}
	}
	sort.Slice(idle, func(i, j int) bool { return idle[i].e.lastUse.Before(idle[j].e.lastUse) })
	for _, c := range idle {
		if s.size <= s.opts.MaxCacheBytes {
			return
		}
		delete(s.entries, c.key)
		s.size -= c.e.size
		_ = os.RemoveAll(filepath.Dir(c.e.dir))
	}
}

func dirSize(dir string) (int64, error) {
	var total int64
	err := filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			total += info.Size()
		}
		return err
	})
	return total, err
}

func hashKey(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s", len(p), p)
	}
	return hex.EncodeToString(h.Sum(nil))[:40]
}
