package artifact

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/fluxcd/pkg/tar"
	"github.com/opencontainers/go-digest"
)

// memoryBytes is the largest archive kept in memory while it is verified and
// extracted; bigger ones go through a temporary file. Artifacts of real programs
// are a few KiB, and a file costs four syscalls more per download.
const memoryBytes = 4 << 20

// errTooLargeDownload is the download refused by its size (declared or read).
var errTooLargeDownload = errors.New("greater than the max download size")

// downloader fetches a tar.gz, verifies its digest and extracts it. Unlike
// fluxcd/pkg's ArchiveFetcher it trusts a declared Content-Length that is too
// big (refusing before reading a byte) and stops reading at the limit instead
// of draining the rest: a 1 GiB artifact, retried by a failing KCLRun, would
// otherwise be read in full on every attempt.
type downloader struct {
	client   *http.Client
	maxBytes int64
	untar    []tar.Option
	tmpDir   string
	retries  int
	hostname string
}

func newDownloader(opts Options) *downloader {
	return &downloader{
		client:   &http.Client{Transport: http.DefaultTransport},
		maxBytes: opts.MaxDownloadBytes,
		untar:    []tar.Option{tar.WithMaxUntarSize(int(opts.MaxExtractedBytes)), tar.WithSkipSymlinks()},
		tmpDir:   filepath.Join(opts.CacheDir, tmpDirName),
		retries:  opts.Retries,
		hostname: opts.HostnameOverwrite,
	}
}

// fetch downloads archiveURL into dir, retrying connection failures and 5xx
// answers d.retries times.
func (d *downloader) fetch(ctx context.Context, archiveURL, dig, dir string) error {
	if d.hostname != "" {
		u, err := url.Parse(archiveURL)
		if err != nil {
			return fmt.Errorf("parsing artifact URL: %w", err)
		}
		u.Host = d.hostname
		archiveURL = u.String()
	}
	want, err := digest.Parse(dig)
	if err != nil {
		return fmt.Errorf("%w: digest %q: %w", ErrInvalidRef, dig, err)
	}
	for attempt := 0; ; attempt++ {
		archive, err := d.download(ctx, archiveURL, want)
		if err == nil {
			defer archive.Close()
			if err := tar.Untar(archive, dir, d.untar...); err != nil {
				return fmt.Errorf("extracting archive: %w", err)
			}
			return nil
		}
		var retry *retryableError
		if !errors.As(err, &retry) || attempt >= d.retries {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Second << min(attempt, 5)):
		}
	}
}

// retryableError is a failure a later attempt may not meet.
type retryableError struct{ err error }

func (e *retryableError) Error() string { return e.err.Error() }
func (e *retryableError) Unwrap() error { return e.err }

// download returns the verified archive, in memory or in a temp file removed on Close.
func (d *downloader) download(ctx context.Context, archiveURL string, want digest.Digest) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, archiveURL, nil)
	if err != nil {
		return nil, fmt.Errorf("creating the request: %w", err)
	}
	resp, err := d.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("downloading: %w", err)
		}
		return nil, &retryableError{fmt.Errorf("downloading: %w", err)}
	}
	defer resp.Body.Close()
	switch code := resp.StatusCode; {
	case code == http.StatusOK:
	case code == http.StatusNotFound:
		return nil, ErrNotFound
	case code >= 500:
		return nil, &retryableError{fmt.Errorf("downloading: status %s", resp.Status)}
	default:
		return nil, fmt.Errorf("downloading: status %s", resp.Status)
	}
	if d.maxBytes > 0 && resp.ContentLength > d.maxBytes {
		return nil, fmt.Errorf("artifact is %d bytes, %w of %d bytes", resp.ContentLength, errTooLargeDownload, d.maxBytes)
	}

	verifier := want.Verifier()
	buf := &spillBuffer{dir: d.tmpDir, limit: memoryBytes}
	if resp.ContentLength > 0 && resp.ContentLength <= memoryBytes {
		buf.mem.Grow(int(resp.ContentLength))
	}
	body := io.Reader(resp.Body)
	if d.maxBytes > 0 {
		body = io.LimitReader(resp.Body, d.maxBytes+1)
	}
	n, err := io.Copy(io.MultiWriter(buf, verifier), body)
	if err != nil {
		buf.Close()
		return nil, &retryableError{fmt.Errorf("downloading: %w", err)}
	}
	if d.maxBytes > 0 && n > d.maxBytes {
		buf.Close()
		return nil, fmt.Errorf("artifact is more than %d bytes, %w", d.maxBytes, errTooLargeDownload)
	}
	if !verifier.Verified() {
		buf.Close()
		return nil, fmt.Errorf("%w: the download does not have digest %s", ErrDigestMismatch, want)
	}
	return buf.reader()
}

// spillBuffer keeps up to limit bytes in memory and moves to a temp file in dir beyond.
type spillBuffer struct {
	dir   string
	limit int
	mem   bytes.Buffer
	file  *os.File
}

func (b *spillBuffer) Write(p []byte) (int, error) {
	if b.file == nil && b.mem.Len()+len(p) > b.limit {
		f, err := os.CreateTemp(b.dir, "download-*.tar.gz")
		if err != nil {
			return 0, fmt.Errorf("creating a temp file: %w", err)
		}
		b.file = f
		if _, err := f.Write(b.mem.Bytes()); err != nil {
			return 0, fmt.Errorf("writing a temp file: %w", err)
		}
		b.mem = bytes.Buffer{}
	}
	if b.file != nil {
		return b.file.Write(p)
	}
	return b.mem.Write(p)
}

// reader hands the content over; its Close removes the temp file.
func (b *spillBuffer) reader() (io.ReadCloser, error) {
	if b.file == nil {
		return io.NopCloser(bytes.NewReader(b.mem.Bytes())), nil
	}
	if _, err := b.file.Seek(0, io.SeekStart); err != nil {
		b.Close()
		return nil, fmt.Errorf("reading a temp file: %w", err)
	}
	return b, nil
}

func (b *spillBuffer) Read(p []byte) (int, error) { return b.file.Read(p) }

func (b *spillBuffer) Close() error {
	if b.file == nil {
		return nil
	}
	b.file.Close()
	return os.Remove(b.file.Name())
}
