// Package artifactserver serves tar.gz artifacts over HTTP the way source-controller does,
// so tests exercise the real fetch path (fluxcd/pkg/http/fetch) against Flux source objects.
//
// API:
//
//	s, err := artifactserver.Start()   // or s := artifactserver.StartT(t), closed on cleanup
//	a, err := s.PublishFiles(artifactserver.ArtifactPath("GitRepository", "ns", "app", ""),
//		map[string]string{"main.k": `apiVersion = "v1"`}, "")   // *meta.Artifact: URL, Revision, Digest, Size, LastUpdateTime
//	a, err = s.PublishDir(path, dir, revision)     // archive a directory with fluxcd/pkg/tar
//	a, err = s.PublishBytes(path, data, revision)  // serve bytes as they are (crafted archives)
//	err = s.Replace(path, data)  // change served bytes but not the returned artifact (digest mismatch)
//	err = s.Remove(path)         // make it 404
//	n := s.Downloads(path)       // completed GETs of path, to prove caching
//	s.SetStatus(path, 503)       // fail requests for path until SetStatus(path, 0)
//	release := s.Hold(path)      // requests for path wait until release()
//	release = s.HoldAfter(path, 1) // the first request passes, later ones wait
//	n = s.Waiting(path)          // requests for path waiting on a hold now
//	s.Down()                     // an outage: connections are refused
//	err = s.Up()                 // serving again on the same address
//	a, err = s.PublishZeros(path, 1<<30, revision) // a sparse file: huge, never in memory
//	data, err := artifactserver.TarGz(files)  // deterministic tar.gz of name → content
//
// and, with a controller-runtime client on an apiserver that has the Flux source CRDs:
//
//	obj, err := artifactserver.CreateSource(ctx, c, "GitRepository", "ns", "app", a)
//	err = artifactserver.SetArtifact(ctx, c, obj, a)  // status.artifact + Ready=True
//
// An empty revision defaults to "main@sha1:<sha1 of the archive>", the GitRepository format.
package artifactserver

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Server is a running artifact server rooted in a temp dir.
type Server struct {
	root    string
	url     string
	addr    string
	handler http.Handler

	mu        sync.Mutex
	http      *httptest.Server // nil while Down
	downloads map[string]int
	requests  map[string]int
	waiting   map[string]int
	statuses  map[string]int
	holds     map[string]*hold
	// small keeps a copy of each artifact up to smallArtifact bytes, served from
	// memory: the load driver's scale-out hosts this server on the machine it
	// measures, and a file open, stat and close per download is CPU the
	// compiler workers then lack.
	small map[string]smallArtifact
}

// smallArtifactBytes bounds the artifacts kept in memory.
const smallArtifactBytes = 1 << 20

type smallArtifact struct {
	data    []byte
	modTime time.Time
}

// hold makes requests for a path wait, except the first pass ones.
type hold struct {
	pass    int
	release chan struct{}
}

// Start serves a new empty storage dir on a loopback port.
func Start() (*Server, error) {
	root, err := os.MkdirTemp("", "artifactserver-")
	if err != nil {
		return nil, fmt.Errorf("creating artifact storage dir: %w", err)
	}
	s := &Server{
		root: root, downloads: map[string]int{}, requests: map[string]int{}, waiting: map[string]int{},
		statuses: map[string]int{}, holds: map[string]*hold{}, small: map[string]smallArtifact{},
	}
	files := http.FileServer(http.Dir(root))
	s.handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path := strings.TrimPrefix(r.URL.Path, "/")
		s.mu.Lock()
		s.requests[path]++
		status, h, cached := s.statuses[path], s.holds[path], s.small[path]
		var wait chan struct{}
		if h != nil && s.requests[path] > h.pass {
			wait = h.release
			s.waiting[path]++
		}
		s.mu.Unlock()
		if wait != nil {
			select {
			case <-wait:
			case <-r.Context().Done():
			}
			s.mu.Lock()
			s.waiting[path]--
			s.mu.Unlock()
			if r.Context().Err() != nil {
				return
			}
		}
		if status != 0 {
			http.Error(w, http.StatusText(status), status)
			return
		}
		if cached.data != nil {
			http.ServeContent(w, r, path, cached.modTime, bytes.NewReader(cached.data))
		} else {
			files.ServeHTTP(w, r)
		}
		if r.Method == http.MethodGet {
			s.mu.Lock()
			s.downloads[path]++
			s.mu.Unlock()
		}
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		_ = os.RemoveAll(root)
		return nil, fmt.Errorf("listening for the artifact server: %w", err)
	}
	s.addr = ln.Addr().String()
	s.url = "http://" + s.addr
	s.serve(ln)
	return s, nil
}

