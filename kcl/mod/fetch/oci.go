package fetch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"

	"github.com/kcl-lang/flux-kcl-controller/kcl/mod"
)

func (se *Session) remoteOptions(ctx context.Context) []remote.Option {
	s := se.store
	return []remote.Option{
		remote.WithContext(ctx),
		remote.WithTransport(s.transport),
		remote.WithAuthFromKeychain(se.keychain()),
		remote.WithUserAgent("flux-kcl-controller"),
		remote.WithRetryBackoff(remote.Backoff{Duration: 250 * time.Millisecond, Factor: 2, Jitter: 0.1, Steps: s.opts.Retries}),
	}
}

func (se *Session) nameOptions(registry string) []name.Option {
	opts := []name.Option{name.StrictValidation}
	if se.store.plainHTTP[normaliseHost(registry)] {
		opts = append(opts, name.Insecure)
	}
	return opts
}

// fetchOCI gets a package pushed by `kcl mod push` (or Push).
func (se *Session) fetchOCI(ctx context.Context, src mod.Source) (*mod.Fetched, error) {
	registry, repository := applyMirrors(se.store.opts.Mirrors, src.Registry, src.Repository)
	sep := ":"
	if strings.HasPrefix(src.Tag, "sha256:") {
		sep = "@"
	}
	location := registry + "/" + repository + sep + src.Tag
	ref, err := name.ParseReference(location, se.nameOptions(registry)...)
	if err != nil {
		return nil, fmt.Errorf("%w: %q is not a valid OCI reference", mod.ErrInvalid, location)
	}
	opts := se.remoteOptions(ctx)

	// Ask the registry, with this session's credentials, which manifest the
	// tag names: the answer authorises the use of the shared cached copy.
	digest, ok := se.digestFor(location)
	if !ok {
		desc, err := remote.Head(ref, opts...)
		if err != nil {
			return nil, classify(err, location)
		}
		digest = desc.Digest.String()
		se.rememberDigest(location, digest)
	}
	key := "oci-" + strings.TrimPrefix(digest, "sha256:")
	e, err := se.obtain(ctx, key, func(dir string) error {
		return se.pullOCI(ref.Context().Digest(digest), location, dir)
	})
	if err != nil {
		return nil, err
	}
	return &mod.Fetched{Dir: e.dir, Digest: digest, Sum: e.sum}, nil
}

// pullOCI downloads the manifest by digest and unpacks its package layer into dir.
func (se *Session) pullOCI(ref name.Digest, location, dir string) error {
	// The fill runs detached from one caller's cancellation (others may wait
	// for it) but within the store's timeout.
	ctx, cancel := context.WithTimeout(context.Background(), se.store.opts.Timeout)
	defer cancel()
	opts := se.remoteOptions(ctx)
	desc, err := remote.Get(ref, opts...)
	if err != nil {
		return classify(err, location)
	}
	var manifest v1.Manifest
	if err := json.Unmarshal(desc.Manifest, &manifest); err != nil {
		return fmt.Errorf("%s: the manifest is not an OCI image manifest: %w", location, err)
	}
	var layer *v1.Descriptor
	for i, l := range manifest.Layers {
		if mt := string(l.MediaType); mt == MediaTypeLayerTarGzip || mt == MediaTypeLayerTar || strings.HasSuffix(mt, ".tar.gzip") {
			layer = &manifest.Layers[i]
			break
		}
	}
	if layer == nil {
		return fmt.Errorf("%w: %s is not a KCL package: no tar layer (%s or %s)", ErrNotFound, location, MediaTypeLayerTarGzip, MediaTypeLayerTar)
	}
	max := se.store.opts.MaxPackageBytes
	if layer.Size > max {
		return fmt.Errorf("%w: %s: the layer is %d bytes, the limit is %d", ErrTooLarge, location, layer.Size, max)
	}
	l, err := remote.Layer(ref.Context().Digest(layer.Digest.String()), opts...)
	if err != nil {
		return classify(err, location)
	}
	rc, err := l.Compressed() // the blob as stored, digest-verified while read
	if err != nil {
		return classify(err, location)
	}
	defer rc.Close()
	if err := unpack(io.LimitReader(rc, max+1), dir, max); err != nil {
		return fmt.Errorf("%s: %w", location, err)
	}
	// Read to the end so the digest check runs.
	if _, err := io.Copy(io.Discard, rc); err != nil {
		return classify(err, location)
	}
	return nil
}

// classify maps registry errors to ErrNotFound / ErrUnauthorized; the text
// names the location, never credentials.
func classify(err error, location string) error {
	var terr *transport.Error
	if errors.As(err, &terr) {
		switch terr.StatusCode {
		case http.StatusNotFound:
			return fmt.Errorf("%w: %s", ErrNotFound, location)
		case http.StatusUnauthorized, http.StatusForbidden:
			return fmt.Errorf("%w: %s (the registry answered %d; check the registry credentials)", ErrUnauthorized, location, terr.StatusCode)
		}
		for _, d := range terr.Errors {
			switch d.Code {
			case transport.ManifestUnknownErrorCode, transport.NameUnknownErrorCode, transport.BlobUnknownErrorCode:
				return fmt.Errorf("%w: %s", ErrNotFound, location)
			case transport.UnauthorizedErrorCode, transport.DeniedErrorCode:
				return fmt.Errorf("%w: %s", ErrUnauthorized, location)
			}
		}
	}
	return fmt.Errorf("%s: %w", location, err)
}
