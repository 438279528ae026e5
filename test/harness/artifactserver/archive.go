package artifactserver

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"path"
	"sort"
	"strings"
	"time"

	fluxtar "github.com/fluxcd/pkg/tar"
)

// TarGz builds a deterministic tar.gz of files (slash-separated name → content), with the
// parent directories as entries, like an archive of a checkout.
func TarGz(files map[string]string) ([]byte, error) {
	names := make([]string, 0, len(files))
	dirs := map[string]bool{}
	for name := range files {
		names = append(names, name)
		for d := path.Dir(name); d != "." && d != "/"; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	for d := range dirs {
		names = append(names, d+"/")
	}
	sort.Strings(names)

	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	mtime := time.Unix(0, 0)
	for _, name := range names {
		hdr := &tar.Header{Name: name, ModTime: mtime, Format: tar.FormatPAX}
		if strings.HasSuffix(name, "/") {
			hdr.Typeflag, hdr.Mode = tar.TypeDir, 0o755
		} else {
			hdr.Typeflag, hdr.Mode, hdr.Size = tar.TypeReg, 0o644, int64(len(files[name]))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, fmt.Errorf("writing tar header %s: %w", name, err)
		}
		if hdr.Typeflag == tar.TypeReg {
			if _, err := tw.Write([]byte(files[name])); err != nil {
				return nil, fmt.Errorf("writing tar entry %s: %w", name, err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("closing tar: %w", err)
	}
	if err := gz.Close(); err != nil {
		return nil, fmt.Errorf("closing gzip: %w", err)
	}
	return buf.Bytes(), nil
}

// TarGzDir archives dir with fluxcd/pkg/tar, the archiver source-controller uses.
func TarGzDir(dir string) ([]byte, error) {
	var buf bytes.Buffer
	if _, err := fluxtar.Tar(dir, &buf); err != nil {
		return nil, fmt.Errorf("archiving %s: %w", dir, err)
	}
	return buf.Bytes(), nil
}
