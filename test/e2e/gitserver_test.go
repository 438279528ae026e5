package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fluxcd/pkg/gittestserver"
)

// gitServer serves bare repositories over HTTP on 127.0.0.1.
type gitServer struct {
	server *gittestserver.GitServer
}

func startGitServer() (*gitServer, error) {
	server, err := gittestserver.NewTempGitServer()
	if err != nil {
		return nil, fmt.Errorf("creating the Git server: %w", err)
	}
	if err := server.StartHTTP(); err != nil {
		_ = os.RemoveAll(server.Root())
		return nil, fmt.Errorf("starting the Git server: %w", err)
	}
	return &gitServer{server: server}, nil
}

func (s *gitServer) stop() {
	s.server.StopHTTP()
	_ = os.RemoveAll(s.server.Root())
}

// gitRepo is a working copy whose commits are pushed to a repository of the
// server, through the server's HTTP endpoint as a developer would.
type gitRepo struct {
	t   *testing.T
	dir string
	// URL is what a GitRepository points at.
	URL string
}

// newGitRepo creates the bare repository name.git on the server and a working
// copy pushing to its main branch.
func (s *gitServer) newGitRepo(t *testing.T, name string) *gitRepo {
	t.Helper()
	bare := filepath.Join(s.server.Root(), name+".git")
	runGit(t, "", "init", "--quiet", "--bare", "--initial-branch=main", bare)
	r := &gitRepo{t: t, dir: t.TempDir(), URL: s.server.HTTPAddress() + "/" + name + ".git"}
	r.git("init", "--quiet", "--initial-branch=main")
	r.git("remote", "add", "origin", r.URL)
	return r
}

// commit writes files (path → content), deletes removed, commits everything
// and pushes; it returns the commit's hash.
func (r *gitRepo) commit(message string, files map[string]string, removed ...string) string {
	r.t.Helper()
	for path, content := range files {
		full := filepath.Join(r.dir, path)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
	for _, path := range removed {
		r.git("rm", "--quiet", path)
	}
	r.git("add", "--all")
	r.git("commit", "--quiet", "--message", message)
	r.git("push", "--quiet", "origin", "main")
	return r.git("rev-parse", "HEAD")
}

func (r *gitRepo) git(args ...string) string {
	r.t.Helper()
	return runGit(r.t, r.dir, args...)
}

// runGit runs git in dir, isolated from the machine's and the user's Git
// configuration, and returns its trimmed output.
func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	args = append([]string{"-c", "user.name=e2e", "-c", "user.email=e2e@example.com", "-c", "commit.gpgsign=false"}, args...)
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_TERMINAL_PROMPT=0")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("git %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(stdout.String())
}
