// Package ociimage builds the project's container images without a Docker daemon or
// a base image: each binary is cross-compiled with CGO_ENABLED=0 and put in a
// from-scratch image (one layer: the binary, a minimal /etc/passwd and /etc/group for
// the nonroot user 65532, a writable /tmp, the build machine's CA bundle when it has
// one), one image per platform, gathered in an OCI image index.
package ociimage

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Binary is one program of the repository and the image that carries it.
type Binary struct {
	// Name is the binary's and the image's name (<registry>/<name>:<tag>).
	Name string
	// Package is the Go package of its main, relative to the repository root.
	Package string
}

// Binaries are the five images the project ships.
var Binaries = []Binary{
	{Name: "watcher", Package: "./services/watcher/cmd/watcher"},
	{Name: "resolver", Package: "./services/resolver/cmd/resolver"},
	{Name: "compiler", Package: "./services/compiler/cmd/compiler"},
	{Name: "applier", Package: "./services/applier/cmd/applier"},
	{Name: "flux-kcl-controller", Package: "./cmd/flux-kcl-controller"},
}

// Platforms the images are built for.
var Platforms = []v1.Platform{{OS: "linux", Architecture: "amd64"}, {OS: "linux", Architecture: "arm64"}}

// NonRoot is the user and group the images run as (distroless's "nonroot").
const NonRoot = 65532

// Metadata goes into the images' OCI labels.
type Metadata struct {
	Source   string // org.opencontainers.image.source
	Revision string // git commit
	Version  string // the tag
	Licenses string // SPDX expression
	// Created stamps the config and the files; the commit time keeps builds reproducible.
	Created time.Time
}

// Labels are the OCI labels of binary's image.
func (m Metadata) Labels(binary string) map[string]string {
	labels := map[string]string{
		"org.opencontainers.image.title":    binary,
		"org.opencontainers.image.source":   m.Source,
		"org.opencontainers.image.revision": m.Revision,
		"org.opencontainers.image.version":  m.Version,
		"org.opencontainers.image.licenses": m.Licenses,
	}
	for k, v := range labels {
		if v == "" {
			delete(labels, k)
		}
	}
	return labels
}

// Compile cross-compiles pkg (in the module at repoDir) for platform into out: static,
// trimmed paths, no symbol table.
func Compile(ctx context.Context, repoDir, pkg string, platform v1.Platform, out string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, pkg)
	cmd.Dir = repoDir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+platform.OS, "GOARCH="+platform.Architecture)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s for %s/%s: %w\n%s", pkg, platform.OS, platform.Architecture, err, stderr.String())
	}
	return nil
}

// Image puts the compiled binary at /<name> in a from-scratch image for platform.
// caBundle may be nil.
func Image(name, binaryPath string, platform v1.Platform, meta Metadata, caBundle []byte) (v1.Image, error) {
	binary, err := os.ReadFile(binaryPath)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", binaryPath, err)
	}
	layerTar, err := rootFS(name, binary, caBundle, meta.Created)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, fmt.Errorf("layer of %s: %w", name, err)
	}
	base := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err := mutate.Append(base, mutate.Addendum{
		Layer:     layer,
		MediaType: types.OCILayer,
		History:   v1.History{CreatedBy: "hack/images: " + name, Created: v1.Time{Time: meta.Created}},
	})
	if err != nil {
		return nil, fmt.Errorf("image of %s: %w", name, err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture, cfg.Variant = platform.OS, platform.Architecture, platform.Variant
	cfg.Created = v1.Time{Time: meta.Created}
	cfg.Config.Entrypoint = []string{"/" + name}
	cfg.Config.User = fmt.Sprintf("%d:%d", NonRoot, NonRoot)
	cfg.Config.WorkingDir = "/"
	cfg.Config.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/home/nonroot", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt", "TMPDIR=/tmp"}
	cfg.Config.Labels = meta.Labels(name)
	img, err = mutate.ConfigFile(img, cfg)
	if err != nil {
		return nil, fmt.Errorf("config of %s: %w", name, err)
	}
	return img, nil
}

// Index gathers one image per platform, in the order of platforms.
func Index(images map[string]v1.Image, platforms []v1.Platform, annotations map[string]string) (v1.ImageIndex, error) {
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	var adds []mutate.IndexAddendum
	for _, p := range platforms {
		img, ok := images[platformKey(p)]
		if !ok {
			continue
		}
		desc, err := descriptor(img, p)
		if err != nil {
			return nil, err
		}
		adds = append(adds, mutate.IndexAddendum{Add: img, Descriptor: desc})
	}
	if len(adds) == 0 {
		return nil, fmt.Errorf("no image for any of the platforms")
	}
	idx = mutate.AppendManifests(idx, adds...)
	if len(annotations) > 0 {
		idx = mutate.Annotations(idx, annotations).(v1.ImageIndex)
	}
	return idx, nil
}

func descriptor(img v1.Image, p v1.Platform) (v1.Descriptor, error) {
	mt, err := img.MediaType()
	if err != nil {
		return v1.Descriptor{}, err
	}
	platform := p
	return v1.Descriptor{MediaType: mt, Platform: &platform}, nil
}

func platformKey(p v1.Platform) string { return p.OS + "/" + p.Architecture }

// rootFS is the layer's tar: the binary, the users, /tmp, the CA bundle.
func rootFS(name string, binary, caBundle []byte, modTime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dir := func(path string, mode int64, uid int) error {
		return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: path + "/", Mode: mode, Uid: uid, Gid: uid, ModTime: modTime, Format: tar.FormatPAX})
	}
	file := func(path string, mode int64, data []byte) error {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: path, Mode: mode, Size: int64(len(data)), ModTime: modTime, Format: tar.FormatPAX}); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	}
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:/home/nonroot:/sbin/nologin\n", NonRoot, NonRoot)
	group := fmt.Sprintf("root:x:0:\nnonroot:x:%d:\n", NonRoot)
	steps := []func() error{
		func() error { return dir("etc", 0o755, 0) },
		func() error { return file("etc/passwd", 0o644, []byte(passwd)) },
		func() error { return file("etc/group", 0o644, []byte(group)) },
		func() error { return dir("home", 0o755, 0) },
		func() error { return dir("home/nonroot", 0o700, NonRoot) },
		func() error { return dir("tmp", 0o1777, 0) }, // sticky, world-writable
		func() error { return file(name, 0o755, binary) },
	}
	if len(caBundle) > 0 {
		steps = append(steps,
			func() error { return dir("etc/ssl", 0o755, 0) },
			func() error { return dir("etc/ssl/certs", 0o755, 0) },
			func() error { return file("etc/ssl/certs/ca-certificates.crt", 0o644, caBundle) },
		)
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, fmt.Errorf("writing the layer of %s: %w", name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("writing the layer of %s: %w", name, err)
	}
	return buf.Bytes(), nil
}

// BinaryPath is where Build leaves a compiled binary.
func BinaryPath(workDir, name string, p v1.Platform) string {
	return filepath.Join(workDir, p.OS+"-"+p.Architecture, name)
}
