package gitserver_test

import (
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/test/harness/gitserver"
)

func TestMain(m *testing.M) {
	log.SetOutput(io.Discard) // the server logs every request
	os.Exit(m.Run())
}

func startServer(t *testing.T) *gitserver.Server {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: runs git and an HTTP server")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	srv, err := gitserver.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	return srv
}

// clone fetches url over HTTP into a fresh folder, as source-controller would.
func clone(t *testing.T, url string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "clone")
	cmd := exec.Command("git", "clone", "--quiet", "--branch", gitserver.Branch, url, dir)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git clone %s: %v: %s", url, err, out)
	}
	return dir
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestCommitsArePushedAndServed(t *testing.T) {
	srv := startServer(t)
	if !strings.HasPrefix(srv.URL(), "http://127.0.0.1:") {
		t.Fatalf("URL %q: want the loopback address", srv.URL())
	}
	repo, err := srv.NewRepository("program")
	if err != nil {
		t.Fatal(err)
	}
	if repo.URL != srv.URL()+"/program.git" {
		t.Fatalf("repository URL %q", repo.URL)
	}
	first, err := repo.Commit("first", map[string]string{"main.k": "a = 1\n", "lib/lib.k": "b = 2\n"})
	if err != nil {
		t.Fatal(err)
	}
	second, err := repo.Commit("second", map[string]string{"main.k": "a = 3\n"}, "lib/lib.k")
	if err != nil {
		t.Fatal(err)
	}
	if len(second) != 40 || second == first {
		t.Fatalf("commits %q then %q: want two distinct hashes", first, second)
	}

	dir := clone(t, repo.URL)
	if got := readFile(t, filepath.Join(dir, "main.k")); got != "a = 3\n" {
		t.Fatalf("served main.k = %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "lib", "lib.k")); !os.IsNotExist(err) {
		t.Fatalf("lib/lib.k was removed by the second commit, got %v", err)
	}
	head, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(head)) != second {
		t.Fatalf("served HEAD %s, want %s", head, second)
	}
}

// A person can commit in the working copy with plain git, whatever their configuration.
func TestWorkingCopyCommitsWithPlainGit(t *testing.T) {
	srv := startServer(t)
	repo, err := srv.NewRepository("manual")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := repo.Commit("first", map[string]string{"main.k": "a = 1\n"}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo.Dir, "main.k"), []byte("a = 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"commit", "--quiet", "-am", "by hand"}, {"push", "--quiet"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo.Dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	if got := readFile(t, filepath.Join(clone(t, repo.URL), "main.k")); got != "a = 2\n" {
		t.Fatalf("served main.k = %q", got)
	}
}

func TestBadInputIsAnError(t *testing.T) {
	srv := startServer(t)
	for _, name := range []string{"", "a/b", "../x", ".hidden"} {
		if _, err := srv.NewRepository(name); err == nil {
			t.Errorf("NewRepository(%q): want an error", name)
		}
	}
	repo, err := srv.NewRepository("empty")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := repo.Commit("nothing", nil); err == nil || !strings.Contains(err.Error(), "git commit") {
		t.Fatalf("committing nothing: got %v, want git's error", err)
	}
}
