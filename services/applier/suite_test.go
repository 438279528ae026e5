package applier_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	eventv1 "github.com/fluxcd/pkg/apis/event/v1"
	"github.com/fluxcd/pkg/apis/meta"
	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/nats-io/nats.go/jetstream"
	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/kclpackage"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
	"github.com/kcl-lang/flux-kcl-controller/services/applier"
	"github.com/kcl-lang/flux-kcl-controller/services/compiler"
	"github.com/kcl-lang/flux-kcl-controller/services/resolver"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/apirequests"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/kube"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/natsserver"
)

// The package shares one apiserver, one NATS server, one artifact server, the
// real workers in process and one applier; tests that need more appliers start
// them. Every applier reports to the same tracker, so every test also checks
// that no two reconciles of one KCLRun ever overlapped.
var (
	env       *kube.Env
	nats      *natsserver.Server
	artifacts *artifactserver.Server
	workers   *workerclient.Client
	tracker   = newTracker()
	writes    = &writeCounter{}
	requests  = &apirequests.Log{}
	// metrics is the registry of the package's applier.
	metrics = prometheus.NewRegistry()
	events  = newEventSink()
	// storageDir is the appliers' --storage-path (spec.output.mode ExternalArtifact).
	storageDir string
)

// maxArtifactBytes is the compiler's artifact size limit in these tests.
const maxArtifactBytes = 1 << 20

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	ctrllog.SetLogger(funcr.New(func(string, string) {}, funcr.Options{}))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var err error
	if env, err = kube.Start(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = env.Stop() }()
	if nats, err = natsserver.Start(natsserver.Options{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer nats.Shutdown()
	if storageDir, err = os.MkdirTemp("", "applier-storage-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = os.RemoveAll(storageDir) }()
	if artifacts, err = artifactserver.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer artifacts.Close()
	receiver := httptest.NewServer(events)
	defer receiver.Close()

	compilerCfg := compiler.DefaultConfig()
	compilerCfg.GRPCAddr, compilerCfg.MetricsAddr, compilerCfg.HealthAddr = "", "", ""
	compilerCfg.ArtifactMaxBytes = maxArtifactBytes
	// Test-only: the registries of the tests listen on loopback, which the
	// default package policy refuses.
	compilerCfg.PackagePolicy = kclpackage.Policy{AllowedHosts: []string{"*"}, AllowedNetworks: []string{"127.0.0.1/32"}}
	compilerSvc, err := compiler.New(compilerCfg, compiler.Deps{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	resolverCfg := resolver.DefaultConfig()
	resolverCfg.GRPCAddr, resolverCfg.MetricsAddr, resolverCfg.HealthAddr = "", "", ""
	resolverSvc, err := resolver.New(resolverCfg, resolver.Deps{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if workers, err = workerclient.NewInProcess(compilerSvc, resolverSvc); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer workers.Close()

	mainCtx, receiverURL = ctx, receiver.URL
	if stopMain, err = startApplier(ctx, mainApplier, receiverURL, metrics); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { stopMain() }()
	return m.Run()
}

// The package's applier, which whileApplierStopped stops and starts again.
const mainApplier = "applier-0"

var (
	mainCtx     context.Context
	receiverURL string
	stopMain    func()
)

// whileApplierStopped runs during with the package's applier stopped, then
// starts a new one under the same name (and a new metrics registry): what
// during changes happens while no drift watcher runs.
func whileApplierStopped(t testing.TB, during func()) {
	t.Helper()
	stopMain()
	during()
	metrics = prometheus.NewRegistry()
	stop, err := startApplier(mainCtx, mainApplier, receiverURL, metrics)
	if err != nil {
		t.Fatal(err)
	}
	stopMain = stop
}

// startApplier runs one more applier replica until stop is called.
func startApplier(ctx context.Context, name, eventsAddr string, reg prometheus.Registerer) (stop func(), err error) {
	return startApplierWith(ctx, name, eventsAddr, reg, workers)
}

// startApplierWith starts an applier that calls the given workers; adjust
// changes the suite's configuration and dependencies before it starts.
func startApplierWith(ctx context.Context, name, eventsAddr string, reg prometheus.Registerer, workers *workerclient.Client, adjust ...func(*applier.Config, *applier.Deps)) (stop func(), err error) {
	nc, err := nats.Connect()
	if err != nil {
		return nil, err
	}
	cfg := applier.DefaultConfig()
	cfg.MetricsAddr, cfg.HealthAddr = "", ""
	cfg.InstanceName = name
	cfg.EventsAddr = eventsAddr
	cfg.RequeueDependency = 2 * time.Second
	cfg.MaxBackoff = 4 * time.Second
	cfg.LeaseTTL = 6 * time.Second
	cfg.FeatureGates = map[string]bool{applier.FeatureGateObjectLevelWorkloadIdentity: true}
	// Every replica publishes into one folder, as onto a shared volume.
	cfg.StoragePath, cfg.StorageAddr = storageDir, "127.0.0.1:0"
	restCfg := rest.CopyConfig(env.Config)
	restCfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return refusedStatus.wrap(writes.wrap(requests.Wrap(rt)))
	}
	restCfg.QPS, restCfg.Burst = 200, 400
	deps := applier.Deps{
		RESTConfig: restCfg,
		NATS:       nc,
		Compiler:   workers,
		Resolver:   workers,
		Logger:     logr.Discard(),
		Registerer: reg,
		Hooks:      applier.Hooks{Enter: tracker.enter, Exit: tracker.exit, FingerprintWrite: lostFingerprints.write},
	}
	for _, f := range adjust {
		f(&cfg, &deps)
	}
	svc, err := applier.New(cfg, deps)
	if err != nil {
		nc.Close()
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := svc.Run(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "applier:", err)
		}
	}()
	select {
	case <-svc.Up():
	case <-time.After(time.Minute):
		cancel()
		<-done
		nc.Close()
		return nil, fmt.Errorf("applier %s did not start", name)
	}
	return func() {
		cancel()
		<-done
		nc.Close()
	}, nil
}

// tracker records every reconcile the appliers run.
type reconcileTracker struct {
	mu       sync.Mutex
	inside   map[string]int
	overlaps []string
	outcomes map[string][]applier.Outcome
	// gates hold the reconciles of a key as they start, until released.
	gates map[string]chan struct{}
}

func newTracker() *reconcileTracker {
	return &reconcileTracker{inside: map[string]int{}, outcomes: map[string][]applier.Outcome{}, gates: map[string]chan struct{}{}}
}

func (t *reconcileTracker) enter(key string) {
	t.mu.Lock()
	t.inside[key]++
	if t.inside[key] > 1 {
		t.overlaps = append(t.overlaps, key)
	}
	gate := t.gates[key]
	t.mu.Unlock()
	if gate != nil {
		<-gate
	}
}

// hold makes the next reconciles of key wait as they start (holding its
// lease) until release.
func (t *reconcileTracker) hold(key string) (release func()) {
	gate := make(chan struct{})
	t.mu.Lock()
	t.gates[key] = gate
	t.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			t.mu.Lock()
			delete(t.gates, key)
			t.mu.Unlock()
			close(gate)
		})
	}
}

// outcomesOf are the outcomes of key's reconciles, the oldest first.
func (t *reconcileTracker) outcomesOf(key string) []applier.Outcome {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]applier.Outcome(nil), t.outcomes[key]...)
}

