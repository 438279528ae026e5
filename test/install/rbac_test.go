package install_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	eventv1 "github.com/fluxcd/pkg/apis/event/v1"
	"github.com/fluxcd/pkg/apis/meta"
	"github.com/go-logr/logr"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/allinone"
	"github.com/kcl-lang/flux-kcl-controller/internal/natsconn"
	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
	"github.com/kcl-lang/flux-kcl-controller/services/applier"
	"github.com/kcl-lang/flux-kcl-controller/services/compiler"
	"github.com/kcl-lang/flux-kcl-controller/services/resolver"
	"github.com/kcl-lang/flux-kcl-controller/services/watcher"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/imagepolicy"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/natsserver"
)

// The services run in-process with exactly the permissions the chart grants their
// ServiceAccounts (authenticated as them after the rendered RBAC is applied), with
// the flags the chart passes, through a full reconcile: source artifact → KCLRun Ready →
// Deployment applied with the image an ImagePolicy elects, then moved by a new latestRef
// without a new revision. Any request the apiserver forbids fails the test.
func TestChartRBACRunsAFullReconcile(t *testing.T) {
	needsAPIServer(t)
	t.Run("default (applier bound to cluster-admin)", func(t *testing.T) {
		runWithChartRBAC(t, nil, "")
	})
	t.Run("locked down (tenants impersonated, NATS users)", func(t *testing.T) {
		runWithChartRBAC(t, map[string]any{
			"rbac":                  map[string]any{"applierClusterAdmin": false},
			"defaultServiceAccount": "kcl-tenant",
			"nats":                  map[string]any{"auth": map[string]any{"enabled": true}},
		}, "kcl-tenant")
	})
}

func runWithChartRBAC(t *testing.T, values map[string]any, tenantSA string) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	objs := renderChart(t, nil, values)
	applyRBAC(t, objs)

	forbidden := &forbiddenRecorder{}
	natsSrv, creds := startChartNATS(t, objs)
	artifacts := artifactserver.StartT(t)
	events := &eventReceiver{}
	receiver := httptest.NewServer(events)
	defer receiver.Close()

	stopWatcher := startWatcher(t, ctx, containerArgs(t, objs, "kcl-watcher"), natsSrv, creds, forbidden)
	defer stopWatcher()
	stopApplier := startApplier(t, ctx, objs, natsSrv, creds, receiver.URL, forbidden)
	defer stopApplier()

	reconcileAsTenant(t, ctx, artifacts, events, forbidden, tenantSA)
}

