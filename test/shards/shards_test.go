package shards

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/runtime/conditions"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/loadtest/fault"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/natsserver"
)

// shardLabel is Flux's sharding label: each shard's selector is shardLabel=<shard>.
const shardLabel = "sharding.fluxcd.io/key"

const (
	tenantsPerShard = 5
	objects         = 3
	// convergeTimeout bounds every wait; reaching it is a failure (a KCLRun applied by
	// no shard), not a speed measurement.
	convergeTimeout = 2 * time.Minute
	// heldBack is how long the killed shard's KCLRuns must stay at their old revision
	// after the other shard converged.
	heldBack  = 2 * time.Second
	stopGrace = 10 * time.Second
)

// shard is one controller instance: its watcher and journaled applier, and its KCLRuns.
type shard struct {
	name    string
	journal string
	applier *fault.Process
	watcher *fault.Process
	tenants []*tenant
}

// tenant is the KCLRun "app" in its own namespace, on the GitRepository "app".
type tenant struct {
	ns     string
	seq    int
	source client.Object
}

func (tn *tenant) key() string { return tn.ns + "/app" }

// Two shards on one NATS: each applies only its KCLRuns (its journal holds no other),
// and with s1's applier killed a new revision of every KCLRun is applied in s2 while s1's
// stay at the old one, until s1's applier is back.
func TestTwoShardsOnOneNATS(t *testing.T) {
	if suite.Skip != "" {
		t.Skip(suite.Skip)
	}
	g := NewWithT(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*convergeTimeout)
	defer cancel()
	logDir, err := os.MkdirTemp("", "fkc-shards-")
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("service logs and the reconcile journals are kept in %s", logDir)
			return
		}
		_ = os.RemoveAll(logDir)
	})
	nats := natsserver.StartT(t)
	artifacts := artifactserver.StartT(t)

	// One compiler and one resolver serve both shards: they hold no shard state.
	compilerAddr, resolverAddr := freeAddr(t), freeAddr(t)
	start(ctx, t, process(t, logDir, "compiler", "compiler", []string{
		"--grpc-addr=" + compilerAddr, "--metrics-addr=", "--health-addr=",
		"--artifact-cache-dir=" + filepath.Join(logDir, "compiler-cache"),
	}, fault.PortReady(compilerAddr)))
	start(ctx, t, process(t, logDir, "resolver", "resolver", []string{
		"--grpc-addr=" + resolverAddr, "--metrics-addr=", "--health-addr=",
		"--artifact-cache-dir=" + filepath.Join(logDir, "resolver-cache"),
	}, fault.PortReady(resolverAddr)))

	shards := []*shard{{name: "s1"}, {name: "s2"}}
	for _, sh := range shards {
		sh.journal = filepath.Join(logDir, sh.name+".journal")
		flags := []string{"--nats-url=" + nats.URL(), "--shard=" + sh.name, "--watch-label-selector=" + shardLabel + "=" + sh.name}
		health := freeAddr(t)
		sh.applier = process(t, logDir, sh.name+"-applier", "journaled-applier", append([]string{
			"--compiler-addr=" + compilerAddr, "--resolver-addr=" + resolverAddr,
			"--metrics-addr=", "--health-addr=" + health,
			"--instance-name=" + sh.name + "-applier",
			"--lease-ttl=6s", "--max-retry-backoff=5s",
			"--journal=" + sh.journal,
		}, flags...), fault.HTTPReady("http://"+health+"/readyz"))
		start(ctx, t, sh.applier)
		health = freeAddr(t)
		sh.watcher = process(t, logDir, sh.name+"-watcher", "watcher", append([]string{
			"--metrics-addr=0", "--health-addr=" + health,
		}, flags...), fault.HTTPReady("http://"+health+"/readyz"))
		start(ctx, t, sh.watcher)
	}

	began := time.Now()
	for _, sh := range shards {
		for range tenantsPerShard {
			sh.tenants = append(sh.tenants, newTenant(ctx, t, artifacts, sh.name))
		}
	}
	for _, sh := range shards {
		waitApplied(ctx, t, sh)
	}
	t.Logf("%d KCLRuns in two shards Ready and applied %s after they were created", 2*tenantsPerShard, time.Since(began).Round(time.Millisecond))
	for _, sh := range shards {
		checkJournal(t, sh)
	}

	// s1's applier dies while idle: its shard's requests wait in its own stream.
	s1, s2 := shards[0], shards[1]
	pid, err := s1.applier.Kill()
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(fault.RecordKill(s1.journal, pid)).To(Succeed())
	old := map[*tenant]string{}
	for _, tn := range s1.tenants {
		old[tn] = revision(tn.seq)
	}
	began = time.Now()
	for _, sh := range shards {
		for _, tn := range sh.tenants {
			g.Expect(publish(ctx, artifacts, tn)).To(Succeed())
		}
	}
	waitApplied(ctx, t, s2)
	t.Logf("with %s's applier killed, %s applied the new revision of its %d KCLRuns in %s", s1.name, s2.name, len(s2.tenants), time.Since(began).Round(time.Millisecond))
	g.Consistently(func() error {
		for _, tn := range s1.tenants {
			if err := appliedAt(ctx, tn, old[tn]); err != nil {
				return err
			}
		}
		return nil
	}).WithTimeout(heldBack).WithPolling(200*time.Millisecond).Should(Succeed(), "%s's KCLRuns must stay at the old revision while its applier is down", s1.name)

	restarted := time.Now()
	start(ctx, t, s1.applier)
	waitApplied(ctx, t, s1)
	t.Logf("%s's applier restarted: its %d KCLRuns applied the new revision %s later", s1.name, len(s1.tenants), time.Since(restarted).Round(time.Millisecond))
	for _, sh := range shards {
		checkJournal(t, sh)
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	addr, err := fault.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	return addr
}

