package fetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/kcl-lang/flux-kcl-controller/kcl/mod"
)

// PushOptions of Push.
type PushOptions struct {
	// Keychain authenticates the push; nil is anonymous.
	Keychain authn.Keychain
	// PlainHTTP speaks HTTP to the registry.
	PlainHTTP bool
	// Transport carries the requests; nil is the default.
	Transport http.RoundTripper
	// Created is the org.opencontainers.image.created annotation; zero is now.
	Created time.Time
	// Legacy writes the format of kpm before 2026: an uncompressed tar layer
	// (MediaTypeLayerTar, titled <name>_<version>.tar), oras' unknown config and
	// no artifactType. Packages such as ghcr.io/kcl-lang/k8s:1.29 look so.
	Legacy bool
}

// Push uploads the package in dir to ref ("registry/repo:tag") in kpm's
// format: a tar+gzip layer titled <name>_<version>.tgz and the package's name,
// version, description and sum as manifest annotations. It returns the
// manifest digest.
func Push(ctx context.Context, dir, ref string, opts PushOptions) (string, error) {
	file, err := mod.ReadFile(dir)
	if err != nil {
		return "", err
	}
	if file == nil {
		return "", fmt.Errorf("%s has no %s", dir, mod.ModFileName)
	}
	sum, err := mod.Sum(dir)
	if err != nil {
		return "", err
	}
	var tarball bytes.Buffer
	layerType, configType, artifactType, ext := MediaTypeLayerTarGzip, MediaTypeEmptyConfig, MediaTypeLayerTarGzip, "tgz"
	if opts.Legacy {
		layerType, configType, artifactType, ext = MediaTypeLayerTar, "application/vnd.unknown.config.v1+json", "", "tar"
		if err := packDir(dir, &tarball); err != nil {
			return "", err
		}
	} else {
		zw, _ := gzip.NewWriterLevel(&tarball, gzip.BestCompression)
		zw.ModTime = time.Unix(0, 0)
		if err := packDir(dir, zw); err != nil {
			return "", err
		}
		if err := zw.Close(); err != nil {
			return "", err
		}
	}
	nameOpts := []name.Option{}
	if opts.PlainHTTP {
		nameOpts = append(nameOpts, name.Insecure)
	}
	tag, err := name.ParseReference(ref, nameOpts...)
	if err != nil {
		return "", fmt.Errorf("push: %w", err)
	}
	keychain := opts.Keychain
	if keychain == nil {
		keychain = authn.NewMultiKeychain()
	}
	remoteOpts := []remote.Option{remote.WithContext(ctx), remote.WithAuthFromKeychain(keychain)}
	if opts.Transport != nil {
		remoteOpts = append(remoteOpts, remote.WithTransport(opts.Transport))
	}

	layer := static.NewLayer(tarball.Bytes(), types.MediaType(layerType))
	config := static.NewLayer(emptyConfig, types.MediaType(configType))
	for _, blob := range []v1.Layer{layer, config} {
		if err := remote.WriteLayer(tag.Context(), blob, remoteOpts...); err != nil {
			return "", fmt.Errorf("push: %w", err)
		}
	}
	layerDesc, err := describe(layer)
	if err != nil {
		return "", err
	}
	layerDesc.Annotations = map[string]string{AnnotationTitle: fmt.Sprintf("%s_%s.%s", file.Package.Name, file.Package.Version, ext)}
	configDesc, err := describe(config)
	if err != nil {
		return "", err
	}
	created := opts.Created
	if created.IsZero() {
		created = time.Now()
	}
	manifest := v1.Manifest{
		SchemaVersion: 2,
		MediaType:     types.OCIManifestSchema1,
		ArtifactType:  artifactType,
		Config:        configDesc,
		Layers:        []v1.Descriptor{layerDesc},
		Annotations: map[string]string{
			AnnotationName:        file.Package.Name,
			AnnotationVersion:     file.Package.Version,
			AnnotationDescription: file.Package.Description,
			AnnotationSum:         sum,
			AnnotationCreated:     created.UTC().Format(time.RFC3339),
		},
	}
	raw, err := json.Marshal(manifest)
	if err != nil {
		return "", err
	}
	if err := remote.Put(tag, rawManifest{raw}, remoteOpts...); err != nil {
		return "", fmt.Errorf("push: %w", err)
	}
	digest, _, err := v1.SHA256(bytes.NewReader(raw))
	if err != nil {
		return "", err
	}
	return digest.String(), nil
}

func describe(l v1.Layer) (v1.Descriptor, error) {
	d, err := l.Digest()
	if err != nil {
		return v1.Descriptor{}, err
	}
	size, err := l.Size()
	if err != nil {
		return v1.Descriptor{}, err
	}
	mt, err := l.MediaType()
	if err != nil {
		return v1.Descriptor{}, err
	}
	return v1.Descriptor{MediaType: mt, Digest: d, Size: size}, nil
}

type rawManifest struct{ raw []byte }

func (m rawManifest) RawManifest() ([]byte, error) { return m.raw, nil }

func (m rawManifest) MediaType() (types.MediaType, error) { return types.OCIManifestSchema1, nil }
