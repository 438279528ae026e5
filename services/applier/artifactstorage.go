package applier

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/ssa"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// artifactStorage keeps the tarballs that KCLRuns in mode ExternalArtifact
// publish, in --storage-path with source-controller's layout
// (<kind>/<namespace>/<name>/<file>), and serves them over HTTP as
// source-controller does, so that kustomize-controller fetches them the same
// way. One replica's folder: with several applier replicas each would serve
// only what it wrote (README: the NATS object store is the follow-up).
type artifactStorage struct {
	root string
	// advertised is host:port in the artifacts' URLs; set once listening.
	advertised string
	// retention is how many tarballs per ExternalArtifact are kept, the
	// current one included (source-controller's --artifact-retention-records).
	retention int
}

// artifactKind is the first segment of the storage paths: the kind of the
// object the artifact belongs to, lower case, as source-controller writes it.
const artifactKind = "externalartifact"

// artifactFile is the one file in a published tarball.
const artifactFile = "kclrun.yaml"

// listen binds --storage-addr and fixes the advertised address: --storage-adv-addr,
// else the listener's address, the host name standing in for an unspecified host.
func (st *artifactStorage) listen(addr, advertised string) (net.Listener, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listening on --storage-addr %s: %w", addr, err)
	}
	if advertised == "" {
		host, port, _ := net.SplitHostPort(l.Addr().String())
		if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
			if host, err = os.Hostname(); err != nil {
				_ = l.Close()
				return nil, fmt.Errorf("no --storage-adv-addr and no host name: %w", err)
			}
		}
		advertised = net.JoinHostPort(host, port)
	}
	st.advertised = advertised
	return l, nil
}

// handler serves the stored files, never a folder listing.
func (st *artifactStorage) handler() http.Handler {
	files := http.FileServer(http.Dir(st.root))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/") || strings.Contains(r.URL.Path, "/.") {
			http.NotFound(w, r)
			return
		}
		files.ServeHTTP(w, r)
	})
}

// serve serves the storage on l until ctx ends.
func (st *artifactStorage) serve(ctx context.Context, l net.Listener) error {
	srv := &http.Server{Handler: st.handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// storageError: the storage folder could not be written (read-only, full,
// missing permissions). The message names the folder.
type storageError struct {
	dir string
	err error
}

func (e *storageError) Error() string {
	return fmt.Sprintf("storage folder %s cannot be written: %v", e.dir, e.err)
}
func (e *storageError) Unwrap() error { return e.err }

// store writes data as the artifact of the ExternalArtifact namespace/name at
// revision, named by its digest: the same bytes are the same file, whose
// time does not move. Older files beyond the retention are removed once the
// new one is in place; nothing is removed when the write fails, so the
// artifact last published keeps being served.
func (st *artifactStorage) store(namespace, name, revision string, data []byte) (*meta.Artifact, error) {
	sum := sha256.Sum256(data)
	digest := hex.EncodeToString(sum[:])
	rel := path.Join(artifactDir(namespace, name), digest+".tar.gz")
	dir := filepath.Join(st.root, filepath.FromSlash(artifactDir(namespace, name)))
	file := filepath.Join(st.root, filepath.FromSlash(rel))

	info, err := os.Stat(file)
	if err != nil || info.Size() != int64(len(data)) {
		if err := writeAtomically(dir, file, data); err != nil {
			return nil, &storageError{dir: dir, err: err}
		}
		if info, err = os.Stat(file); err != nil {
			return nil, &storageError{dir: dir, err: err}
		}
	}
	st.prune(dir, filepath.Base(file))
	size := info.Size()
	return &meta.Artifact{
		Path:           rel,
		URL:            "http://" + st.advertised + "/" + rel,
		Revision:       revision,
		Digest:         "sha256:" + digest,
		LastUpdateTime: metav1.NewTime(info.ModTime().Truncate(time.Second)),
		Size:           &size,
	}, nil
}

// writeAtomically writes through a temporary file in the same folder and a
// rename: a download never sees half a tarball.
func writeAtomically(dir, file string, data []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	if _, err := tmp.Write(data); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), file)
}

// prune keeps the newest files of dir up to the retention, and current.
func (st *artifactStorage) prune(dir, current string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type file struct {
		name string
		mod  time.Time
	}
	var files []file
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".tar.gz") || e.Name() == current {
			continue
		}
		if info, err := e.Info(); err == nil {
			files = append(files, file{e.Name(), info.ModTime()})
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].mod.After(files[j].mod) })
	keep := max(st.retention-1, 0)
	for i := keep; i < len(files); i++ {
		_ = os.Remove(filepath.Join(dir, files[i].name))
	}
}

// has reports whether the artifact's file is in the storage (it may be gone
// after a restart on an empty folder).
func (st *artifactStorage) has(a *meta.Artifact) bool {
	if a == nil {
		return false
	}
	_, err := os.Stat(filepath.Join(st.root, filepath.FromSlash(a.Path)))
	return err == nil
}

// remove deletes every file of the ExternalArtifact namespace/name.
func (st *artifactStorage) remove(namespace, name string) error {
	dir := filepath.Join(st.root, filepath.FromSlash(artifactDir(namespace, name)))
	err := os.RemoveAll(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return &storageError{dir: dir, err: err}
	}
	return nil
}

// artifactDir is the folder of the ExternalArtifact namespace/name's files,
// relative to the storage root: source-controller's layout.
func artifactDir(namespace, name string) string {
	return path.Join(artifactKind, namespace, name)
}

// artifactOwner is the ExternalArtifact whose folder holds the artifact's
// file (artifactDir read backwards): what a KCLRun's status.artifact says it
// published. ok is false for a path of another layout.
func artifactOwner(a *meta.Artifact) (namespace, name string, ok bool) {
	if a == nil {
		return "", "", false
	}
	parts := strings.Split(a.Path, "/")
	if len(parts) != 4 || parts[0] != artifactKind || parts[1] == "" || parts[2] == "" {
		return "", "", false
	}
	return parts[1], parts[2], true
}

// objectsTarGz renders the objects, sorted as the applier applies them, as
// one YAML stream in one file of a tar.gz. The bytes depend on the objects
// alone (fixed header times, modes and owners; gzip without name or time),
// so the same objects give the same digest and no new revision.
func objectsTarGz(objects []*unstructured.Unstructured) ([]byte, error) {
	sorted := append([]*unstructured.Unstructured(nil), objects...)
	sort.Stable(ssa.SortableUnstructureds(sorted))
	var stream bytes.Buffer
	for _, o := range sorted {
		doc, err := yaml.Marshal(o.Object)
		if err != nil {
			return nil, fmt.Errorf("rendering %s %s/%s: %w", o.GetKind(), o.GetNamespace(), o.GetName(), err)
		}
		stream.WriteString("---\n")
		stream.Write(doc)
	}
	var out bytes.Buffer
	gz := gzip.NewWriter(&out)
	tw := tar.NewWriter(gz)
	hdr := &tar.Header{
		Name: artifactFile, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(stream.Len()),
		ModTime: time.Unix(0, 0), Format: tar.FormatPAX,
	}
	if err := tw.WriteHeader(hdr); err != nil {
		return nil, err
	}
	if _, err := tw.Write(stream.Bytes()); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
