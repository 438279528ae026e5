// Package kclpackage holds the flags of KCL package fetching (kcl.mod
// dependencies from OCI registries and Git) shared by the compiler worker, the
// all-in-one process and the local `build` command, and opens the package
// store they configure (kcl/mod/fetch).
package kclpackage

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/spf13/pflag"

	"github.com/kcl-lang/flux-kcl-controller/kcl/mod/fetch"
)

// Config are the package flags.
type Config struct {
	// CacheDir keeps downloaded packages by digest; empty uses a temporary folder.
	CacheDir string
	// CacheBytes bounds the package cache on disk.
	CacheBytes int64
	// MaxBytes refuses bigger packages.
	MaxBytes int64
	// Timeout bounds the download of one package, retries included.
	Timeout time.Duration
	// TagTTL is how long a tag's digest is reused for the same credentials.
	TagTTL time.Duration
	// Mirrors rewrite registry locations ("ghcr.io/kcl-lang=registry.internal/kcl-lang").
	Mirrors []string
	// PlainHTTP lists registry hosts reached over plain HTTP.
	PlainHTTP []string
	// CAFile adds certificate authorities of internal registries (PEM).
	CAFile string
	// Policy limits the package sources; nil allows every source (a workstation).
	Policy *fetch.Policy
}

// DefaultConfig is what the flags start from.
func DefaultConfig() Config {
	return Config{CacheBytes: 1 << 30, MaxBytes: 100 << 20, Timeout: 2 * time.Minute, TagTTL: time.Minute}
}

// BindFlags registers the flags on fs, defaulting to the values in c.
func (c *Config) BindFlags(fs *pflag.FlagSet) {
	fs.StringVar(&c.CacheDir, "kcl-package-cache-dir", c.CacheDir, "The folder caching KCL packages (kcl.mod dependencies) by digest; empty uses a temporary folder.")
	fs.Int64Var(&c.CacheBytes, "kcl-package-cache-bytes", c.CacheBytes, "The disk bound of the KCL package cache.")
	fs.Int64Var(&c.MaxBytes, "kcl-package-max-bytes", c.MaxBytes, "The maximum size of one KCL package.")
	fs.DurationVar(&c.Timeout, "kcl-package-timeout", c.Timeout, "The maximum duration of the download of one KCL package, retries included.")
	fs.DurationVar(&c.TagTTL, "kcl-package-tag-ttl", c.TagTTL, "How long the digest a registry gave for a package tag is reused for the same credentials; negative asks every time.")
	fs.StringArrayVar(&c.Mirrors, "kcl-registry-mirror", c.Mirrors, "Rewrite a KCL package registry location, as from=to (ghcr.io/kcl-lang=registry.internal/kcl-lang) (repeatable).")
	fs.StringArrayVar(&c.PlainHTTP, "kcl-registry-plain-http", c.PlainHTTP, "A KCL package registry host reached over plain HTTP (repeatable).")
	fs.StringVar(&c.CAFile, "kcl-registry-ca-file", c.CAFile, "A PEM file of certificate authorities trusted for KCL package registries, besides the system's.")
}

// Open opens the package store. keychain serves requests without credentials
// of their own: nil (anonymous) in the cluster, the user's Docker config locally.
func (c Config) Open(keychain authn.Keychain) (*fetch.Store, error) {
	dir := c.CacheDir
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "flux-kcl-packages-"); err != nil {
			return nil, fmt.Errorf("creating the KCL package cache folder: %w", err)
		}
	}
	opts := fetch.Options{
		CacheDir:        dir,
		MaxCacheBytes:   c.CacheBytes,
		MaxPackageBytes: c.MaxBytes,
		Timeout:         c.Timeout,
		TagTTL:          c.TagTTL,
		PlainHTTP:       c.PlainHTTP,
		CAFile:          c.CAFile,
		Keychain:        keychain,
		Policy:          c.Policy,
	}
	for _, m := range c.Mirrors {
		mirror, err := fetch.ParseMirror(m)
		if err != nil {
			return nil, fmt.Errorf("--kcl-registry-mirror: %w", err)
		}
		opts.Mirrors = append(opts.Mirrors, mirror)
	}
	return fetch.New(opts)
}

// UserCacheDir is the package cache of a workstation
// ($XDG_CACHE_HOME/flux-kcl-controller/kcl-packages).
func UserCacheDir() string {
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(base, "flux-kcl-controller", "kcl-packages")
}
