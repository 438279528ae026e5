// Package gitserver serves Git repositories over HTTP on 127.0.0.1 for tests and the demo
// (github.com/fluxcd/pkg/gittestserver, which drives the git binary), with working copies
// that commit and push to them as a developer would.
//
//	srv, err := gitserver.Start()
//	defer srv.Stop()
//	repo, err := srv.NewRepository("kcl-deployment")   // bare kcl-deployment.git + a working copy
//	repo.URL                                           // what a GitRepository's spec.url points at
//	hash, err := repo.Commit("nginx 1.7.7", map[string]string{"main.k": program})
//
// Repositories follow the branch main. Git runs isolated from the machine's and the user's
// configuration; the working copies carry their own committer identity, so plain git
// commands work in them too. The server logs every request through the standard library logger
// (log.SetOutput redirects it). Needs git on PATH.
package gitserver

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/fluxcd/pkg/gittestserver"
)

// Branch is the branch every repository is created with and pushed to.
const Branch = "main"

// Server serves bare repositories over HTTP; it owns the working copies it hands out.
type Server struct {
	server *gittestserver.GitServer
	// workDir holds the working copies, removed with the repositories on Stop.
	workDir string
}

// Start serves an empty set of repositories from a temporary folder.
func Start() (*Server, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, fmt.Errorf("the Git server needs git: %w", err)
	}
	server, err := gittestserver.NewTempGitServer()
	if err != nil {
		return nil, fmt.Errorf("creating the Git server: %w", err)
	}
	workDir, err := os.MkdirTemp("", "gitserver-work-")
	if err != nil {
		_ = os.RemoveAll(server.Root())
		return nil, fmt.Errorf("creating the working copies' folder: %w", err)
	}
	if err := server.StartHTTP(); err != nil {
		_ = os.RemoveAll(server.Root())
		_ = os.RemoveAll(workDir)
		return nil, fmt.Errorf("starting the Git server: %w", err)
	}
	return &Server{server: server, workDir: workDir}, nil
}

// URL is the server's base address, http://127.0.0.1:port.
func (s *Server) URL() string { return s.server.HTTPAddress() }

// Stop stops serving and removes the repositories and working copies.
func (s *Server) Stop() {
	s.server.StopHTTP()
	_ = os.RemoveAll(s.server.Root())
	_ = os.RemoveAll(s.workDir)
}

// Repository is a working copy whose commits are pushed, over HTTP, to a bare repository of
// the server.
type Repository struct {
	// Dir is the working copy.
	Dir string
	// URL is the served repository, as a GitRepository or git clone would use it.
	URL string
}

// NewRepository creates the empty bare repository name.git and a working copy pushing to
// its main branch.
func (s *Server) NewRepository(name string) (*Repository, error) {
	if name == "" || strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") {
		return nil, fmt.Errorf("repository name %q: want one path element", name)
	}
	bare := filepath.Join(s.server.Root(), name+".git")
	if _, err := runGit("", "init", "--quiet", "--bare", "--initial-branch="+Branch, bare); err != nil {
		return nil, fmt.Errorf("creating repository %s: %w", name, err)
	}
	dir := filepath.Join(s.workDir, name)
	r := &Repository{Dir: dir, URL: s.URL() + "/" + name + ".git"}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating the working copy of %s: %w", name, err)
	}
	if _, err := r.Git("init", "--quiet", "--initial-branch="+Branch); err != nil {
		return nil, err
	}
	if _, err := r.Git("remote", "add", "origin", r.URL); err != nil {
		return nil, err
	}
	// The identity is also stored in the working copy, so a person can commit there with
	// plain git whatever their own configuration.
	for key, value := range identity {
		if _, err := r.Git("config", key, value); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Commit writes files (slash-separated path → content), deletes removed, commits all of it
// and pushes; it returns the new commit's hash.
func (r *Repository) Commit(message string, files map[string]string, removed ...string) (string, error) {
	for path, content := range files {
		full := filepath.Join(r.Dir, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return "", fmt.Errorf("writing %s: %w", path, err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			return "", fmt.Errorf("writing %s: %w", path, err)
		}
	}
	for _, path := range removed {
		if _, err := r.Git("rm", "--quiet", "--", path); err != nil {
			return "", err
		}
	}
	if _, err := r.Git("add", "--all"); err != nil {
		return "", err
	}
	if _, err := r.Git("commit", "--quiet", "--message", message); err != nil {
		return "", err
	}
	if _, err := r.Git("push", "--quiet", "--set-upstream", "origin", Branch); err != nil {
		return "", err
	}
	return r.Git("rev-parse", "HEAD")
}

// Git runs git in the working copy and returns its trimmed output.
func (r *Repository) Git(args ...string) (string, error) {
	return runGit(r.Dir, args...)
}

// identity is the author and committer of every commit, so no user configuration is needed.
var identity = map[string]string{
	"user.name":      "flux-kcl-controller",
	"user.email":     "flux-kcl-controller@localhost",
	"commit.gpgsign": "false",
}

// runGit runs git in dir, isolated from the machine's and the user's configuration.
func runGit(dir string, args ...string) (string, error) {
	var flags []string
	for key, value := range identity {
		flags = append(flags, "-c", key+"="+value)
	}
	cmd := exec.Command("git", append(flags, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_TERMINAL_PROMPT=0")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = "no output"
		}
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, msg)
	}
	return strings.TrimSpace(stdout.String()), nil
}