func (s *Server) serve(ln net.Listener) {
	srv := httptest.NewUnstartedServer(s.handler)
	_ = srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	s.http = srv
}

// Down stops serving, as a source-controller outage does: connections are refused and
// requests in flight (held ones too) are cut. Published artifacts stay for Up.
func (s *Server) Down() {
	s.mu.Lock()
	srv := s.http
	s.http = nil
	s.mu.Unlock()
	if srv == nil {
		return
	}
	srv.CloseClientConnections()
	srv.Close()
}

// Up serves again on the same address after Down; a no-op while serving.
func (s *Server) Up() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.http != nil {
		return nil
	}
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		return fmt.Errorf("listening again on %s: %w", s.addr, err)
	}
	s.serve(ln)
	return nil
}

// StartT starts a server for a test, failing it on error and closing the server on cleanup.
func StartT(tb testing.TB) *Server {
	tb.Helper()
	s, err := Start()
	if err != nil {
		tb.Fatalf("starting artifact server: %v", err)
	}
	tb.Cleanup(s.Close)
	return s
}

// URL is the base URL, without a trailing slash; stable across Down and Up.
func (s *Server) URL() string { return s.url }

// Root is the storage dir served.
func (s *Server) Root() string { return s.root }

// Close releases held requests, stops serving and removes the storage dir.
func (s *Server) Close() {
	s.mu.Lock()
	for path, h := range s.holds {
		close(h.release)
		delete(s.holds, path)
	}
	s.mu.Unlock()
	s.Down()
	_ = os.RemoveAll(s.root)
}

// ArtifactPath is where source-controller would store an artifact of the given source:
// "<kind>/<namespace>/<name>/<file>", file defaulting to "latest.tar.gz".
func ArtifactPath(kind, namespace, name, file string) string {
	if file == "" {
		file = "latest.tar.gz"
	}
	return strings.Join([]string{strings.ToLower(kind), namespace, name, file}, "/")
}

// PublishFiles archives files (slash-separated name → content) and serves them at path.
func (s *Server) PublishFiles(path string, files map[string]string, revision string) (*meta.Artifact, error) {
	data, err := TarGz(files)
	if err != nil {
		return nil, err
	}
	return s.PublishBytes(path, data, revision)
}

// PublishDir archives dir as source-controller does and serves it at path.
func (s *Server) PublishDir(path, dir, revision string) (*meta.Artifact, error) {
	data, err := TarGzDir(dir)
	if err != nil {
		return nil, err
	}
	return s.PublishBytes(path, data, revision)
}

// PublishBytes serves data at path and describes it as a Flux artifact.
func (s *Server) PublishBytes(path string, data []byte, revision string) (*meta.Artifact, error) {
	if err := s.write(path, data); err != nil {
		return nil, err
	}
	if revision == "" {
		sum := sha1.Sum(data)
		revision = "main@sha1:" + hex.EncodeToString(sum[:])
	}
	digest := sha256.Sum256(data)
	size := int64(len(data))
	return &meta.Artifact{
		Path:           path,
		URL:            s.URL() + "/" + path,
		Revision:       revision,
		Digest:         "sha256:" + hex.EncodeToString(digest[:]),
		Size:           &size,
		LastUpdateTime: metav1.NewTime(time.Now().Truncate(time.Second)),
	}, nil
}

