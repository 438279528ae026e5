package fetch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/kcl-lang/flux-kcl-controller/kcl/mod"
)

var fullCommit = regexp.MustCompile(`^[0-9a-f]{40}$`)

// fetchGit gets a package from a Git repository at a commit, tag or branch
// (the default branch when none is given). The cache key is the commit, so a
// pinned commit needs no network once cached.
func (se *Session) fetchGit(ctx context.Context, src mod.Source) (*mod.Fetched, error) {
	location := src.String()
	commit := ""
	switch {
	case fullCommit.MatchString(src.Commit):
		commit = src.Commit
	case src.Commit == "":
		commit, _ = se.digestFor("git " + location)
	}
	if commit == "" {
		// Clone to learn the commit, then keep the clone as the package.
		tmp, err := os.MkdirTemp(se.store.opts.CacheDir, "tmp-")
		if err != nil {
			return nil, fmt.Errorf("package cache: %w", err)
		}
		defer os.RemoveAll(tmp)
		clone := filepath.Join(tmp, "clone")
		if commit, err = cloneAt(ctx, src, clone); err != nil {
			return nil, err
		}
		se.rememberDigest("git "+location, commit)
		e, err := se.obtain(ctx, gitKey(src.URL, commit), func(dir string) error {
			if err := os.Remove(dir); err != nil {
				return err
			}
			return os.Rename(clone, dir)
		})
		if err != nil {
			return nil, err
		}
		return &mod.Fetched{Dir: e.dir, Digest: commit, Sum: e.sum}, nil
	}
	at := src
	at.Commit, at.Branch, at.GitTag = commit, "", ""
	e, err := se.obtain(ctx, gitKey(src.URL, commit), func(dir string) error {
		if err := os.Remove(dir); err != nil {
			return err
		}
		_, err := cloneAt(ctx, at, dir)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &mod.Fetched{Dir: e.dir, Digest: commit, Sum: e.sum}, nil
}

func gitKey(url, commit string) string { return "git-" + hashKey(url, commit) }

// cloneAt clones src into dir (which must not exist), checks out its ref and
// removes .git; it returns the commit.
func cloneAt(ctx context.Context, src mod.Source, dir string) (string, error) {
	opts := &git.CloneOptions{URL: src.URL, Tags: git.NoTags}
	switch {
	case src.Commit != "":
		// A commit may be on any branch: clone everything, then check it out.
	case src.GitTag != "":
		opts.ReferenceName, opts.SingleBranch, opts.Depth = plumbing.NewTagReferenceName(src.GitTag), true, 1
	case src.Branch != "":
		opts.ReferenceName, opts.SingleBranch, opts.Depth = plumbing.NewBranchReferenceName(src.Branch), true, 1
	default:
		opts.SingleBranch, opts.Depth = true, 1
	}
	repo, err := git.PlainCloneContext(ctx, dir, false, opts)
	if err != nil {
		return "", gitError(src, err)
	}
	if src.Commit != "" {
		hash, err := repo.ResolveRevision(plumbing.Revision(src.Commit))
		if err != nil {
			return "", fmt.Errorf("%w: %s: commit %s: %v", ErrNotFound, src.URL, src.Commit, err)
		}
		wt, err := repo.Worktree()
		if err != nil {
			return "", err
		}
		if err := wt.Checkout(&git.CheckoutOptions{Hash: *hash, Force: true}); err != nil {
			return "", fmt.Errorf("%s: checking out %s: %w", src.URL, src.Commit, err)
		}
	}
	head, err := repo.Head()
	if err != nil {
		return "", fmt.Errorf("%s: %w", src.URL, err)
	}
	if err := os.RemoveAll(filepath.Join(dir, ".git")); err != nil {
		return "", err
	}
	return head.Hash().String(), nil
}

func gitError(src mod.Source, err error) error {
	switch err {
	case plumbing.ErrReferenceNotFound, git.ErrRepositoryNotExists:
		return fmt.Errorf("%w: %s", ErrNotFound, src)
	}
	if msg := err.Error(); strings.Contains(msg, "repository not found") || strings.Contains(msg, "couldn't find remote ref") {
		return fmt.Errorf("%w: %s", ErrNotFound, src)
	}
	return fmt.Errorf("%s: %w", src, err)
}