// reconcileAsTenant runs the scenario every install mode must pass: a program whose image
// follows an ImagePolicy, in a Git source, applied, rolled to a new image, then deleted.
func reconcileAsTenant(t *testing.T, ctx context.Context, artifacts *artifactserver.Server, events *eventReceiver, forbidden *forbiddenRecorder, tenantSA string) {
	g := NewWithT(t)
	ns, err := env.CreateNamespace(ctx, "tenant")
	g.Expect(err).NotTo(HaveOccurred())
	if tenantSA != "" {
		grantTenantAdmin(t, ns, tenantSA)
	}
	policy, err := imagepolicy.Create(ctx, env.Client, ns, "web", imagev1.ImageRef{Name: "ghcr.io/org/web", Tag: "1.1.0"})
	g.Expect(err).NotTo(HaveOccurred())
	program := fmt.Sprintf(`import manifests

manifests.yaml_stream([{
    apiVersion = "apps/v1"
    kind = "Deployment"
    metadata.name = "web"
    spec = {
        selector.matchLabels.app = "web"
        template.metadata.labels.app = "web"
        template.spec.containers = [{name = "web", image = "ghcr.io/org/web:1.0.0"  # {"$imagepolicy": "%s:web"}
        }]
    }
}])
`, ns)
	path := artifactserver.ArtifactPath("GitRepository", ns, "app", "rev-1.tar.gz")
	artifact, err := artifacts.PublishFiles(path, map[string]string{"main.k": program}, "")
	g.Expect(err).NotTo(HaveOccurred())
	_, err = artifactserver.CreateSource(ctx, env.Client, "GitRepository", ns, "app", artifact)
	g.Expect(err).NotTo(HaveOccurred())
	run := &v1alpha1.KCLRun{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
		Spec: v1alpha1.KCLRunSpec{
			SourceRef: v1alpha1.CrossNamespaceSourceReference{Kind: "GitRepository", Name: "app"},
			Interval:  metav1.Duration{Duration: time.Hour},
			Prune:     true,
		},
	}
	g.Expect(env.Client.Create(ctx, run)).To(Succeed())

	image := func(g Gomega) string {
		var d appsv1.Deployment
		g.Expect(env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "web"}, &d)).To(Succeed())
		return d.Spec.Template.Spec.Containers[0].Image
	}
	g.Eventually(func(g Gomega) {
		if f := forbidden.list(); len(f) > 0 {
			StopTrying(fmt.Sprintf("the apiserver forbade %v", f)).Now()
		}
		var got v1alpha1.KCLRun
		g.Expect(env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "web"}, &got)).To(Succeed())
		g.Expect(readyMessage(&got)).To(Equal("ready"))
		g.Expect(got.Status.LastAppliedRevision).To(Equal(artifact.Revision))
		g.Expect(image(g)).To(Equal("ghcr.io/org/web:1.1.0"))
	}, 2*time.Minute, 200*time.Millisecond).Should(Succeed())

	// A new image elected: the watcher (reading ImagePolicies) requests, the applier rolls out.
	g.Expect(imagepolicy.SetLatest(ctx, env.Client, policy, imagev1.ImageRef{Name: "ghcr.io/org/web", Tag: "1.2.0"})).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(image(g)).To(Equal("ghcr.io/org/web:1.2.0"))
	}, 2*time.Minute, 200*time.Millisecond).Should(Succeed())
	g.Expect(forbidden.list()).To(BeEmpty())

	// The Flux events carry what notification-controller matches an Alert on (involved
	// object kind, name, namespace) and the revision keyed by the involved object's group.
	g.Eventually(func(g Gomega) {
		e := events.find(ns, "web")
		g.Expect(e).NotTo(BeNil())
		g.Expect(e.InvolvedObject.Kind).To(Equal("KCLRun"))
		g.Expect(e.InvolvedObject.APIVersion).To(Equal(v1alpha1.GroupVersion.String()))
		g.Expect(e.ReportingController).To(Equal(applier.FieldManager))
		g.Expect(e.Metadata).To(HaveKeyWithValue(v1alpha1.GroupVersion.Group+"/"+eventv1.MetaRevisionKey, artifact.Revision))
	}, time.Minute, 200*time.Millisecond).Should(Succeed())

	g.Expect(env.Client.Delete(ctx, run)).To(Succeed())
	g.Eventually(func(g Gomega) {
		var got v1alpha1.KCLRun
		err := env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "web"}, &got)
		g.Expect(client404(err)).To(BeTrue(), "finalizer removed by the applier: %v", err)
	}, time.Minute, 200*time.Millisecond).Should(Succeed())
	g.Expect(forbidden.list()).To(BeEmpty())
}

// applyRBAC applies the chart's ServiceAccounts and RBAC for real, removed after the test.
func applyRBAC(t *testing.T, objs []*unstructured.Unstructured) {
	t.Helper()
	ctx := context.Background()
	for _, o := range objs {
		switch o.GetKind() {
		case "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding":
			if o.GetAnnotations()["helm.sh/hook"] != "" {
				continue
			}
			if err := apply(ctx, o); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = env.Client.Delete(context.Background(), o.DeepCopy()) })
		}
	}
}

