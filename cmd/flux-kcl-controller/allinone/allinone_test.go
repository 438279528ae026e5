package allinone

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/go-logr/logr"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	kclv1 "github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/kube"
)

// program renders a Deployment running image.
func program(image string) map[string]string {
	return map[string]string{"main.k": strings.ReplaceAll(`
apiVersion = "apps/v1"
kind = "Deployment"
metadata = {name = "web"}
spec = {
    selector.matchLabels = {app = "web"}
    template = {
        metadata.labels = {app = "web"}
        spec.containers = [{name = "web", image = "IMAGE"}]
    }
}
`, "IMAGE", image)}
}

// startProcess runs an apiserver, an artifact server and the all-in-one
// process, all stopped when tb ends.
func startProcess(tb testing.TB) (*kube.Env, *artifactserver.Server, *Process) {
	tb.Helper()
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr)))
	env := kube.StartT(tb)
	artifacts := artifactserver.StartT(tb)
	return env, artifacts, runProcess(tb, env.Config)
}

// runProcess runs the all-in-one process on config until tb ends.
func runProcess(tb testing.TB, config *rest.Config) *Process {
	tb.Helper()
	// The defaults but the HTTP endpoints: NATS and the workers stay in-process, which
	// every test checks by the process's listening sockets, at start and at the end.
	cfg := DefaultConfig()
	cfg.NATSStoreDir = tb.TempDir()
	cfg.MetricsAddr, cfg.HealthAddr = "", ""
	proc, err := New(cfg, Deps{RestConfig: config, Logger: logr.Discard()})
	if err != nil {
		tb.Fatal(err)
	}
	listening := listeningSockets(tb)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- proc.Run(ctx) }()
	tb.Cleanup(func() {
		opened := newListeners(tb, listening)
		cancel()
		if err := <-done; err != nil {
			tb.Errorf("all-in-one: %v", err)
		}
		if len(opened) > 0 {
			tb.Errorf("the all-in-one process opened ports: %v", opened)
		}
	})
	select {
	case <-proc.Started():
	case err := <-done:
		tb.Fatalf("all-in-one stopped before starting: %v", err)
	}
	if opened := newListeners(tb, listening); len(opened) > 0 {
		tb.Errorf("the all-in-one process opened ports: %v", opened)
	}
	return proc
}

// TestAllInOneAppliesAndFollowsTheSource runs the whole process against a real
// apiserver: the watcher's request reaches the applier through the embedded
// NATS, the compiler through in-process gRPC; a new artifact is applied too.
func TestAllInOneAppliesAndFollowsTheSource(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	env, artifacts, proc := startProcess(t)
	c := env.Client
	g.Expect(proc.NATSURL()).To(BeEmpty(), "no listener was asked for")

	ns, err := env.CreateNamespace(ctx, "allinone")
	g.Expect(err).NotTo(HaveOccurred())
	path := artifactserver.ArtifactPath("GitRepository", ns, "repo", "v1.tar.gz")
	art, err := artifacts.PublishFiles(path, program("nginx:1.7.7"), "")
	g.Expect(err).NotTo(HaveOccurred())
	repo, err := artifactserver.CreateSource(ctx, c, "GitRepository", ns, "repo", art)
	g.Expect(err).NotTo(HaveOccurred())

	run := &kclv1.KCLRun{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
		Spec: kclv1.KCLRunSpec{
			SourceRef:       kclv1.CrossNamespaceSourceReference{Kind: "GitRepository", Name: "repo"},
			Interval:        metav1.Duration{Duration: time.Hour},
			TargetNamespace: ns,
		},
	}
	g.Expect(c.Create(ctx, run)).To(Succeed())

	image := func(g Gomega) string {
		var d appsv1.Deployment
		g.Expect(c.Get(ctx, types.NamespacedName{Namespace: ns, Name: "web"}, &d)).To(Succeed())
		return d.Spec.Template.Spec.Containers[0].Image
	}
	readyAt := func(revision string) func(g Gomega) {
		return func(g Gomega) {
			var cur kclv1.KCLRun
			g.Expect(c.Get(ctx, client.ObjectKeyFromObject(run), &cur)).To(Succeed())
			g.Expect(apimeta.IsStatusConditionTrue(cur.Status.Conditions, meta.ReadyCondition)).To(BeTrue())
			g.Expect(cur.Status.LastAppliedRevision).To(Equal(revision))
		}
	}
	g.Eventually(readyAt(art.Revision), 2*time.Minute, 100*time.Millisecond).Should(Succeed())
	g.Eventually(image, time.Minute).Should(Equal("nginx:1.7.7"))

	// A new artifact: only the watcher's SourceChanged request can bring it
	// before the hour-long interval.
	path2 := artifactserver.ArtifactPath("GitRepository", ns, "repo", "v2.tar.gz")
	art2, err := artifacts.PublishFiles(path2, program("nginx:1.7.9"), "")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(artifactserver.SetArtifact(ctx, c, repo, art2)).To(Succeed())
	g.Eventually(readyAt(art2.Revision), 2*time.Minute, 100*time.Millisecond).Should(Succeed())
	g.Expect(image(g)).To(Equal("nginx:1.7.9"))
}
