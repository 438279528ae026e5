package ociimage_test

import (
	"archive/tar"
	"bytes"
	"context"
	"debug/elf"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/kcl-lang/flux-kcl-controller/hack/images/ociimage"
)

// The test builds a tiny program (testdata/probe) instead of the five services: it
// goes through the same cross-compilation, layer, config, index and push code, and a
// cold cross-compilation of a service for arm64 costs minutes on the 2-core CI.
var probe = ociimage.Binary{Name: "probe", Package: "./hack/images/ociimage/testdata/probe"}

func options(t *testing.T) ociimage.Options {
	t.Helper()
	repo, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	bundle := filepath.Join(t.TempDir(), "ca-certificates.crt")
	if err := os.WriteFile(bundle, []byte("-----BEGIN CERTIFICATE-----\ntest\n-----END CERTIFICATE-----\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return ociimage.Options{
		RepoDir:      repo,
		WorkDir:      t.TempDir(),
		Binaries:     []ociimage.Binary{probe},
		Tag:          "v0.0.0-test",
		CABundleFile: bundle,
		Meta: ociimage.Metadata{
			Source:   "https://github.com/kcl-lang/flux-kcl-controller",
			Revision: "0123456789abcdef",
			Licenses: "Apache-2.0",
			Created:  time.Unix(1700000000, 0).UTC(),
		},
	}
}

func TestImagesPushedToARegistry(t *testing.T) {
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	o := options(t)
	o.Registry = strings.TrimPrefix(srv.URL, "http://") + "/flux-kcl-controller"
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	published, err := ociimage.Build(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(published) != 1 || published[0].Reference != o.Registry+"/probe:v0.0.0-test" {
		t.Fatalf("published %+v", published)
	}

	ref, err := name.ParseReference(published[0].Reference)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := remote.Index(ref, remote.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := idx.Digest(); d != published[0].Digest {
		t.Errorf("registry holds %s, build reported %s", d, published[0].Digest)
	}
	manifest, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if manifest.MediaType != types.OCIImageIndex {
		t.Errorf("index media type %s", manifest.MediaType)
	}
	var archs []string
	for _, desc := range manifest.Manifests {
		archs = append(archs, desc.Platform.OS+"/"+desc.Platform.Architecture)
		img, err := idx.Image(desc.Digest)
		if err != nil {
			t.Fatal(err)
		}
		checkImage(t, img, desc.Platform)
	}
	if strings.Join(archs, " ") != "linux/amd64 linux/arm64" {
		t.Errorf("index platforms %v", archs)
	}
}

func TestImagesWrittenToALayoutWithoutRegistry(t *testing.T) {
	o := options(t)
	o.LayoutDir = filepath.Join(t.TempDir(), "images")
	o.Platforms = []v1.Platform{{OS: "linux", Architecture: "amd64"}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	first, err := ociimage.Build(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	// Reproducible: the same sources give the same digest.
	again := o
	again.LayoutDir, again.WorkDir = filepath.Join(t.TempDir(), "again"), t.TempDir()
	second, err := ociimage.Build(ctx, again)
	if err != nil {
		t.Fatal(err)
	}
	if first[0].Digest != second[0].Digest {
		t.Errorf("two builds of the same sources: %s and %s", first[0].Digest, second[0].Digest)
	}
	root, err := layout.ImageIndexFromPath(o.LayoutDir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := root.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Manifests) != 1 || m.Manifests[0].Annotations["org.opencontainers.image.ref.name"] != "probe:v0.0.0-test" {
		t.Fatalf("layout index %+v", m.Manifests)
	}
	idx, err := root.ImageIndex(m.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	inner, _ := idx.IndexManifest()
	img, err := idx.Image(inner.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	checkImage(t, img, inner.Manifests[0].Platform)
}

// checkImage verifies the config and the one layer of an image for platform.
func checkImage(t *testing.T, img v1.Image, platform *v1.Platform) {
	t.Helper()
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	arch := platform.Architecture
	if cfg.OS != "linux" || cfg.Architecture != arch {
		t.Errorf("%s: config platform %s/%s", arch, cfg.OS, cfg.Architecture)
	}
	if got := strings.Join(cfg.Config.Entrypoint, " "); got != "/probe" {
		t.Errorf("%s: entrypoint %q", arch, got)
	}
	if cfg.Config.User != "65532:65532" {
		t.Errorf("%s: user %q", arch, cfg.Config.User)
	}
	for k, want := range map[string]string{
		"org.opencontainers.image.title":    "probe",
		"org.opencontainers.image.source":   "https://github.com/kcl-lang/flux-kcl-controller",
		"org.opencontainers.image.revision": "0123456789abcdef",
		"org.opencontainers.image.version":  "v0.0.0-test",
		"org.opencontainers.image.licenses": "Apache-2.0",
	} {
		if got := cfg.Config.Labels[k]; got != want {
			t.Errorf("%s: label %s = %q, want %q", arch, k, got, want)
		}
	}
	if mt, _ := img.MediaType(); mt != types.OCIManifestSchema1 {
		t.Errorf("%s: manifest media type %s", arch, mt)
	}

	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("%s: %d layers, %v", arch, len(layers), err)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	files := map[string]*tar.Header{}
	contents := map[string][]byte{}
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		files[h.Name] = h
		contents[h.Name], _ = io.ReadAll(tr)
	}
	if h := files["probe"]; h == nil || h.Mode != 0o755 {
		t.Fatalf("%s: binary %+v", arch, h)
	}
	machine := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[arch]
	if f, err := elf.NewFile(bytes.NewReader(contents["probe"])); err != nil || f.Machine != machine {
		t.Errorf("%s: binary is not a %s ELF: %v", arch, machine, err)
	}
	if !strings.Contains(string(contents["etc/passwd"]), "nonroot:x:65532:65532:") || !strings.Contains(string(contents["etc/group"]), "nonroot:x:65532:") {
		t.Errorf("%s: users %q %q", arch, contents["etc/passwd"], contents["etc/group"])
	}
	if h := files["tmp/"]; h == nil || h.Mode != 0o1777 {
		t.Errorf("%s: /tmp %+v", arch, h)
	}
	if !strings.Contains(string(contents["etc/ssl/certs/ca-certificates.crt"]), "BEGIN CERTIFICATE") {
		t.Errorf("%s: no CA bundle", arch)
	}
}
