package sourcecontroller_test

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/kcl-lang/flux-kcl-controller/test/harness/gitserver"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/kube"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/sourcecontroller"
)

// fetchTimeout bounds each wait for source-controller; the machine may be busy. Nothing
// asserts on speed.
const fetchTimeout = 3 * time.Minute

var (
	env *kube.Env
	sc  *sourcecontroller.Controller
	git *gitserver.Server
	// skip is why every test skips; empty when the package runs.
	skip string
)

func TestMain(m *testing.M) {
	os.Exit(runPackage(m))
}

func runPackage(m *testing.M) int {
	ctrllog.SetLogger(zap.New(zap.WriteTo(io.Discard)))
	log.SetOutput(io.Discard) // the Git server logs every request
	if _, err := exec.LookPath("git"); err != nil {
		skip = "git is not installed"
		return m.Run()
	}
	flag.Parse()
	if testing.Short() {
		skip = "-short: starts an apiserver and source-controller"
		return m.Run()
	}
	ctx := context.Background()
	var err error
	if env, err = kube.Start(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer env.Stop()
	if git, err = gitserver.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer git.Stop()
	if sc, err = sourcecontroller.Start(ctx, env, sourcecontroller.Options{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	code := m.Run()
	if err := sc.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stopping source-controller:", err)
		code = 1
	}
	return code
}

// waitArtifact waits until the GitRepository's artifact is commit and returns its URL.
func waitArtifact(ctx context.Context, t *testing.T, key client.ObjectKey, commit string) string {
	t.Helper()
	var src sourcev1.GitRepository
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, fetchTimeout, true, func(ctx context.Context) (bool, error) {
		if err := env.Client.Get(ctx, key, &src); err != nil {
			return false, nil
		}
		return src.Status.Artifact != nil && strings.HasSuffix(src.Status.Artifact.Revision, commit), nil
	})
	if err != nil {
		t.Fatalf("GitRepository %s has no artifact of %s: %v (status %+v)", key, commit, err, src.Status)
	}
	return src.Status.Artifact.URL
}

// The controller fetches a served repository into an artifact on its storage address,
// and a reconcile request makes it fetch a new commit before its interval.
func TestGitRepositoryArtifactsFollowRequestedCommits(t *testing.T) {
	if skip != "" {
		t.Skip(skip)
	}
	ctx := context.Background()
	ns, err := env.CreateNamespace(ctx, "sc")
	if err != nil {
		t.Fatal(err)
	}
	repo, err := git.NewRepository(ns)
	if err != nil {
		t.Fatal(err)
	}
	first, err := repo.Commit("first", map[string]string{"main.k": "a = 1\n"})
	if err != nil {
		t.Fatal(err)
	}
	source := &sourcev1.GitRepository{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "repo"},
		Spec: sourcev1.GitRepositorySpec{
			URL:       repo.URL,
			Reference: &sourcev1.GitRepositoryRef{Branch: gitserver.Branch},
			// Long: the second commit is fetched only because it is requested.
			Interval: metav1.Duration{Duration: time.Hour},
		},
	}
	if err := env.Client.Create(ctx, source); err != nil {
		t.Fatal(err)
	}
	url := waitArtifact(ctx, t, client.ObjectKeyFromObject(source), first)
	if !strings.HasPrefix(url, "http://"+sc.StorageAddr+"/") {
		t.Errorf("artifact URL %s is not on the storage address %s", url, sc.StorageAddr)
	}
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET %s: %s", url, resp.Status)
	}

	second, err := repo.Commit("second", map[string]string{"main.k": "a = 2\n"})
	if err != nil {
		t.Fatal(err)
	}
	if err := sourcecontroller.RequestReconcile(ctx, env.Client, source); err != nil {
		t.Fatal(err)
	}
	waitArtifact(ctx, t, client.ObjectKeyFromObject(source), second)
}
