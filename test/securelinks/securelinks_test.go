package securelinks_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	kclv1 "github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/natsconn"
	"github.com/kcl-lang/flux-kcl-controller/internal/tlsfiles"
	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
	"github.com/kcl-lang/flux-kcl-controller/services/applier"
	"github.com/kcl-lang/flux-kcl-controller/services/compiler"
	"github.com/kcl-lang/flux-kcl-controller/services/resolver"
	"github.com/kcl-lang/flux-kcl-controller/services/watcher"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/kube"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/natsserver"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/pki"
)

var env *kube.Env

func TestMain(m *testing.M) {
	ctrllog.SetLogger(funcr.New(func(string, string) {}, funcr.Options{}))
	var err error
	if env, err = kube.Start(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	_ = env.Stop()
	os.Exit(code)
}

// violations collects the NATS errors a connection receives (permission violations
// arrive asynchronously).
type violations struct {
	mu   sync.Mutex
	errs []string
}

func (v *violations) handler(_ *nats.Conn, _ *nats.Subscription, err error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.errs = append(v.errs, err.Error())
}

func (v *violations) list() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]string(nil), v.errs...)
}

// TestReconcileOverSecuredLinks runs the four services as the split deployment does,
// each with its own credentials: a KCLRun is applied, and an edit of the applied
// Deployment is undone through a drift request, with no permission violation.
func TestReconcileOverSecuredLinks(t *testing.T) {
	g := NewWithT(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		g.Expect(os.WriteFile(path, []byte(content), 0o600)).To(Succeed())
		return path
	}

	// NATS: the rendered authorization, TLS with client certificates.
	natsCA := pki.NewCA(t, "nats CA")
	natsServerCert := natsCA.Issue(t, "kcl-nats", "localhost", "127.0.0.1")
	natsClientCert := natsCA.Issue(t, "flux-kcl")
	applierKey, err := nkeys.CreateUser()
	g.Expect(err).NotTo(HaveOccurred())
	applierSeed, _ := applierKey.Seed()
	applierPub, _ := applierKey.PublicKey()
	conf, err := natsconn.RenderServerConfig(natsconn.ServerConfig{
		Watcher:              natsconn.User{Name: "watcher", Password: "watcher-password"},
		Applier:              natsconn.User{NKey: applierPub},
		ApplierDriftRequests: true,
		TLS:                  &natsconn.ServerTLS{CertFile: natsServerCert.Cert, KeyFile: natsServerCert.Key, CAFile: natsServerCert.CA, Verify: true},
	})
	g.Expect(err).NotTo(HaveOccurred())
	natsSrv, err := natsserver.Start(natsserver.Options{ConfigFile: write("nats.conf", conf)})
	g.Expect(err).NotTo(HaveOccurred())
	defer natsSrv.Stop()
	natsTLS := natsconn.Config{URL: natsSrv.URL(), TLSCAFile: natsClientCert.CA, TLSCertFile: natsClientCert.Cert, TLSKeyFile: natsClientCert.Key}
	watcherNATS, applierNATS := natsTLS, natsTLS
	watcherNATS.UserFile, watcherNATS.PasswordFile = write("user", "watcher\n"), write("password", "watcher-password\n")
	applierNATS.NKeySeedFile = write("seed", string(applierSeed))

	// Workers over mutual TLS on loopback ports.
	grpcCA := pki.NewCA(t, "workers CA")
	workerCert := grpcCA.Issue(t, "kcl-worker", "kcl-compiler", "kcl-resolver", "127.0.0.1")
	applierCert := grpcCA.Issue(t, "applier")
	workerTLS := tlsfiles.Files{CertFile: workerCert.Cert, KeyFile: workerCert.Key, CAFile: workerCert.CA}
	var wg sync.WaitGroup
	defer wg.Wait()
	serve := func(name string, run func(context.Context, net.Listener) error) string {
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		g.Expect(err).NotTo(HaveOccurred())
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := run(ctx, lis); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}()
		return lis.Addr().String()
	}
	compilerCfg := compiler.DefaultConfig()
	compilerCfg.MetricsAddr, compilerCfg.HealthAddr, compilerCfg.ArtifactCacheDir = "", "", t.TempDir()
	compilerCfg.TLS = workerTLS
	compilerSvc, err := compiler.New(compilerCfg, compiler.Deps{})
	g.Expect(err).NotTo(HaveOccurred())
	resolverCfg := resolver.DefaultConfig()
	resolverCfg.MetricsAddr, resolverCfg.HealthAddr, resolverCfg.ArtifactCacheDir = "", "", t.TempDir()
	resolverCfg.TLS = workerTLS
	resolverSvc, err := resolver.New(resolverCfg, resolver.Deps{})
	g.Expect(err).NotTo(HaveOccurred())
	workerCfg := workerclient.DefaultConfig()
	workerCfg.CompilerAddr = serve("compiler", compilerSvc.Serve)
	workerCfg.ResolverAddr = serve("resolver", resolverSvc.Serve)
	workerCfg.TLS = tlsfiles.Files{CertFile: applierCert.Cert, KeyFile: applierCert.Key, CAFile: applierCert.CA}
	workers, err := workerclient.Dial(workerCfg)
	g.Expect(err).NotTo(HaveOccurred())
	defer workers.Close()

	// The applier and the watcher, each with its own NATS identity.
	var applierErrs, watcherErrs violations
	applierConn, err := applierNATS.Connect(natsconn.ApplierIdentity, "", nats.ErrorHandler(applierErrs.handler))
	g.Expect(err).NotTo(HaveOccurred())
	defer applierConn.Close()
	applierCfg := applier.DefaultConfig()
	applierCfg.MetricsAddr, applierCfg.HealthAddr, applierCfg.InstanceName = "", "", "applier-0"
	applierSvc, err := applier.New(applierCfg, applier.Deps{
		RESTConfig: env.Config, NATS: applierConn, Compiler: workers, Resolver: workers, Logger: logr.Discard(),
	})
	g.Expect(err).NotTo(HaveOccurred())
	serve("applier", func(ctx context.Context, lis net.Listener) error { _ = lis.Close(); return applierSvc.Run(ctx) })

	watcherConn, err := watcherNATS.Connect(natsconn.WatcherIdentity, "", nats.ErrorHandler(watcherErrs.handler))
	g.Expect(err).NotTo(HaveOccurred())
	defer watcherConn.Close()
	js, err := jetstream.New(watcherConn)
	g.Expect(err).NotTo(HaveOccurred())
	watcherCfg := watcher.DefaultConfig()
	watcherCfg.MetricsAddr, watcherCfg.HealthAddr = "0", "0"
	watcherSvc, err := watcher.New(watcherCfg, watcher.Deps{RestConfig: env.Config, JetStream: js, Logger: logr.Discard()})
	g.Expect(err).NotTo(HaveOccurred())
	serve("watcher", func(ctx context.Context, lis net.Listener) error { _ = lis.Close(); return watcherSvc.Run(ctx) })

	// A KCLRun from an artifact.
	c := env.Client
	artifacts := artifactserver.StartT(t)
	ns, err := env.CreateNamespace(ctx, "secured")
	g.Expect(err).NotTo(HaveOccurred())
	art, err := artifacts.PublishFiles(artifactserver.ArtifactPath("GitRepository", ns, "repo", "v1.tar.gz"), map[string]string{"main.k": program}, "")
	g.Expect(err).NotTo(HaveOccurred())
	_, err = artifactserver.CreateSource(ctx, c, "GitRepository", ns, "repo", art)
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
	g.Eventually(func(g Gomega) {
		var cur kclv1.KCLRun
		g.Expect(c.Get(ctx, client.ObjectKeyFromObject(run), &cur)).To(Succeed())
		g.Expect(apimeta.IsStatusConditionTrue(cur.Status.Conditions, meta.ReadyCondition)).To(BeTrue())
		g.Expect(cur.Status.LastAppliedRevision).To(Equal(art.Revision))
	}, 2*time.Minute, 100*time.Millisecond).Should(Succeed())

	// Drift: the applier's own reconcile request goes through NATS and undoes the edit.
	key := types.NamespacedName{Namespace: ns, Name: "web"}
	var d appsv1.Deployment
	g.Expect(c.Get(ctx, key, &d)).To(Succeed())
	d.Spec.Template.Spec.Containers[0].Image = "nginx:edited"
	g.Expect(c.Update(ctx, &d)).To(Succeed())
	g.Eventually(func(g Gomega) string {
		g.Expect(c.Get(ctx, key, &d)).To(Succeed())
		return d.Spec.Template.Spec.Containers[0].Image
	}, time.Minute, 100*time.Millisecond).Should(Equal("nginx:1.7.7"))

	for who, v := range map[string]*violations{"applier": &applierErrs, "watcher": &watcherErrs} {
		if errs := v.list(); len(errs) > 0 {
			t.Errorf("%s got NATS errors: %s", who, strings.Join(errs, "; "))
		}
	}
	cancel()
}

const program = `
apiVersion = "apps/v1"
kind = "Deployment"
metadata = {name = "web"}
spec = {
    selector.matchLabels = {app = "web"}
    template = {
        metadata.labels = {app = "web"}
        spec.containers = [{name = "web", image = "nginx:1.7.7"}]
    }
}
`