func (t *reconcileTracker) exit(key string, out applier.Outcome) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.inside[key]--
	t.outcomes[key] = append(t.outcomes[key], out)
}

// count is the number of finished reconciles of key.
func (t *reconcileTracker) count(key string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.outcomes[key])
}

// running is the number of reconciles of key in progress.
func (t *reconcileTracker) running(key string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.inside[key]
}

// runningKeys lists the reconciles in progress, for a test that fails waiting.
func (t *reconcileTracker) runningKeys() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var keys []string
	for k, n := range t.inside {
		if n > 0 {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// last is the latest outcome of key.
func (t *reconcileTracker) last(key string) applier.Outcome {
	t.mu.Lock()
	defer t.mu.Unlock()
	o := t.outcomes[key]
	if len(o) == 0 {
		return applier.Outcome{}
	}
	return o[len(o)-1]
}

// since describes the outcomes of key from the n-th on: result, request
// reason and trigger, for failure messages.
func (t *reconcileTracker) since(key string, n int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var b strings.Builder
	for i, o := range t.outcomes[key] {
		if i < n {
			continue
		}
		fmt.Fprintf(&b, "#%d %s (reason %s", i, o.Result, o.Request.Reason)
		if o.Request.Trigger != "" {
			fmt.Fprintf(&b, ", trigger %s", o.Request.Trigger)
		}
		if o.Err != nil {
			fmt.Fprintf(&b, ", error %v", o.Err)
		}
		b.WriteString("); ")
	}
	return b.String()
}

func (t *reconcileTracker) overlapping() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.overlaps...)
}

