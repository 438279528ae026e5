package cli_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/go-logr/logr"
	. "github.com/onsi/gomega"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/allinone"
	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/cli"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/kube"
)

// waitTimeout bounds each wait for the controller; the machine may be busy. Nothing
// asserts on speed.
const waitTimeout = 3 * time.Minute

var (
	env       *kube.Env
	artifacts *artifactserver.Server
	// skip is why every test skips; empty when the package runs.
	skip string
)

// TestMain runs one apiserver, one artifact server and the all-in-one controller for the
// package: the verbs are run against the real thing.
func TestMain(m *testing.M) {
	os.Exit(runPackage(m))
}

func runPackage(m *testing.M) int {
	ctrllog.SetLogger(logr.Discard())
	flag.Parse()
	if testing.Short() {
		skip = "-short: starts an apiserver and the controller"
		return m.Run()
	}
	var err error
	if env, err = kube.Start(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer env.Stop()
	if artifacts, err = artifactserver.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer artifacts.Close()
	storeDir, err := os.MkdirTemp("", "cli-test-nats-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(storeDir)
	cfg := allinone.DefaultConfig()
	cfg.NATSStoreDir = storeDir
	cfg.MetricsAddr, cfg.HealthAddr = "", ""
	proc, err := allinone.New(cfg, allinone.Deps{RestConfig: env.Config, Logger: logr.Discard()})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- proc.Run(ctx) }()
	select {
	case <-proc.Started():
	case err := <-done:
		fmt.Fprintln(os.Stderr, "all-in-one stopped before starting:", err)
		cancel()
		return 1
	}
	code := m.Run()
	cancel()
	if err := <-done; err != nil {
		fmt.Fprintln(os.Stderr, "all-in-one:", err)
		code = 1
	}
	return code
}

// result is one run of the command line.
type result struct {
	out, err string
	code     int
}

// run runs flux-kcl-controller ARGS in this process against the test cluster.
func run(t *testing.T, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	root := cli.NewRootCommand(cli.Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
	code := cli.Execute(root, append([]string{"--kubeconfig", env.Kubeconfig()}, args...), &errOut)
	return result{out: out.String(), err: errOut.String(), code: code}
}

func setup(t *testing.T) (Gomega, context.Context) {
	t.Helper()
	if skip != "" {
		t.Skip(skip)
	}
	return NewWithT(t), context.Background()
}

// revision is a Git-like revision, deterministic for golden outputs.
func revision(n int) string {
	return fmt.Sprintf("main@sha1:%040x", n)
}

// deployment renders a Deployment named name running image; a non-empty policy marks the
// image with a $imagepolicy marker.
func deployment(name, image, policy string) string {
	marker := ""
	if policy != "" {
		marker = fmt.Sprintf(`  # {"$imagepolicy": "%s"}`, policy)
	}
	return fmt.Sprintf(`{
    apiVersion = "apps/v1"
    kind = "Deployment"
    metadata = {name = "%[1]s"}
    spec = {
        selector.matchLabels = {app = "%[1]s"}
        template = {
            metadata.labels = {app = "%[1]s"}
            spec.containers = [{name = "web", image = "%[2]s"%[3]s
            }]
        }
    }
}`, name, image, marker)
}

// configMap renders a ConfigMap named name with data.
func configMap(name, data string) string {
	return fmt.Sprintf(`{apiVersion = "v1", kind = "ConfigMap", metadata.name = "%s", data = %s}`, name, data)
}

// program is main.k rendering the objects as a list.
func program(objects ...string) map[string]string {
	return map[string]string{"main.k": "items = [\n" + strings.Join(objects, "\n") + "\n]\n"}
}

// publish serves files as the GitRepository's artifact at rev (creating the source the
// first time) and returns the artifact revision.
func publish(t *testing.T, ns, repo string, rev int, files map[string]string) string {
	t.Helper()
	ctx := context.Background()
	path := artifactserver.ArtifactPath("GitRepository", ns, repo, fmt.Sprintf("r%d.tar.gz", rev))
	art, err := artifacts.PublishFiles(path, files, revision(rev))
	if err != nil {
		t.Fatal(err)
	}
	src, err := artifactserver.NewSource("GitRepository", ns, repo)
	if err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(src), src); err != nil {
		if _, err := artifactserver.CreateSource(ctx, env.Client, "GitRepository", ns, repo, art); err != nil {
			t.Fatal(err)
		}
		return art.Revision
	}
	if err := artifactserver.SetArtifact(ctx, env.Client, src, art); err != nil {
		t.Fatal(err)
	}
	return art.Revision
}

// newRun creates a KCLRun of the GitRepository repo, with mutate's changes.
func newRun(t *testing.T, ns, name, repo string, mutate func(*v1alpha1.KCLRun)) *v1alpha1.KCLRun {
	t.Helper()
	r := &v1alpha1.KCLRun{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: v1alpha1.KCLRunSpec{
			SourceRef: v1alpha1.CrossNamespaceSourceReference{Kind: "GitRepository", Name: repo},
			Interval:  metav1.Duration{Duration: time.Hour},
			Prune:     true,
		},
	}
	if mutate != nil {
		mutate(r)
	}
	if err := env.Client.Create(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	return r
}

// readyAt waits until the KCLRun has applied rev.
func readyAt(t *testing.T, g Gomega, r *v1alpha1.KCLRun, rev string) *v1alpha1.KCLRun {
	t.Helper()
	cur := &v1alpha1.KCLRun{}
	g.Eventually(func(g Gomega) {
		g.Expect(env.Client.Get(context.Background(), client.ObjectKeyFromObject(r), cur)).To(Succeed())
		g.Expect(apimeta.IsStatusConditionTrue(cur.Status.Conditions, meta.ReadyCondition)).To(BeTrue(), "Ready: %v", cur.Status.Conditions)
		g.Expect(cur.Status.LastAppliedRevision).To(Equal(rev))
	}, waitTimeout, 200*time.Millisecond).Should(Succeed())
	return cur
}

// namespace makes a namespace for one test.
func namespace(t *testing.T, prefix string) string {
	t.Helper()
	ns, err := env.CreateNamespace(context.Background(), prefix)
	if err != nil {
		t.Fatal(err)
	}
	return ns
}

// ages are kubectl's durations with the padding after them, which depends on their width.
var ages = regexp.MustCompile(`\b\d+(s|m|h|d|m\d+s|h\d+m)\b( \(x\d+ over \d+(s|m|h|d|m\d+s|h\d+m)\))? *`)

// golden compares got, with ages as <age> (unpadded) and ns as <ns>, to testdata/name.golden;
// UPDATE_GOLDEN=1 rewrites the file.
func golden(t *testing.T, name, got, ns string) {
	t.Helper()
	got = ages.ReplaceAllString(got, "<age>")
	if ns != "" {
		got = strings.ReplaceAll(got, ns, "<ns>")
	}
	path := filepath.Join("testdata", name+".golden")
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (UPDATE_GOLDEN=1 writes it); got:\n%s", err, got)
	}
	if got != string(want) {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// oneClearLine checks a failure: a non-zero exit and one line on stderr, no stack trace.
func oneClearLine(t *testing.T, r result, code int, contains string) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit code %d, want %d (stderr %q)", r.code, code, r.err)
	}
	lines := strings.Split(strings.TrimSpace(r.err), "\n")
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, "✗ ") || !strings.Contains(last, contains) {
		t.Errorf("stderr's last line %q, want ✗ … %q", last, contains)
	}
	for _, bad := range []string{"goroutine ", "panic:", ".go:"} {
		if strings.Contains(r.err, bad) {
			t.Errorf("stderr has %q: %s", bad, r.err)
		}
	}
}