// asServiceAccount is a rest.Config that authenticates as a ServiceAccount of the release
// namespace (user system:serviceaccount:<ns>:<sa> with the ServiceAccount groups, which is how
// RBAC sees a pod's token), so that the applier's own impersonation of tenants is authorized by
// the chart's RBAC too, not by an admin. Forbidden requests are recorded.
func asServiceAccount(t *testing.T, sa string, forbidden *forbiddenRecorder) *rest.Config {
	t.Helper()
	cfg, err := env.AddUser("system:serviceaccount:"+releaseNamespace+":"+sa,
		"system:serviceaccounts", "system:serviceaccounts:"+releaseNamespace)
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS, cfg.Burst = 100, 200
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			resp, err := rt.RoundTrip(r)
			if err == nil && resp.StatusCode == http.StatusForbidden {
				as := sa
				if u := r.Header.Get("Impersonate-User"); u != "" {
					as += " as " + u
				}
				forbidden.add(as + ": " + r.Method + " " + r.URL.Path)
			}
			return resp, err
		})
	}
	return cfg
}

// natsCreds are the user and password files of each identity, as mounted from the Secrets.
type natsCreds map[string][2]string

// startChartNATS runs the real nats-server with the configuration the chart renders (its
// authorization block resolving users and passwords from the environment, as the StatefulSet
// sets them from the Secrets), or without one when the chart renders no NATS auth.
func startChartNATS(t *testing.T, objs []*unstructured.Unstructured) (*natsserver.Server, natsCreds) {
	t.Helper()
	cm := find(objs, "ConfigMap", "kcl-nats-config")
	conf, _, _ := unstructured.NestedString(cm.Object, "data", "nats.conf")
	if !strings.Contains(conf, "authorization") {
		return natsserver.StartT(t), nil
	}
	creds := natsCreds{}
	dir := t.TempDir()
	for _, who := range []string{natsconn.WatcherIdentity, natsconn.ApplierIdentity} {
		password := "pw-" + who + "-7Kq2"
		t.Setenv(strings.ToUpper(who)+"_USER", who)
		t.Setenv(strings.ToUpper(who)+"_PASSWORD", password)
		user, pass := filepath.Join(dir, who+"-user"), filepath.Join(dir, who+"-password")
		if err := os.WriteFile(user, []byte(who+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(pass, []byte(password+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		creds[who] = [2]string{user, pass}
	}
	// The harness picks the listen port and the store folder (with the limits the chart sets);
	// the monitoring port is not needed.
	var lines []string
	for _, l := range strings.Split(conf, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "http_port") {
			lines = append(lines, l)
		}
	}
	path := filepath.Join(dir, "nats.conf")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	srv, err := natsserver.Start(natsserver.Options{ConfigFile: path, MaxStore: 1 << 30, MaxMemory: 256 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	return srv, creds
}

// connectNATS connects as the service's main does, with the flags the chart passes, to the
// test server (the mounted Secret files replaced by the test's).
func connectNATS(t *testing.T, cfg natsconn.Config, identity string, natsSrv *natsserver.Server, creds natsCreds) *nats.Conn {
	t.Helper()
	cfg.URL = natsSrv.URL()
	if c, ok := creds[identity]; ok {
		if cfg.UserFile == "" || cfg.PasswordFile == "" {
			t.Fatalf("the chart renders NATS users but passes %s no --nats-user-file/--nats-password-file", identity)
		}
		cfg.UserFile, cfg.PasswordFile = c[0], c[1]
	}
	nc, err := cfg.Connect(identity, "")
	if err != nil {
		t.Fatal(err)
	}
	return nc
}

func startWatcher(t *testing.T, ctx context.Context, args []string, natsSrv *natsserver.Server, creds natsCreds, forbidden *forbiddenRecorder) (stop func()) {
	t.Helper()
	flags, err := parseArgs("watcher", args)
	if err != nil {
		t.Fatal(err)
	}
	cfg := flags.Watcher
	cfg.MetricsAddr, cfg.HealthAddr = "0", "0"
	g := NewWithT(t)
	g.Expect(cfg.EnableLeaderElection).To(BeTrue())
	g.Expect(cfg.LeaderElectionNamespace).To(Equal(releaseNamespace))
	nc := connectNATS(t, flags.NATS, natsconn.WatcherIdentity, natsSrv, creds)
	js, err := jetstream.New(nc)
	g.Expect(err).NotTo(HaveOccurred())
	svc, err := watcher.New(cfg, watcher.Deps{RestConfig: asServiceAccount(t, "kcl-watcher", forbidden), JetStream: js, Logger: logr.Discard()})
	g.Expect(err).NotTo(HaveOccurred())
	return runService(ctx, "watcher", svc.Run, nc.Close)
}

func startApplier(t *testing.T, ctx context.Context, objs []*unstructured.Unstructured, natsSrv *natsserver.Server, creds natsCreds, eventsAddr string, forbidden *forbiddenRecorder) (stop func()) {
	t.Helper()
	g := NewWithT(t)
	flags, err := parseArgs("applier", containerArgs(t, objs, "kcl-applier"))
	g.Expect(err).NotTo(HaveOccurred())
	cfg := flags.Applier
	cfg.MetricsAddr, cfg.HealthAddr, cfg.EventsAddr = "", "", eventsAddr
	cfg.InstanceName = "applier-" + t.Name()

	// The workers hold no credentials (automountServiceAccountToken: false): in-process, with
	// the chart's flags but a temporary cache folder.
	compilerFlags, err := parseArgs("compiler", containerArgs(t, objs, "kcl-compiler"))
	g.Expect(err).NotTo(HaveOccurred())
	compilerCfg := compilerFlags.Compiler
	compilerCfg.GRPCAddr, compilerCfg.MetricsAddr, compilerCfg.HealthAddr, compilerCfg.ArtifactCacheDir = "", "", "", t.TempDir()
	compilerSvc, err := compiler.New(compilerCfg, compiler.Deps{})
	g.Expect(err).NotTo(HaveOccurred())
	resolverFlags, err := parseArgs("resolver", containerArgs(t, objs, "kcl-resolver"))
	g.Expect(err).NotTo(HaveOccurred())
	resolverCfg := resolverFlags.Resolver
	resolverCfg.GRPCAddr, resolverCfg.MetricsAddr, resolverCfg.HealthAddr, resolverCfg.ArtifactCacheDir = "", "", "", t.TempDir()
	resolverSvc, err := resolver.New(resolverCfg, resolver.Deps{})
	g.Expect(err).NotTo(HaveOccurred())
	workers, err := workerclient.NewInProcess(compilerSvc, resolverSvc)
	g.Expect(err).NotTo(HaveOccurred())

	nc := connectNATS(t, flags.NATS, natsconn.ApplierIdentity, natsSrv, creds)
	svc, err := applier.New(cfg, applier.Deps{
		RESTConfig: asServiceAccount(t, "kcl-applier", forbidden), NATS: nc,
		Compiler: workers, Resolver: workers, Logger: logr.Discard(),
	})
	g.Expect(err).NotTo(HaveOccurred())
	stop = runService(ctx, "applier", svc.Run, func() { nc.Close(); _ = workers.Close() })
	select {
	case <-svc.Up():
	case <-time.After(time.Minute):
		stop()
		t.Fatal("the applier did not start consuming")
	}
	return stop
}

// runService runs a service until stop, then closes what it used.
func runService(ctx context.Context, name string, run func(context.Context) error, closeDeps func()) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := run(ctx); err != nil && ctx.Err() == nil {
			fmt.Printf("%s stopped: %v\n", name, err)
		}
	}()
	return func() {
		cancel()
		<-done
		closeDeps()
	}
}

// containerArgs are the args of the first container of a rendered Deployment.
func containerArgs(t *testing.T, objs []*unstructured.Unstructured, name string) []string {
	t.Helper()
	d := deployment(t, find(objs, "Deployment", name))
	return d.Spec.Template.Spec.Containers[0].Args
}

// grantTenantAdmin creates the tenant's ServiceAccount with every right in its namespace only
// (a Role of its own: envtest runs no controller-manager to fill the aggregated admin role).
func grantTenantAdmin(t *testing.T, ns, sa string) {
	t.Helper()
	g := NewWithT(t)
	ctx := context.Background()
	g.Expect(env.Client.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: sa}})).To(Succeed())
	g.Expect(env.Client.Create(ctx, &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: sa + "-admin"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}}},
	})).To(Succeed())
	g.Expect(env.Client.Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: sa + "-admin"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: sa + "-admin"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: sa}},
	})).To(Succeed())
}

