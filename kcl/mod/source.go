package mod

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Defaults of kpm for registry packages (name = "version"): they live at
// oci://ghcr.io/kcl-lang/<name>:<version>.
const (
	DefaultRegistry = "ghcr.io"
	DefaultRepo     = "kcl-lang"
)

// SourceKind says where a package comes from.
type SourceKind int

const (
	OCISource SourceKind = iota + 1
	GitSource
)

// Source is a remote package location, as a Fetcher takes it.
type Source struct {
	Kind SourceKind
	// OCI: registry host, repository path and tag (or a "sha256:..." digest).
	Registry, Repository, Tag string
	// Git: URL and at most one of Commit, Branch, GitTag (none: the default branch).
	URL, Commit, Branch, GitTag string
}

// String is the source as users write it: oci://reg/repo:tag, git URL@ref.
func (s Source) String() string {
	switch s.Kind {
	case OCISource:
		return fmt.Sprintf("oci://%s/%s:%s", s.Registry, s.Repository, s.Tag)
	case GitSource:
		for _, ref := range []string{s.Commit, s.GitTag, s.Branch} {
			if ref != "" {
				return s.URL + "@" + ref
			}
		}
		return s.URL
	}
	return "unknown source"
}

// Fetcher makes a remote package available on disk.
type Fetcher interface {
	// Fetch returns the folder holding the source's contents. The folder is
	// shared and read-only, and its path is stable for given contents, so the
	// engine's parsed-package cache recognises it across compilations.
	Fetch(ctx context.Context, src Source) (*Fetched, error)
}

// Fetched is a package on disk.
type Fetched struct {
	Dir string
	// Digest identifies what was fetched: the OCI manifest digest or the Git commit.
	Digest string
	// Sum is Sum(Dir), computed once when the contents were stored.
	Sum string
}

// Errors of Resolve that are the program's fault, not the network's: retrying
// does not help.
var (
	// ErrVerification: a package's contents differ from the sum its lock records.
	ErrVerification = errors.New("dependency verification failed")
	// ErrNotVendored: vendor mode, and a dependency is not under vendor/.
	ErrNotVendored = errors.New("dependency is not vendored")
	// ErrUnsafe: a package holds a symbolic link or a path that leaves it.
	ErrUnsafe = errors.New("unsafe package contents")
)

// VerificationError is a checksum mismatch between kcl.mod.lock and the package.
type VerificationError struct {
	Name, Source, Want, Got string
}

func (e *VerificationError) Error() string {
	return fmt.Sprintf("dependency %s (%s): checksum mismatch: kcl.mod.lock has sum %s, the package has %s; the package changed since it was locked (refusing it; re-lock only if the change is trusted)",
		e.Name, e.Source, e.Want, e.Got)
}

func (e *VerificationError) Unwrap() error { return ErrVerification }

// parseOCI splits "oci://reg/repo" (kcl.mod's oci field).
func parseOCI(ref string) (registry, repository string, err error) {
	rest, ok := strings.CutPrefix(ref, "oci://")
	if !ok {
		return "", "", fmt.Errorf("%w: %q is not an oci:// reference", ErrInvalid, ref)
	}
	registry, repository, ok = strings.Cut(rest, "/")
	if !ok || registry == "" || repository == "" {
		return "", "", fmt.Errorf("%w: %q has no registry and repository", ErrInvalid, ref)
	}
	return registry, strings.TrimSuffix(repository, "/"), nil
}