// writeCounter counts the appliers' mutating apiserver requests, except
// Kubernetes Events, which the event broadcaster posts asynchronously (a
// no-op reconcile records none, but an earlier apply's may land late).
type writeCounter struct{ n atomic.Int64 }

func (w *writeCounter) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		switch {
		case r.Method == http.MethodGet, r.Method == http.MethodHead, r.Method == http.MethodOptions:
		case strings.HasSuffix(r.URL.Path, "/events") || strings.Contains(r.URL.Path, "/events/"):
		default:
			w.n.Add(1)
		}
		return rt.RoundTrip(r)
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// eventSink is a Flux notification receiver: it decodes every event POSTed.
type eventSink struct {
	mu     sync.Mutex
	events []eventv1.Event
	// held, when not nil, makes the receiver hang until it is closed.
	held chan struct{}
}

// hang makes the receiver stop answering until the returned func is called.
func (s *eventSink) hang() (release func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	held := make(chan struct{})
	s.held = held
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			s.held = nil
			s.mu.Unlock()
			close(held)
		})
	}
}

func newEventSink() *eventSink { return &eventSink{} }

func (s *eventSink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	held := s.held
	s.mu.Unlock()
	if held != nil {
		select {
		case <-held:
		case <-r.Context().Done():
			return
		}
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var e eventv1.Event
	if err := json.Unmarshal(body, &e); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.events = append(s.events, e)
	s.mu.Unlock()
	w.WriteHeader(http.StatusAccepted)
}

// forObject returns the events received for one KCLRun.
func (s *eventSink) forObject(namespace, name string) []eventv1.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []eventv1.Event
	for _, e := range s.events {
		if e.InvolvedObject.Namespace == namespace && e.InvolvedObject.Name == name {
			out = append(out, e)
		}
	}
	return out
}

// --- fixtures ---

var requestSeq atomic.Int64

// request publishes a reconcile request on the unsharded stream, as the watcher would.
func request(t testing.TB, namespace, name string, reason reconcilerequest.Reason) {
	t.Helper()
	publishOn(t, "", namespace, name, reason)
}

// requestAndWait publishes a reconcile request and returns the outcome of the
// reconcile that follows it.
func requestAndWait(t testing.TB, namespace, name string, reason reconcilerequest.Reason) applier.Outcome {
	t.Helper()
	key := namespace + "/" + name
	n := tracker.count(key)
	request(t, namespace, name, reason)
	NewWithT(t).Eventually(func() int { return tracker.count(key) }, "1m").Should(BeNumerically(">", n))
	return tracker.last(key)
}

func newNamespace(t testing.TB) string {
	t.Helper()
	ns, err := env.CreateNamespace(context.Background(), "applier")
	if err != nil {
		t.Fatal(err)
	}
	return ns
}

var revisionSeq atomic.Int64

// publishProgram serves main.k as a new artifact revision of the source
// (created on first use) and points the source's status at it.
func publishProgram(t testing.TB, namespace, source, mainK string) *meta.Artifact {
	t.Helper()
	n := revisionSeq.Add(1)
	path := artifactserver.ArtifactPath("GitRepository", namespace, source, fmt.Sprintf("rev-%d.tar.gz", n))
	artifact, err := artifacts.PublishFiles(path, map[string]string{"main.k": mainK}, fmt.Sprintf("main@sha1:%040d", n))
	if err != nil {
		t.Fatal(err)
	}
	setArtifact(t, namespace, source, artifact)
	return artifact
}

func setArtifact(t testing.TB, namespace, source string, artifact *meta.Artifact) {
	t.Helper()
	ctx := context.Background()
	obj, err := artifactserver.NewSource("GitRepository", namespace, source)
	if err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
		if _, err := artifactserver.CreateSource(ctx, env.Client, "GitRepository", namespace, source, artifact); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err := artifactserver.SetArtifact(ctx, env.Client, obj, artifact); err != nil {
		t.Fatal(err)
	}
}