// readyMessage is "ready" when the KCLRun is Ready for its generation, else the reason.
func readyMessage(obj *v1alpha1.KCLRun) string {
	for _, c := range obj.Status.Conditions {
		if c.Type == meta.ReadyCondition {
			if c.Status == metav1.ConditionTrue && obj.Status.ObservedGeneration == obj.Generation {
				return "ready"
			}
			return c.Reason + ": " + c.Message
		}
	}
	return "no Ready condition"
}

func client404(err error) bool {
	return err != nil && strings.Contains(err.Error(), "not found")
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// forbiddenRecorder keeps the requests the apiserver refused.
type forbiddenRecorder struct {
	mu       sync.Mutex
	requests []string
}

func (f *forbiddenRecorder) add(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, s)
}

func (f *forbiddenRecorder) list() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.requests...)
}

// eventReceiver plays notification-controller's event endpoint: it keeps the Flux events.
type eventReceiver struct {
	mu     sync.Mutex
	events []eventv1.Event
}

func (r *eventReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	var e eventv1.Event
	if err := json.NewDecoder(req.Body).Decode(&e); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
	w.WriteHeader(http.StatusAccepted)
}

// find returns the latest event about the KCLRun carrying a revision.
func (r *eventReceiver) find(namespace, name string) *eventv1.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.events) - 1; i >= 0; i-- {
		e := r.events[i]
		if e.InvolvedObject.Namespace == namespace && e.InvolvedObject.Name == name && len(e.Metadata) > 0 {
			return &e
		}
	}
	return nil
}