// process prepares a service logging to <logDir>/<name>.log, stopped at the test's end.
func process(t *testing.T, logDir, name, binary string, args []string, ready func(context.Context) error) *fault.Process {
	t.Helper()
	log, err := os.OpenFile(filepath.Join(logDir, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	p := &fault.Process{
		Name: name, Path: filepath.Join(suite.Bin, binary), Args: args,
		Env: []string{"KUBECONFIG=" + suite.Env.Kubeconfig()}, Log: log, Ready: ready,
	}
	t.Cleanup(func() {
		if p.Running() {
			_ = p.Stop(stopGrace)
		}
		_ = log.Close()
	})
	return p
}

func start(ctx context.Context, t *testing.T, p *fault.Process) {
	t.Helper()
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
}

func revision(seq int) string { return fmt.Sprintf("main@sha1:%040d", seq) }

// program renders objects ConfigMaps carrying the revision.
func program(revision string) map[string]string {
	return map[string]string{"main.k": fmt.Sprintf(`_rev = %q
items = [{
    apiVersion = "v1"
    kind = "ConfigMap"
    metadata = {name = "cm-${i}"}
    data = {rev = _rev}
} for i in range(%d)]
`, revision, objects)}
}

// newTenant creates a namespace, its source at revision 1 and a KCLRun labelled for shard.
func newTenant(ctx context.Context, t *testing.T, artifacts *artifactserver.Server, shardName string) *tenant {
	t.Helper()
	ns, err := suite.Env.CreateNamespace(ctx, "shards-"+shardName)
	if err != nil {
		t.Fatal(err)
	}
	tn := &tenant{ns: ns}
	if err := publish(ctx, artifacts, tn); err != nil {
		t.Fatal(err)
	}
	run := &v1alpha1.KCLRun{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "app", Labels: map[string]string{shardLabel: shardName}},
		Spec: v1alpha1.KCLRunSpec{
			SourceRef: v1alpha1.CrossNamespaceSourceReference{Kind: sourcev1.GitRepositoryKind, Name: "app"},
			// A long interval: only the new revision can explain a reconcile.
			Interval: metav1.Duration{Duration: time.Hour},
			Prune:    true,
		},
	}
	if err := suite.Env.Client.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	return tn
}

// publish serves the tenant's next revision and points its source at it.
func publish(ctx context.Context, artifacts *artifactserver.Server, tn *tenant) error {
	tn.seq++
	path := artifactserver.ArtifactPath(sourcev1.GitRepositoryKind, tn.ns, "app", fmt.Sprintf("rev-%d.tar.gz", tn.seq))
	artifact, err := artifacts.PublishFiles(path, program(revision(tn.seq)), revision(tn.seq))
	if err != nil {
		return err
	}
	if tn.source == nil {
		tn.source, err = artifactserver.CreateSource(ctx, suite.Env.Client, sourcev1.GitRepositoryKind, tn.ns, "app", artifact)
		return err
	}
	if err := suite.Env.Client.Get(ctx, client.ObjectKeyFromObject(tn.source), tn.source); err != nil {
		return err
	}
	return artifactserver.SetArtifact(ctx, suite.Env.Client, tn.source, artifact)
}

// waitApplied waits until every KCLRun of sh applied its tenant's latest revision.
func waitApplied(ctx context.Context, t *testing.T, sh *shard) {
	t.Helper()
	NewWithT(t).Eventually(func() error {
		for _, tn := range sh.tenants {
			if err := appliedAt(ctx, tn, revision(tn.seq)); err != nil {
				return err
			}
		}
		return nil
	}).WithTimeout(convergeTimeout).WithPolling(100*time.Millisecond).Should(Succeed(), "shard %s", sh.name)
}

// appliedAt reports why the tenant's KCLRun is not Ready with revision applied and
// every ConfigMap at it.
func appliedAt(ctx context.Context, tn *tenant, rev string) error {
	c := suite.Env.Client
	run := &v1alpha1.KCLRun{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: tn.ns, Name: "app"}, run); err != nil {
		return err
	}
	if !conditions.IsTrue(run, meta.ReadyCondition) || run.Status.ObservedGeneration != run.Generation {
		return fmt.Errorf("%s not Ready: %s", tn.key(), conditions.GetMessage(run, meta.ReadyCondition))
	}
	if run.Status.LastAppliedRevision != rev {
		return fmt.Errorf("%s applied %s, want %s", tn.key(), run.Status.LastAppliedRevision, rev)
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
		if cm.Data["rev"] != rev {
			return fmt.Errorf("%s: ConfigMap %s at %s, want %s", tn.key(), cm.Name, cm.Data["rev"], rev)
		}
		n++
	}
	if n != objects {
		return fmt.Errorf("%s: %d ConfigMaps, want %d", tn.key(), n, objects)
	}
	return nil
}

// checkJournal fails the test unless sh's applier reconciled every KCLRun of sh, none of
// another shard, and never one twice at once.
func checkJournal(t *testing.T, sh *shard) {
	t.Helper()
	sum, err := fault.ReadJournal(sh.journal)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s journal: %s", sh.name, sum)
	own := map[string]bool{}
	for _, tn := range sh.tenants {
		own[tn.key()] = true
		if sum.Reconciles[tn.key()] == 0 {
			t.Errorf("%s's applier never reconciled its KCLRun %s", sh.name, tn.key())
		}
	}
	for key := range sum.Reconciles {
		if !own[key] {
			t.Errorf("%s's applier reconciled %s, a KCLRun of another shard", sh.name, key)
		}
	}
	for _, o := range sum.Overlaps {
		t.Errorf("overlapping reconciles: %s", o)
	}
}