// createKCLRun creates a KCLRun of the GitRepository named source.
func createKCLRun(t testing.TB, namespace, name, source string, mutate ...func(*v1alpha1.KCLRun)) *v1alpha1.KCLRun {
	t.Helper()
	obj := &v1alpha1.KCLRun{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: v1alpha1.KCLRunSpec{
			SourceRef: v1alpha1.CrossNamespaceSourceReference{Kind: "GitRepository", Name: source},
			Interval:  metav1.Duration{Duration: 10 * time.Minute},
			Prune:     true,
		},
	}
	for _, m := range mutate {
		m(obj)
	}
	if err := env.Client.Create(context.Background(), obj); err != nil {
		t.Fatal(err)
	}
	request(t, namespace, name, reconcilerequest.ReasonCreated)
	// Failing KCLRuns retry forever; delete them after the test so that they
	// do not keep the appliers busy during the next ones.
	t.Cleanup(func() {
		if err := env.Client.Delete(context.Background(), obj); err != nil {
			return
		}
		request(t, namespace, name, reconcilerequest.ReasonDeleting)
		if obj.Spec.KubeConfig != nil {
			// Its cluster may stop right after this (cleanups run last
			// first): released now, its deletion does not retry forever
			// against a cluster that is gone, as Flux's would.
			NewWithT(t).Eventually(func() bool {
				err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(obj), &v1alpha1.KCLRun{})
				return apierrors.IsNotFound(err)
			}, "1m", "200ms").Should(BeTrue(), "KCLRun %s/%s released while its cluster runs", namespace, name)
		}
	})
	return obj
}

func getKCLRun(g Gomega, namespace, name string) *v1alpha1.KCLRun {
	obj := &v1alpha1.KCLRun{}
	g.Expect(env.Client.Get(context.Background(), types.NamespacedName{Namespace: namespace, Name: name}, obj)).To(Succeed())
	return obj
}

// readyAt waits until the KCLRun applied revision.
func readyAt(t testing.TB, namespace, name, revision string) *v1alpha1.KCLRun {
	t.Helper()
	g := NewWithT(t)
	var obj *v1alpha1.KCLRun
	g.Eventually(func(g Gomega) {
		obj = getKCLRun(g, namespace, name)
		ready := readyCondition(obj)
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Status).To(Equal(metav1.ConditionTrue), ready.Message)
		g.Expect(obj.Status.LastAppliedRevision).To(Equal(revision))
		g.Expect(obj.Status.ObservedGeneration).To(Equal(obj.Generation))
	}, 2*time.Minute, 200*time.Millisecond).Should(Succeed())
	return obj
}

func readyCondition(obj *v1alpha1.KCLRun) *metav1.Condition {
	for i := range obj.Status.Conditions {
		if obj.Status.Conditions[i].Type == meta.ReadyCondition {
			return &obj.Status.Conditions[i]
		}
	}
	return nil
}

func assertNoOverlap(t testing.TB) {
	t.Helper()
	if o := tracker.overlapping(); len(o) > 0 {
		t.Fatalf("reconciles overlapped for %v", o)
	}
}

// webApp is a program rendering a Deployment and, when withService, a Service.
func webApp(replicas int, withService bool) string {
	prog := fmt.Sprintf(`items = [
    {
        apiVersion = "apps/v1"
        kind = "Deployment"
        metadata = {name = "web"}
        spec = {
            replicas = %d
            selector = {matchLabels = {app = "web"}}
            template = {
                metadata = {labels = {app = "web"}}
                spec = {containers = [{name = "web", image = "nginx:1.27"}]}
            }
        }
    }
`, replicas)
	if withService {
		prog += `    {
        apiVersion = "v1"
        kind = "Service"
        metadata = {name = "web"}
        spec = {
            selector = {app = "web"}
            ports = [{port = 80, targetPort = 8080}]
        }
    }
`
	}
	return prog + "]\n"
}

// configMap is a program rendering one ConfigMap carrying value.
func configMap(name, value string) string {
	return fmt.Sprintf(`items = [{
    apiVersion = "v1"
    kind = "ConfigMap"
    metadata = {name = %q}
    data = {value = %q}
}]
`, name, value)
}

func objectMeta(namespace, name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: namespace, Name: name}
}

type metaRef = meta.DependencyReference

// suiteJetStream connects to the suite's nats-server; done closes the
// connection.
func suiteJetStream(t testing.TB) (js jetstream.JetStream, done func()) {
	t.Helper()
	nc, err := nats.Connect()
	if err != nil {
		t.Fatal(err)
	}
	js, err = jetstream.New(nc)
	if err != nil {
		nc.Close()
		t.Fatal(err)
	}
	return js, nc.Close
}