// The all-in-one Deployment's ServiceAccount and flags carry the same reconcile.
func TestChartAllInOneRBACRunsAFullReconcile(t *testing.T) {
	needsAPIServer(t)
	g := NewWithT(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	objs := renderChart(t, []string{"ci/all-in-one-values.yaml"}, nil)
	applyRBAC(t, objs)
	forbidden := &forbiddenRecorder{}
	artifacts := artifactserver.StartT(t)
	events := &eventReceiver{}
	receiver := httptest.NewServer(events)
	defer receiver.Close()

	flags, err := parseArgs("flux-kcl-controller", containerArgs(t, objs, "flux-kcl-controller"))
	g.Expect(err).NotTo(HaveOccurred())
	cfg := flags.AllInOne
	cfg.NATSStoreDir, cfg.MetricsAddr, cfg.HealthAddr = t.TempDir(), "", ""
	cfg.Compiler.ArtifactCacheDir, cfg.Resolver.ArtifactCacheDir = t.TempDir(), t.TempDir()
	cfg.Applier.EventsAddr, cfg.Applier.InstanceName = receiver.URL, "all-in-one"
	proc, err := allinone.New(cfg, allinone.Deps{RestConfig: asServiceAccount(t, "flux-kcl-controller", forbidden), Logger: logr.Discard()})
	g.Expect(err).NotTo(HaveOccurred())
	stop := runService(ctx, "all-in-one", proc.Run, func() {})
	defer stop()
	select {
	case <-proc.Started():
	case <-time.After(2 * time.Minute):
		t.Fatal("all-in-one did not start")
	}
	reconcileAsTenant(t, ctx, artifacts, events, forbidden, "")
}
