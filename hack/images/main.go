// Command images builds the project's container images without a Docker daemon (see
// package ociimage) and pushes them to a registry, or writes them into an OCI layout.
//
//	go run ./hack/images --registry ghcr.io/me/flux-kcl-controller --tag v0.1.0
//	go run ./hack/images --layout bin/images            # no registry: an OCI layout
//
// The registry defaults to $KO_DOCKER_REPO, then $IMAGE_REGISTRY; the tag to $IMAGE_TAG,
// then `git describe --tags --always --dirty`, then "dev". Registry credentials come
// from the Docker config file (DOCKER_CONFIG), as for docker push.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"github.com/kcl-lang/flux-kcl-controller/hack/images/ociimage"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "images:", err)
		os.Exit(1)
	}
}

func run() error {
	o := ociimage.Options{}
	var only, workDir string
	flag.StringVar(&o.Registry, "registry", firstNonEmpty(os.Getenv("KO_DOCKER_REPO"), os.Getenv("IMAGE_REGISTRY")), "Registry and path the images are pushed to as <registry>/<binary>:<tag>; empty writes --layout.")
	flag.StringVar(&o.LayoutDir, "layout", "bin/images", "OCI image layout folder written when no registry is given.")
	flag.StringVar(&o.Tag, "tag", os.Getenv("IMAGE_TAG"), "Image tag; default: git describe --tags --always --dirty, or dev.")
	flag.StringVar(&only, "binaries", "", "Comma-separated binaries to build; default all: "+names())
	flag.StringVar(&o.Meta.Source, "source", "https://github.com/kcl-lang/flux-kcl-controller", "The org.opencontainers.image.source label.")
	flag.StringVar(&o.Meta.Licenses, "licenses", "Apache-2.0", "The org.opencontainers.image.licenses label.")
	flag.StringVar(&o.CABundleFile, "ca-bundle", "/etc/ssl/certs/ca-certificates.crt", "CA bundle copied into the images when it exists.")
	flag.StringVar(&workDir, "work-dir", "", "Folder for the compiled binaries; default a temporary one.")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	repo, err := gitOutput(ctx, "rev-parse", "--show-toplevel")
	if err != nil {
		return err
	}
	o.RepoDir = repo
	if o.Tag == "" {
		o.Tag = "dev"
		if d, err := gitOutput(ctx, "describe", "--tags", "--always", "--dirty"); err == nil && d != "" {
			o.Tag = strings.ReplaceAll(d, "+", "-") // tags allow [A-Za-z0-9_.-]
		}
	}
	o.Meta.Revision, _ = gitOutput(ctx, "rev-parse", "HEAD")
	o.Meta.Created = time.Unix(0, 0).UTC()
	if ts, err := gitOutput(ctx, "log", "-1", "--format=%ct"); err == nil {
		if sec, err := strconv.ParseInt(ts, 10, 64); err == nil {
			o.Meta.Created = time.Unix(sec, 0).UTC() // the commit's time: reproducible images
		}
	}
	if only != "" {
		for _, n := range strings.Split(only, ",") {
			b, ok := lookup(strings.TrimSpace(n))
			if !ok {
				return fmt.Errorf("unknown binary %q (have %s)", n, names())
			}
			o.Binaries = append(o.Binaries, b)
		}
	}
	if workDir == "" {
		if workDir, err = os.MkdirTemp("", "fkc-images-"); err != nil {
			return err
		}
		defer os.RemoveAll(workDir)
	}
	o.WorkDir = workDir
	o.Log = func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
	published, err := ociimage.Build(ctx, o)
	for _, p := range published {
		fmt.Printf("%s@%s\n", p.Reference, p.Digest)
	}
	if err == nil && o.Registry == "" {
		fmt.Fprintf(os.Stderr, "no registry given (KO_DOCKER_REPO, IMAGE_REGISTRY, --registry): wrote the OCI layout %s\n", o.LayoutDir)
	}
	return err
}

func lookup(name string) (ociimage.Binary, bool) {
	for _, b := range ociimage.Binaries {
		if b.Name == name {
			return b, true
		}
	}
	return ociimage.Binary{}, false
}

func names() string {
	var n []string
	for _, b := range ociimage.Binaries {
		n = append(n, b.Name)
	}
	return strings.Join(n, ",")
}

func gitOutput(ctx context.Context, args ...string) (string, error) {
	out, err := exec.CommandContext(ctx, "git", args...).Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}
