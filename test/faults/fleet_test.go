package faults

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/runtime/conditions"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/shard"
	"github.com/kcl-lang/flux-kcl-controller/loadtest/fault"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/imagepolicy"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/natsserver"
)

// fleetLabel marks a test's KCLRuns; its watcher watches only those, so KCLRuns left by
// earlier tests stay out of the way.
const fleetLabel = "faults.flux-kcl-controller/fleet"

// Settings every fleet runs with, so that recovery is quick and bounded (defaults in
// parentheses): the lease of a killed applier expires after leaseTTL (30s), transient
// failures are retried at most every maxRetryBackoff (5m).
const (
	leaseTTL        = 6 * time.Second
	maxRetryBackoff = 5 * time.Second
	// convergeTimeout bounds every wait for convergence; reaching it is a failure (a lost
	// reconcile or a stuck KCLRun), not a speed measurement.
	convergeTimeout = 3 * time.Minute
	// stopGrace is how long a service may take to stop after SIGTERM at the end of a test.
	stopGrace = 10 * time.Second
)

type fleetOptions struct {
	// tenants is the number of KCLRuns (one namespace, source and ImagePolicy each); 4.
	tenants int
	// objects is the number of ConfigMaps each program renders; 5.
	objects int
	// compilers is the number of compiler replicas; 1. startCompilers of them start at
	// once (all when 0), the others on demand.
	compilers      int
	startCompilers int
	// appliers is the number of applier replicas; 2.
	appliers int
	// compilerArgs are added to every compiler's command line.
	compilerArgs []string
	// eventsAddr overrides the appliers' --events-addr (the fleet's receiver).
	eventsAddr string
	// natsCluster runs a three-node JetStream cluster instead of one server; the services
	// get every node's URL and three replicas of the stream and the buckets.
	natsCluster bool
}

// fleet is one test's flux-kcl-controller: NATS, an artifact server, an events receiver,
// the split services as processes, and the tenants.
type fleet struct {
	t    *testing.T
	name string
	opts fleetOptions
	// nats is the single server, or nil when natsCluster runs the cluster instead.
	nats      *natsserver.Server
	cluster   *natsserver.Cluster
	artifacts *artifactserver.Server
	events    *fault.EventReceiver
	journal   string
	logDir    string

	compilers []*fault.Process
	resolver  *fault.Process
	appliers  []*fault.Process
	watcher   *fault.Process
	tenants   []*tenant
}

// tenant is one KCLRun "app" in its own namespace, on the GitRepository "app", whose
// program follows the ImagePolicy "web".
type tenant struct {
	ns     string
	seq    int
	tag    int
	source client.Object
	// policy is the ImagePolicy the program follows: the tenant's own "web", or one set
	// before newTenant that tenants share (an ImageRollout's), which the stream never flips.
	policy *imagev1.ImagePolicy
	// labels are added to the KCLRun's (a rollout stage's selector).
	labels map[string]string
	// program renders the tenant's files for a revision; nil uses the fleet's.
	program func(revision string) map[string]string
	// artifact, when set, publishes the tenant's artifact at path itself (crafted archives).
	artifact func(path, revision string) (*meta.Artifact, error)
}

func (tn *tenant) key() string { return tn.ns + "/app" }

// sharesPolicy reports whether the tenant follows an ImagePolicy of another namespace.
func (tn *tenant) sharesPolicy() bool { return tn.policy.Namespace != tn.ns }

