package ociimage

import (
	"context"
	"fmt"
	"os"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// Options say what to build and where it goes.
type Options struct {
	// RepoDir is the repository root (the Go module with the binaries).
	RepoDir string
	// WorkDir receives the compiled binaries.
	WorkDir string
	// Binaries to build; empty builds all of Binaries.
	Binaries []Binary
	// Platforms to build for; empty builds all of Platforms.
	Platforms []v1.Platform
	// Registry receives <Registry>/<name>:<Tag>; empty writes LayoutDir instead.
	Registry string
	// LayoutDir is an OCI image layout folder the indexes are appended to.
	LayoutDir string
	Tag       string
	Meta      Metadata
	// CABundleFile is copied to /etc/ssl/certs/ca-certificates.crt when it exists.
	CABundleFile string
	// Log reports progress; nil is silent.
	Log func(format string, args ...any)
}

// Published is one pushed or written index.
type Published struct {
	Binary string
	// Reference is <registry>/<name>:<tag> (or the layout's ref.name annotation).
	Reference string
	Digest    v1.Hash
}

// Build compiles every binary for every platform, assembles the images and pushes
// the indexes (or writes them into the layout).
func Build(ctx context.Context, o Options) ([]Published, error) {
	if o.Registry == "" && o.LayoutDir == "" {
		return nil, fmt.Errorf("give a registry or an OCI layout folder")
	}
	if o.Tag == "" {
		return nil, fmt.Errorf("give a tag")
	}
	binaries := o.Binaries
	if len(binaries) == 0 {
		binaries = Binaries
	}
	platforms := o.Platforms
	if len(platforms) == 0 {
		platforms = Platforms
	}
	logf := o.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	var caBundle []byte
	if o.CABundleFile != "" {
		if b, err := os.ReadFile(o.CABundleFile); err == nil {
			caBundle = b
		} else if !os.IsNotExist(err) {
			return nil, fmt.Errorf("reading CA bundle: %w", err)
		}
	}
	var lp layout.Path
	if o.Registry == "" {
		var err error
		if lp, err = openLayout(o.LayoutDir); err != nil {
			return nil, err
		}
	}
	meta := o.Meta
	meta.Version = o.Tag
	var out []Published
	for _, b := range binaries {
		images := map[string]v1.Image{}
		for _, p := range platforms {
			bin := BinaryPath(o.WorkDir, b.Name, p)
			logf("building %s for %s/%s", b.Name, p.OS, p.Architecture)
			if err := Compile(ctx, o.RepoDir, b.Package, p, bin); err != nil {
				return out, err
			}
			img, err := Image(b.Name, bin, p, meta, caBundle)
			if err != nil {
				return out, err
			}
			images[platformKey(p)] = img
		}
		ref := b.Name + ":" + o.Tag
		if o.Registry != "" {
			ref = o.Registry + "/" + ref
		}
		idx, err := Index(images, platforms, map[string]string{"org.opencontainers.image.ref.name": ref})
		if err != nil {
			return out, err
		}
		digest, err := idx.Digest()
		if err != nil {
			return out, err
		}
		if o.Registry != "" {
			if err := push(ctx, ref, idx); err != nil {
				return out, err
			}
		} else if err := lp.AppendIndex(idx, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": ref})); err != nil {
			return out, fmt.Errorf("writing %s into %s: %w", ref, o.LayoutDir, err)
		}
		out = append(out, Published{Binary: b.Name, Reference: ref, Digest: digest})
	}
	return out, nil
}

func push(ctx context.Context, ref string, idx v1.ImageIndex) error {
	tag, err := name.NewTag(ref)
	if err != nil {
		return fmt.Errorf("parsing %s: %w", ref, err)
	}
	// Credentials come from the Docker config (~/.docker/config.json, DOCKER_CONFIG),
	// as for docker push, ko or crane.
	if err := remote.WriteIndex(tag, idx, remote.WithContext(ctx), remote.WithAuthFromKeychain(authn.DefaultKeychain)); err != nil {
		return fmt.Errorf("pushing %s: %w", ref, err)
	}
	return nil
}

// openLayout opens the layout at dir, creating an empty one if there is none.
func openLayout(dir string) (layout.Path, error) {
	if lp, err := layout.FromPath(dir); err == nil {
		return lp, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("creating %s: %w", dir, err)
	}
	lp, err := layout.Write(dir, empty.Index)
	if err != nil {
		return "", fmt.Errorf("creating an OCI layout in %s: %w", dir, err)
	}
	return lp, nil
}