// PublishZeros serves size zero bytes at path from a sparse file, so a huge artifact (for
// size limits) costs neither memory nor disk; only its digest is computed, by streaming.
func (s *Server) PublishZeros(path string, size int64, revision string) (*meta.Artifact, error) {
	full, err := s.file(path)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return nil, fmt.Errorf("creating artifact dir: %w", err)
	}
	s.mu.Lock()
	delete(s.small, path)
	s.mu.Unlock()
	f, err := os.Create(full)
	if err != nil {
		return nil, fmt.Errorf("creating artifact %s: %w", path, err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		return nil, fmt.Errorf("sizing artifact %s: %w", path, err)
	}
	digest := sha256.New()
	if _, err := io.Copy(digest, f); err != nil {
		return nil, fmt.Errorf("digesting artifact %s: %w", path, err)
	}
	if revision == "" {
		revision = fmt.Sprintf("main@sha1:%040x", size)
	}
	return &meta.Artifact{
		Path:           path,
		URL:            s.URL() + "/" + path,
		Revision:       revision,
		Digest:         "sha256:" + hex.EncodeToString(digest.Sum(nil)),
		Size:           &size,
		LastUpdateTime: metav1.NewTime(time.Now().Truncate(time.Second)),
	}, nil
}

// Replace changes the bytes served at path without a new artifact, so the digest a source
// advertises no longer matches.
func (s *Server) Replace(path string, data []byte) error { return s.write(path, data) }

// Remove stops serving path (a 404 from then on).
func (s *Server) Remove(path string) error {
	full, err := s.file(path)
	if err != nil {
		return err
	}
	if err := os.Remove(full); err != nil {
		return fmt.Errorf("removing artifact %s: %w", path, err)
	}
	s.mu.Lock()
	delete(s.small, path)
	s.mu.Unlock()
	return nil
}

// SetStatus makes requests for path fail with the HTTP status code (such as 500 or 503)
// until it is set back to 0.
func (s *Server) SetStatus(path string, code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if code == 0 {
		delete(s.statuses, path)
	} else {
		s.statuses[path] = code
	}
}

// Hold makes requests for path wait until release is called (or the client gives up), to
// test slow sources, cancellation and concurrent callers deterministically. release is
// idempotent.
func (s *Server) Hold(path string) (release func()) { return s.HoldAfter(path, 0) }

// HoldAfter is Hold for the requests of path after the next pass ones: with pass 1, the
// first caller to download a new artifact gets it and the second waits (to catch the
// compiler, which downloads after the resolver, in the middle of a request).
func (s *Server) HoldAfter(path string, pass int) (release func()) {
	s.mu.Lock()
	h := &hold{pass: s.requests[path] + pass, release: make(chan struct{})}
	s.holds[path] = h
	s.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.holds[path] == h { // not already released by Close
				delete(s.holds, path)
				close(h.release)
			}
		})
	}
}

// Waiting counts the requests for path waiting on a hold now.
func (s *Server) Waiting(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.waiting[path]
}

// Requests counts the requests received for path. It is counted before any byte
// is sent, so a client that gave up on the response early is already counted once
// its call returns, where Downloads may still be waiting for the handler.
func (s *Server) Requests(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[path]
}

// Downloads counts the GET requests served for path.
func (s *Server) Downloads(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.downloads[path]
}

func (s *Server) write(path string, data []byte) error {
	full, err := s.file(path)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return fmt.Errorf("creating artifact dir: %w", err)
	}
	// Write then rename, so a concurrent download never sees a partial file.
	tmp := full + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return fmt.Errorf("writing artifact %s: %w", path, err)
	}
	if err := os.Rename(tmp, full); err != nil {
		return fmt.Errorf("writing artifact %s: %w", path, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(data) <= smallArtifactBytes {
		s.small[path] = smallArtifact{data: bytes.Clone(data), modTime: time.Now()}
	} else {
		delete(s.small, path)
	}
	return nil
}

func (s *Server) file(path string) (string, error) {
	if !filepath.IsLocal(filepath.FromSlash(path)) {
		return "", errors.New("artifact path must be relative and stay inside the storage dir: " + path)
	}
	return filepath.Join(s.root, filepath.FromSlash(path)), nil
}