func startFleet(t *testing.T, opts fleetOptions) *fleet {
	t.Helper()
	skipIfNeeded(t)
	if opts.tenants == 0 {
		opts.tenants = 4
	}
	if opts.objects == 0 {
		opts.objects = 5
	}
	if opts.compilers == 0 {
		opts.compilers = 1
	}
	if opts.startCompilers == 0 {
		opts.startCompilers = opts.compilers
	}
	if opts.appliers == 0 {
		opts.appliers = 2
	}
	f := &fleet{t: t, opts: opts, name: fleetName(t.Name())}
	var err error
	if f.logDir, err = os.MkdirTemp("", "fkc-faults-"+f.name+"-"); err != nil {
		t.Fatal(err)
	}
	f.journal = filepath.Join(f.logDir, "journal")
	t.Cleanup(func() {
		if t.Failed() || *keepLogs {
			t.Logf("service logs and the reconcile journal are kept in %s", f.logDir)
			return
		}
		_ = os.RemoveAll(f.logDir)
	})
	natsURL := ""
	var replicas []string
	if opts.natsCluster {
		if f.cluster, err = natsserver.StartCluster(natsserver.ClusterOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(f.cluster.Stop)
		natsURL = f.cluster.URL()
		replicas = []string{fmt.Sprintf("--jetstream-replicas=%d", f.cluster.Nodes())}
	} else {
		if f.nats, err = natsserver.Start(natsserver.Options{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(f.nats.Stop)
		natsURL = f.nats.URL()
	}
	if f.artifacts, err = artifactserver.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.artifacts.Close)
	if f.events, err = fault.StartEventReceiver(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.events.Close)

	eventsAddr := opts.eventsAddr
	if eventsAddr == "" {
		eventsAddr = f.events.URL()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var compilerAddrs []string
	for i := range opts.compilers {
		addr := f.freeAddr()
		compilerAddrs = append(compilerAddrs, addr)
		args := append([]string{
			"--grpc-addr=" + addr, "--metrics-addr=", "--health-addr=",
			"--artifact-cache-dir=" + filepath.Join(f.logDir, fmt.Sprintf("compiler-%d-cache", i)),
		}, opts.compilerArgs...)
		p := f.process(fmt.Sprintf("compiler-%d", i), "compiler", args, fault.PortReady(addr))
		f.compilers = append(f.compilers, p)
		if i < opts.startCompilers {
			f.start(ctx, p)
		}
	}
	resolverAddr := f.freeAddr()
	f.resolver = f.process("resolver", "resolver", []string{
		"--grpc-addr=" + resolverAddr, "--metrics-addr=", "--health-addr=",
		"--artifact-cache-dir=" + filepath.Join(f.logDir, "resolver-cache"),
	}, fault.PortReady(resolverAddr))
	f.start(ctx, f.resolver)
	for i := range opts.appliers {
		health := f.freeAddr()
		p := f.process(fmt.Sprintf("applier-%d", i), "journaled-applier", append([]string{
			"--nats-url=" + natsURL,
			"--compiler-addr=" + strings.Join(compilerAddrs, ","),
			"--resolver-addr=" + resolverAddr,
			"--metrics-addr=", "--health-addr=" + health,
			"--instance-name=" + fmt.Sprintf("applier-%d", i),
			"--lease-ttl=" + leaseTTL.String(),
			"--max-retry-backoff=" + maxRetryBackoff.String(),
			"--events-addr=" + eventsAddr,
			"--journal=" + f.journal,
		}, replicas...), fault.HTTPReady("http://"+health+"/readyz"))
		f.appliers = append(f.appliers, p)
		f.start(ctx, p)
	}
	watcherHealth := f.freeAddr()
	f.watcher = f.process("watcher", "watcher", append([]string{
		"--nats-url=" + natsURL,
		"--watch-label-selector=" + fleetLabel + "=" + f.name,
		"--metrics-addr=0", "--health-addr=" + watcherHealth,
		"--log-level=debug", // every request published, and whether JetStream found it a duplicate
	}, replicas...), fault.HTTPReady("http://"+watcherHealth+"/readyz"))
	f.start(ctx, f.watcher)
	return f
}

var nonName = regexp.MustCompile(`[^a-z0-9]+`)

func fleetName(testName string) string {
	name := strings.Trim(nonName.ReplaceAllString(strings.ToLower(testName), "-"), "-")
	if len(name) > 40 {
		name = name[:40]
	}
	return strings.Trim(name, "-")
}

func (f *fleet) freeAddr() string {
	addr, err := fault.FreeAddr()
	if err != nil {
		f.t.Fatal(err)
	}
	return addr
}

// process prepares a service process logging to <logDir>/<name>.log, with the kubeconfig.
func (f *fleet) process(name, binary string, args []string, ready func(context.Context) error) *fault.Process {
	log, err := os.OpenFile(filepath.Join(f.logDir, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		f.t.Fatal(err)
	}
	p := &fault.Process{
		Name: name, Path: filepath.Join(suite.Bin, binary), Args: args,
		Env: []string{"KUBECONFIG=" + suite.Env.Kubeconfig()}, Log: log, Ready: ready,
	}
	f.t.Cleanup(func() {
		if p.Running() {
			start := time.Now()
			_ = p.Stop(stopGrace)
			if d := time.Since(start); d > 2*time.Second {
				f.t.Logf("%s took %s to stop after SIGTERM (killed after %s)", p.Name, d.Round(time.Millisecond), stopGrace)
			}
		}
		_ = log.Close()
	})
	return p
}

func (f *fleet) start(ctx context.Context, p *fault.Process) {
	f.t.Helper()
	if err := p.Start(ctx); err != nil {
		f.t.Fatalf("%v (log in %s)", err, f.logDir)
	}
}

// program renders objects ConfigMaps carrying the revision and the image that the
// ImagePolicy marker resolves.
func program(namespace, revision string, objects int) map[string]string {
	return map[string]string{"main.k": fmt.Sprintf(`_rev = %q
_image = "ghcr.io/org/web:1.0.0" # {"$imagepolicy": "%s:web"}
items = [{
    apiVersion = "v1"
    kind = "ConfigMap"
    metadata = {name = "cm-${i}"}
    data = {rev = _rev, image = _image}
} for i in range(%d)]
`, revision, namespace, objects)}
}

// addTenants creates n tenants at revision 1 and image 1.0.0.
func (f *fleet) addTenants(n int) []*tenant {
	f.t.Helper()
	ctx := context.Background()
	var added []*tenant
	for range n {
		tn := f.newTenant(ctx, nil)
		added = append(added, tn)
	}
	f.tenants = append(f.tenants, added...)
	return added
}

// newTenant creates a namespace, ImagePolicy, source and KCLRun for tn (nil: a plain one).
func (f *fleet) newTenant(ctx context.Context, tn *tenant) *tenant {
	f.t.Helper()
	if tn == nil {
		tn = &tenant{}
	}
	var err error
	if tn.ns, err = suite.Env.CreateNamespace(ctx, "faults"); err != nil {
		f.t.Fatal(err)
	}
	ns := tn.ns
	if tn.policy == nil {
		if tn.policy, err = imagepolicy.Create(ctx, suite.Env.Client, ns, "web", imagev1.ImageRef{Name: "ghcr.io/org/web", Tag: "1.0.0"}); err != nil {
			f.t.Fatal(err)
		}
	}
	if err := f.publish(ctx, tn, nil); err != nil {
		f.t.Fatal(err)
	}
	labels := map[string]string{fleetLabel: f.name}
	for k, v := range tn.labels {
		labels[k] = v
	}
	run := &v1alpha1.KCLRun{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "app", Labels: labels},
		Spec: v1alpha1.KCLRunSpec{
			SourceRef: v1alpha1.CrossNamespaceSourceReference{Kind: sourcev1.GitRepositoryKind, Name: "app"},
			// A long interval: a lost request would not be covered by a periodic one.
			Interval:      metav1.Duration{Duration: time.Hour},
			RetryInterval: &metav1.Duration{Duration: maxRetryBackoff},
			Prune:         true,
		},
	}
	if err := suite.Env.Client.Create(ctx, run); err != nil {
		f.t.Fatal(err)
	}
	return tn
}

// publish serves the tenant's next revision and points its source at it; beforeSet runs
// between the two (to hold the artifact's path).
func (f *fleet) publish(ctx context.Context, tn *tenant, beforeSet func(path string)) error {
	tn.seq++
	revision := fmt.Sprintf("main@sha1:%040d", tn.seq)
	path := artifactserver.ArtifactPath(sourcev1.GitRepositoryKind, tn.ns, "app", fmt.Sprintf("rev-%d.tar.gz", tn.seq))
	files := program(tn.ns, revision, f.opts.objects)
	if tn.program != nil {
		files = tn.program(revision)
	}
	var artifact *meta.Artifact
	var err error
	if tn.artifact != nil {
		artifact, err = tn.artifact(path, revision)
	} else {
		artifact, err = f.artifacts.PublishFiles(path, files, revision)
	}
	if err != nil {
		return err
	}
	if beforeSet != nil {
		beforeSet(path)
	}
	return f.setArtifact(ctx, tn, artifact)
}

func (f *fleet) setArtifact(ctx context.Context, tn *tenant, artifact *meta.Artifact) error {
	return retry(ctx, func(ctx context.Context) error {
		if tn.source == nil {
			src, err := artifactserver.CreateSource(ctx, suite.Env.Client, sourcev1.GitRepositoryKind, tn.ns, "app", artifact)
			if err != nil {
				return err
			}
			tn.source = src
			return nil
		}
		if err := suite.Env.Client.Get(ctx, client.ObjectKeyFromObject(tn.source), tn.source); err != nil {
			return err
		}
		return artifactserver.SetArtifact(ctx, suite.Env.Client, tn.source, artifact)
	})
}

// flip moves the tenant's ImagePolicy to the next tag.
func (f *fleet) flip(ctx context.Context, tn *tenant) error {
	tn.tag++
	ref := imagev1.ImageRef{Name: "ghcr.io/org/web", Tag: fmt.Sprintf("1.%d.0", tn.tag)}
	return retry(ctx, func(ctx context.Context) error {
		if err := suite.Env.Client.Get(ctx, client.ObjectKeyFromObject(tn.policy), tn.policy); err != nil {
			return err
		}
		return imagepolicy.SetLatest(ctx, suite.Env.Client, tn.policy, ref)
	})
}

// retry repeats a write through an apiserver outage until it succeeds or ctx ends.
func retry(ctx context.Context, write func(ctx context.Context) error) error {
	for {
		attemptCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err := write(attemptCtx)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return errors.Join(ctx.Err(), err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// stream is a background series of changes: new revisions and ImagePolicy flips, round
// robin over the tenants.
type stream struct {
	cancel  context.CancelFunc
	done    chan struct{}
	changes atomic.Int64
	err     error
	once    sync.Once
}

// startStream changes one tenant every gap, skipping the tenants in exclude, until stop.
func (f *fleet) startStream(gap time.Duration, exclude ...*tenant) *stream {
	skip := map[*tenant]bool{}
	for _, tn := range exclude {
		skip[tn] = true
	}
	var targets []*tenant
	for _, tn := range f.tenants {
		if !skip[tn] {
			targets = append(targets, tn)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &stream{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		if len(targets) == 0 {
			<-ctx.Done()
			return
		}
		for i := 0; ; i++ {
			tn := targets[i%len(targets)]
			var err error
			// A shared policy is flipped by the test only: a flip is a new election.
			if (i/len(targets))%2 == 0 || tn.sharesPolicy() {
				err = f.publish(ctx, tn, nil)
			} else {
				err = f.flip(ctx, tn)
			}
			if ctx.Err() != nil {
				return
			}
			if err != nil {
				s.err = err
				return
			}
			s.changes.Add(1)
			select {
			case <-ctx.Done():
				return
			case <-time.After(gap):
			}
		}
	}()
	return s
}

// waitChanges waits until the stream made n changes.
func (s *stream) waitChanges(t *testing.T, n int64) {
	t.Helper()
	for s.changes.Load() < n {
		select {
		case <-s.done:
			t.Fatalf("the stream of changes stopped after %d: %v", s.changes.Load(), s.err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// stop ends the stream and waits for the change in progress.
func (s *stream) stop() {
	s.once.Do(func() {
		s.cancel()
		<-s.done
	})
}

// underStream makes a fault's recovery also end the stream of changes: changes go on while
// the fault lasts, and convergence is then measured against a fixed target.
type underStream struct {
	fault.Fault
	stream      *stream
	afterInject func()
}

func (u underStream) Inject(ctx context.Context) error {
	if err := u.Fault.Inject(ctx); err != nil {
		return err
	}
	if u.afterInject != nil {
		u.afterInject()
	}
	return nil
}

func (u underStream) Recover(ctx context.Context) error {
	u.stream.stop()
	return u.Fault.Recover(ctx)
}

// runFault injects f while the stream runs, recovers after outage, waits for convergence
// and logs the report; it fails the test on a lost reconcile or an overlap.
func (f *fleet) runFault(flt fault.Fault, s *stream, outage time.Duration, afterInject func()) fault.Report {
	f.t.Helper()
	before := s.changes.Load()
	ctx, cancel := context.WithTimeout(context.Background(), outage+convergeTimeout)
	defer cancel()
	rep, err := fault.Run(ctx, underStream{Fault: flt, stream: s, afterInject: afterInject}, fault.Options{
		Outage: outage, Converged: f.converged,
	})
	if err != nil {
		f.t.Fatalf("%v (logs in %s)", err, f.logDir)
	}
	if s.err != nil {
		f.t.Fatalf("the stream of changes failed: %v", s.err)
	}
	f.t.Logf("%s; %d changes before the fault, %d while it lasted, %d KCLRuns", rep, before, s.changes.Load()-before, len(f.tenants))
	f.checkSettled()
	f.checkJournal()
	return rep
}

// converged reports whether every tenant applied its source's current revision with its
// ImagePolicy's current image, and says what is missing when not.
func (f *fleet) converged(ctx context.Context) (bool, error) {
	for _, tn := range f.tenants {
		if err := tenantConverged(ctx, tn, f.opts.objects); err != nil {
			return false, err
		}
	}
	return true, nil
}

func tenantConverged(ctx context.Context, tn *tenant, objects int) error {
	c := suite.Env.Client
	src := &sourcev1.GitRepository{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: tn.ns, Name: "app"}, src); err != nil {
		return err
	}
	policy := &imagev1.ImagePolicy{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(tn.policy), policy); err != nil {
		return err
	}
	revision := src.Status.Artifact.Revision
	image := policy.Status.LatestRef.Name + ":" + policy.Status.LatestRef.Tag
	run := &v1alpha1.KCLRun{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: tn.ns, Name: "app"}, run); err != nil {
		return err
	}
	if !conditions.IsTrue(run, meta.ReadyCondition) || run.Status.ObservedGeneration != run.Generation {
		return fmt.Errorf("%s not Ready: %s", tn.key(), conditions.GetMessage(run, meta.ReadyCondition))
	}
	if run.Status.LastAppliedRevision != revision {
		return fmt.Errorf("%s applied %s, source has %s", tn.key(), run.Status.LastAppliedRevision, revision)
	}
	var cms corev1.ConfigMapList
	if err := c.List(ctx, &cms, client.InNamespace(tn.ns)); err != nil {
		return err
	}
	n := 0
	for _, cm := range cms.Items {
		if !strings.HasPrefix(cm.Name, "cm-") {
			continue
		}
		if cm.Data["rev"] != revision || cm.Data["image"] != image {
			return fmt.Errorf("%s: ConfigMap %s has %s %s, want %s %s", tn.key(), cm.Name, cm.Data["rev"], cm.Data["image"], revision, image)
		}
		n++
	}
	if n != objects {
		return fmt.Errorf("%s: %d ConfigMaps, want %d", tn.key(), n, objects)
	}
	return nil
}

// waitConverged waits for every tenant to converge and returns how long it took.
func (f *fleet) waitConverged() time.Duration {
	f.t.Helper()
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), convergeTimeout)
	defer cancel()
	var last error
	for {
		ok, err := f.converged(ctx)
		if ok {
			return time.Since(start)
		}
		last = err
		select {
		case <-ctx.Done():
			f.t.Fatalf("not converged after %s: %v (logs in %s)", convergeTimeout, last, f.logDir)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// checkSettled waits until the reconcile-request stream is empty: every request was acked
// and none is stuck (an unacked request would stay, and be redelivered).
func (f *fleet) checkSettled() {
	f.t.Helper()
	nc, err := f.connectNATS()
	if err != nil {
		f.t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		f.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), convergeTimeout)
	defer cancel()
	for {
		st, err := js.Stream(ctx, shard.Name("").Stream())
		if err == nil {
			var info *jetstream.StreamInfo
			if info, err = st.Info(ctx); err == nil && info.State.Msgs == 0 {
				return
			} else if err == nil {
				err = fmt.Errorf("%d requests still in the stream", info.State.Msgs)
			}
		}
		select {
		case <-ctx.Done():
			f.t.Fatalf("reconcile requests not settled: %v", err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// connectNATS connects to the fleet's NATS, every node of a cluster.
func (f *fleet) connectNATS() (*nats.Conn, error) {
	if f.cluster != nil {
		return f.cluster.Connect()
	}
	return f.nats.Connect()
}

// waitFor polls cond until it holds, failing the test after convergeTimeout.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(convergeTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s after %s", what, convergeTimeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// checkJournal fails the test if two reconciles of one KCLRun ever overlapped.
func (f *fleet) checkJournal() {
	f.t.Helper()
	sum, err := fault.ReadJournal(f.journal)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Logf("journal: %s", sum)
	for _, o := range sum.Overlaps {
		f.t.Errorf("overlapping reconciles: %s", o)
	}
}
