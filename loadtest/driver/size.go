package driver

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"time"

	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/loadtest/procstat"
	"github.com/kcl-lang/flux-kcl-controller/loadtest/report"
	"github.com/kcl-lang/flux-kcl-controller/loadtest/tenant"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/imagepolicy"
)

// runSize measures one size: the KCL side first, then the reference, each on
// a fresh cluster of its own; further first-sync rounds follow the same way.
func (d *driver) runSize(ctx context.Context, n int) (*report.Size, error) {
	size := &report.Size{N: n}
	// The bad-input runs take turns with the clean rounds, so that the
	// machine's drift weighs on both alike.
	for round := 1; round <= d.opts.FirstSyncRounds; round++ {
		if err := d.runRound(ctx, size, round); err != nil {
			return size, err
		}
		if err := d.runBadInput(ctx, size); err != nil {
			return size, fmt.Errorf("bad input: %w", err)
		}
	}
	size.Summarize()
	return size, nil
}

// runRound is one round of a size: round 1 runs every scenario, the others
// only the two first syncs.
func (d *driver) runRound(ctx context.Context, size *report.Size, round int) error {
	n := size.N
	full := round == 1
	if d.opts.FirstSyncRounds > 1 {
		d.logf("N=%d: round %d of %d", n, round, d.opts.FirstSyncRounds)
	}
	kcl, err := d.onFreshCluster(ctx, n, "flux-kcl-controller", func(cl *cluster) (report.FirstSync, error) {
		return d.runKCL(ctx, cl, size, full)
	})
	if err != nil {
		return err
	}
	var kust *report.FirstSync
	if d.opts.KustomizeController != "" {
		// A cluster of its own: the KCL side's objects would weigh on this
		// one's apiserver (each Service create scans every ClusterIP).
		fs, err := d.onFreshCluster(ctx, n, "kustomize-controller", func(cl *cluster) (report.FirstSync, error) {
			return d.runKustomize(ctx, cl, size, full)
		})
		if err != nil {
			return err
		}
		kust = &fs
	}
	size.Rounds = append(size.Rounds, report.NewRound(kcl, kust))
	return nil
}

// onFreshCluster runs one side of a round on its own cluster (fresh unless
// --kubeconfig) and artifact server, stopped when it returns.
func (d *driver) onFreshCluster(ctx context.Context, n int, side string, run func(*cluster) (report.FirstSync, error)) (report.FirstSync, error) {
	d.logf("N=%d: preparing the apiserver for %s", n, side)
	cl, stop, err := d.startClusterAndArtifacts(ctx)
	if err != nil {
		return report.FirstSync{}, err
	}
	defer stop()
	return run(cl)
}

// startClusterAndArtifacts starts what a round runs on: a cluster (fresh
// unless --kubeconfig) and an artifact server in d.artifacts; stop ends both.
func (d *driver) startClusterAndArtifacts(ctx context.Context) (*cluster, func(), error) {
	cl, err := d.startCluster(ctx)
	if err != nil {
		return nil, nil, err
	}
	if d.artifacts, err = artifactserver.Start(); err != nil {
		cl.stop()
		return nil, nil, err
	}
	artifacts := d.artifacts
	return cl, func() { artifacts.Close(); cl.stop() }, nil
}

// runKCL runs the KCL side's first sync and, when full, the other scenarios
// (recorded in size).
func (d *driver) runKCL(ctx context.Context, cl *cluster, size *report.Size, full bool) (report.FirstSync, error) {
	n := size.N
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ts := d.sideTenants(tenant.KCL, n)
	d.logf("N=%d: preparing %d KCL tenants", n, n)
	if err := parallel(ctx, n, func(ctx context.Context, i int) error { return d.prepareTenant(ctx, cl.client, ts[i]) }); err != nil {
		return report.FirstSync{}, err
	}
	tracker := newReadyTracker(n)
	if err := watchRunners(ctx, cl.cfg, kclRunResource, tracker); err != nil {
		return report.FirstSync{}, err
	}
	var rollouts *rolloutTracker
	if d.opts.Rollout {
		d.logf("N=%d: creating the shared ImagePolicy and its ImageRollout (stages %v)", n, rolloutStages)
		if err := prepareRollout(ctx, cl.client); err != nil {
			return report.FirstSync{}, err
		}
		rollouts = newRolloutTracker(ts)
		if err := watchRollout(ctx, cl.cfg, rollouts); err != nil {
			return report.FirstSync{}, err
		}
	}
	d.logf("N=%d: starting flux-kcl-controller (%s)", n, d.opts.Mode)
	ctrl, err := d.startKCL(ctx, cl.cfg, cl.kubeconfig)
	if err != nil {
		return report.FirstSync{}, err
	}
	defer ctrl.stop()

	d.logf("N=%d: creating %d KCLRuns", n, n)
	stopProfile, err := d.startCPUProfile(fmt.Sprintf("cpu-kcl-first-sync-%d.pprof", n))
	if err != nil {
		return report.FirstSync{}, err
	}
	stopAPIProfile := d.startAPIServerProfile(ctx, cl, fmt.Sprintf("cpu-kube-apiserver-kcl-first-sync-%d.pprof", n))
	fs, err := d.firstSync(ctx, cl, ctrl, ts, tracker)
	firstSyncEnd := time.Now()
	stopAPIProfile()
	stopProfile()
	if err != nil {
		return fs, err
	}
	d.logf("N=%d: %d/%d KCLRuns Ready in %.1fs", n, fs.Ready, n, fs.Seconds)
	if fs.Ready < n {
		return fs, fmt.Errorf("only %d of %d KCLRuns became Ready within %s; see %s", fs.Ready, n, d.syncTimeoutFor(n), d.logDir)
	}
	if !full {
		return fs, nil
	}
	size.KCL = fs
	// The driver watches the applied objects only from here on: a watch of
	// every Deployment and ConfigMap during the first sync would cost the
	// apiserver work that the reference side's sync does not pay.
	images, revisions := newChangeWaiter(), newChangeWaiter()
	if err := watchObjects(ctx, cl.cfg, images, revisions); err != nil {
		return fs, err
	}
	d.saveMetrics(ctx, ctrl, fmt.Sprintf("after-first-sync-%d", n))
	d.saveHeapProfiles(ctx, ctrl, fmt.Sprintf("after-first-sync-%d", n))

	if size.Policy, err = d.policyLatency(ctx, cl.client, ts, images); err != nil {
		return fs, err
	}
	d.logf("N=%d: ImagePolicy → Deployment p50 %.0fms p99 %.0fms (%d missed)", n, size.Policy.P50*1000, size.Policy.P99*1000, size.Policy.Missed)
	if size.Source, err = d.sourceLatency(ctx, cl.client, ts, revisions); err != nil {
		return fs, err
	}
	d.logf("N=%d: new revision → ConfigMap p50 %.0fms p99 %.0fms (%d missed)", n, size.Source.P50*1000, size.Source.P99*1000, size.Source.Missed)
	if rollouts != nil {
		d.logf("N=%d: electing %s for the ImageRollout's %v KCLRuns", n, tenant.AgentImage(rolloutTag), rollouts.counts)
		size.Rollout, err = d.rollout(ctx, cl, ts, rollouts, images, firstSyncEnd)
		if err != nil {
			return fs, fmt.Errorf("rollout: %w", err)
		}
		ro := size.Rollout
		d.logf("N=%d: rollout converged=%v: canary applied p50 %.2fs p99 %.2fs, succeeded after %.1fs", n, ro.Converged, ro.CanaryApplied.P50, ro.CanaryApplied.P99, ro.SucceededSeconds)
	}
	if d.opts.Burst > 0 && d.opts.BurstRounds > 0 {
		if size.Burst, err = d.burst(ctx, cl.client, ts, images, revisions); err != nil {
			return fs, fmt.Errorf("burst: %w", err)
		}
		d.logf("N=%d: quiet change beside a burst of %d: p50 %.0fms p99 %.0fms (%d missed)", n, d.opts.Burst, size.Burst.Quiet.P50*1000, size.Burst.Quiet.P99*1000, size.Burst.Quiet.Missed)
	}
	if d.opts.SteadyWindow > 0 {
		d.logf("N=%d: steady state for %s", n, d.opts.SteadyWindow)
		if size.Steady, err = d.steady(ctx, cl, ctrl); err != nil {
			return fs, err
		}
		d.saveHeapProfiles(ctx, ctrl, fmt.Sprintf("after-steady-%d", n))
	}
	size.Memory = peaks(ctrl.pids, cl.apiserverPIDs)
	if len(d.opts.Faults) > 0 {
		if size.Faults, err = d.faults(ctx, cl, ctrl, ts, revisions); err != nil {
			return fs, err
		}
	}
	return fs, nil
}

// runKustomize runs the reference side's first sync; when full, its memory
// goes into size.
func (d *driver) runKustomize(ctx context.Context, cl *cluster, size *report.Size, full bool) (report.FirstSync, error) {
	n := size.N
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ts := d.sideTenants(tenant.Kustomize, n)
	d.logf("N=%d: preparing %d Kustomization tenants", n, n)
	if err := parallel(ctx, n, func(ctx context.Context, i int) error { return d.prepareTenant(ctx, cl.client, ts[i]) }); err != nil {
		return report.FirstSync{}, err
	}
	tracker := newReadyTracker(n)
	if err := watchRunners(ctx, cl.cfg, kustomizationResource, tracker); err != nil {
		return report.FirstSync{}, err
	}
	d.logf("N=%d: starting kustomize-controller", n)
	ctrl, err := d.startKustomizeController(ctx, cl.kubeconfig)
	if err != nil {
		return report.FirstSync{}, err
	}
	defer ctrl.stop()
	d.logf("N=%d: creating %d Kustomizations", n, n)
	fs, err := d.firstSync(ctx, cl, ctrl, ts, tracker)
	if err != nil {
		return fs, err
	}
	d.logf("N=%d: %d/%d Kustomizations Ready in %.1fs", n, fs.Ready, n, fs.Seconds)
	if full {
		d.saveMetrics(ctx, ctrl, fmt.Sprintf("after-first-sync-%d", n))
		size.Kustomize = &fs
		m := peaks(ctrl.pids, nil)["kustomize-controller"]
		size.KustomizeMemory = &m
	}
	if fs.Ready < n {
		return fs, fmt.Errorf("only %d of %d Kustomizations became Ready within %s; see %s", fs.Ready, n, d.syncTimeoutFor(n), d.logDir)
	}
	return fs, nil
}

// firstSync creates the runners as fast as the apiserver takes them and waits for all to be
// Ready (or SyncTimeout).
func (d *driver) firstSync(ctx context.Context, cl *cluster, ctrl *controller, ts []tenant.Tenant, tracker *readyTracker) (report.FirstSync, error) {
	before, err := apiserverRequests(ctx, cl)
	if err != nil {
		return report.FirstSync{}, err
	}
	pids := mergePIDs(ctrl.pids, cl.apiserverPIDs, map[string]int{"driver": os.Getpid()})
	cpuBefore := cpuByName(pids)
	tracker.begin()
	if err := parallel(ctx, len(ts), func(ctx context.Context, i int) error { return createRunner(ctx, cl.client, ts[i]) }); err != nil {
		return tracker.result(), err
	}
	select {
	case <-tracker.allDone:
	case <-time.After(d.syncTimeoutFor(len(ts))):
	case <-ctx.Done():
		return tracker.result(), ctx.Err()
	}
	fs := tracker.result()
	after, err := apiserverRequests(ctx, cl)
	if err != nil {
		return fs, err
	}
	fs.CPUSeconds = map[string]float64{}
	for name, cpu := range cpuByName(pids) {
		fs.CPUSeconds[name] = (cpu - cpuBefore[name]).Seconds()
	}
	fs.Requests = map[string]float64{}
	for k, v := range after {
		if delta := v - before[k]; delta > 0 {
			fs.Requests[k] = delta
		}
	}
	return fs, nil
}

// apiserverRequests reads apiserver_request_total as "VERB resource" → count, leases and
// events left out (the apiserver's own heartbeats; events are counted by the services).
func apiserverRequests(ctx context.Context, cl *cluster) (map[string]float64, error) {
	fams, err := apiserverMetrics(ctx, cl)
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	fam := fams["apiserver_request_total"]
	if fam == nil {
		return out, nil
	}
	for _, m := range fam.GetMetric() {
		var verb, resource string
		dryRun := false
		for _, l := range m.GetLabel() {
			switch l.GetName() {
			case "verb":
				verb = l.GetValue()
			case "resource":
				resource = l.GetValue()
			case "dry_run":
				dryRun = l.GetValue() != ""
			}
		}
		if dryRun {
			verb += report.DryRunSuffix // changes nothing: not a write
		}
		if resource == "leases" {
			continue
		}
		out[verb+" "+resource] += m.GetCounter().GetValue()
	}
	return out, nil
}

func apiserverMetrics(ctx context.Context, cl *cluster) (procstat.Families, error) {
	cs, err := kubernetes.NewForConfig(cl.cfg)
	if err != nil {
		return nil, fmt.Errorf("clientset: %w", err)
	}
	raw, err := cs.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the apiserver's metrics: %w", err)
	}
	return procstat.Parse(bytes.NewReader(raw))
}

// saveMetrics keeps each controller process's metrics text in OutDir/metrics/ for later
// analysis (reconcile and compile duration histograms); failures only lose the file.
func (d *driver) saveMetrics(ctx context.Context, ctrl *controller, label string) {
	dir := filepath.Join(d.opts.OutDir, "metrics")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	for name, url := range ctrl.metrics {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			continue
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			continue
		}
		data, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err == nil {
			_ = os.WriteFile(filepath.Join(dir, name+"-"+label+".prom"), data, 0o644)
		}
	}
}

// saveHeapProfiles keeps, with --heap-profile, each controller process's
// heap profile in OutDir/profiles/; failures only lose the file.
func (d *driver) saveHeapProfiles(ctx context.Context, ctrl *controller, label string) {
	if !d.opts.HeapProfile {
		return
	}
	dir := filepath.Join(d.opts.OutDir, "profiles")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	for name, url := range ctrl.metrics {
		url = strings.TrimSuffix(url, "/metrics") + "/debug/pprof/heap"
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			continue
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			d.logf("heap profile of %s: %v", name, err)
			continue
		}
		data, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err == nil && resp.StatusCode == http.StatusOK {
			_ = os.WriteFile(filepath.Join(dir, "heap-"+name+"-"+label+".pprof"), data, 0o644)
		}
	}
}

// startCPUProfile profiles the driver's process (with the controller inside it in
// in-process mode) into OutDir when Options.CPUProfile is set.
func (d *driver) startCPUProfile(name string) (stop func(), err error) {
	if !d.opts.CPUProfile {
		return func() {}, nil
	}
	f, err := os.Create(filepath.Join(d.opts.OutDir, name))
	if err != nil {
		return nil, fmt.Errorf("creating CPU profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("starting CPU profile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// apiserverProfileSeconds bounds the kube-apiserver profile of a first sync;
// its /debug/pprof/profile needs the length up front.
const apiserverProfileSeconds = 30

// startAPIServerProfile fetches, with --cpu-profile, a CPU profile of the
// kube-apiserver covering the first apiserverProfileSeconds of what follows:
// the apiserver does most of the work of a first sync, and the profile shows
// which requests cost it. stop waits for the profile.
func (d *driver) startAPIServerProfile(ctx context.Context, cl *cluster, name string) (stop func()) {
	if !d.opts.CPUProfile {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		kube, err := kubernetes.NewForConfig(cl.cfg)
		if err != nil {
			d.logf("apiserver profile: %v", err)
			return
		}
		raw, err := kube.CoreV1().RESTClient().Get().AbsPath("/debug/pprof/profile").
			Param("seconds", fmt.Sprint(apiserverProfileSeconds)).Timeout(2 * apiserverProfileSeconds * time.Second).DoRaw(ctx)
		if err == nil {
			err = os.WriteFile(filepath.Join(d.opts.OutDir, name), raw, 0o644)
		}
		if err != nil {
			d.logf("apiserver profile: %v", err)
		}
	}()
	return func() { <-done }
}

// spread picks m of n tenants evenly, starting at offset.
func spread(ts []tenant.Tenant, m int, offset float64) []tenant.Tenant {
	m = min(m, len(ts))
	out := make([]tenant.Tenant, 0, m)
	for i := range m {
		out = append(out, ts[int((float64(i)+offset)*float64(len(ts))/float64(m))%len(ts)])
	}
	return out
}

// policyLatency moves M ImagePolicies one after the other and measures, for each, from the
// status write to the Deployment carrying the new image (seen by an informer).
func (d *driver) policyLatency(ctx context.Context, c client.Client, ts []tenant.Tenant, images *changeWaiter) (report.Latency, error) {
	var samples []float64
	missed := 0
	for k, t := range spread(ts, d.opts.PolicyChanges, 0) {
		p := &imagev1.ImagePolicy{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: t.Namespace(), Name: tenant.Name}, p); err != nil {
			return report.Latency{}, fmt.Errorf("reading ImagePolicy of %s: %w", t.Namespace(), err)
		}
		tag := fmt.Sprintf("1.1.%d", k)
		seen := images.expect(t.Namespace(), t.Image(tag))
		start := time.Now()
		if err := imagepolicy.SetLatest(ctx, c, p, imagev1.ImageRef{Name: t.ImageRepository(), Tag: tag}); err != nil {
			return report.Latency{}, err
		}
		lat, ok, err := d.await(ctx, seen, start)
		if err != nil {
			return report.Latency{}, err
		}
		if !ok {
			images.cancel(t.Namespace())
			missed++
			continue
		}
		if lat > slowChange {
			// Named, so that the controller's log can be read for this one.
			d.logf("policy change %d of %s took %.2fs (status written at %s)", k, t.Namespace(), lat, start.UTC().Format(time.RFC3339Nano))
		}
		samples = append(samples, lat)
	}
	return report.NewLatency(samples, missed), nil
}

// slowChange is the latency past which the driver names the change in its log.
const slowChange = 1.0 // seconds

// sourceLatency gives S sources a new artifact revision one after the other and measures from
// the source's status write to the ConfigMap carrying the new revision.
func (d *driver) sourceLatency(ctx context.Context, c client.Client, ts []tenant.Tenant, revisions *changeWaiter) (report.Latency, error) {
	var samples []float64
	missed := 0
	for _, t := range spread(ts, d.opts.SourceChanges, 0.5) {
		a, err := d.publish(ctx, t, "r2")
		if err != nil {
			return report.Latency{}, err
		}
		src := &sourcev1.GitRepository{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: t.Namespace(), Name: tenant.Name}, src); err != nil {
			return report.Latency{}, fmt.Errorf("reading GitRepository of %s: %w", t.Namespace(), err)
		}
		seen := revisions.expect(t.Namespace(), "r2")
		start := time.Now()
		if err := artifactserver.SetArtifact(ctx, c, src, a); err != nil {
			return report.Latency{}, err
		}
		lat, ok, err := d.await(ctx, seen, start)
		if err != nil {
			return report.Latency{}, err
		}
		if !ok {
			revisions.cancel(t.Namespace())
			missed++
			continue
		}
		samples = append(samples, lat)
	}
	return report.NewLatency(samples, missed), nil
}

// await waits for a change up to ChangeTimeout; ok is false when it did not come.
func (d *driver) await(ctx context.Context, seen <-chan time.Time, start time.Time) (seconds float64, ok bool, err error) {
	select {
	case at := <-seen:
		return at.Sub(start).Seconds(), true, nil
	case <-time.After(d.opts.ChangeTimeout):
		return 0, false, nil
	case <-ctx.Done():
		return 0, false, ctx.Err()
	}
}

// sample is one reading of the counters the steady state compares.
type sample struct {
	at        time.Time
	compiles  float64
	applied   float64
	objWrites float64
	dryRuns   float64
	byVerb    map[string]float64
	cpu       map[string]time.Duration
}

var writeVerbs = []string{"POST", "PUT", "PATCH", "DELETE", "APPLY", "CREATE", "UPDATE", "DELETECOLLECTION"}

func (d *driver) read(ctx context.Context, cl *cluster, ctrl *controller) (sample, error) {
	s := sample{at: time.Now(), byVerb: map[string]float64{}, cpu: map[string]time.Duration{}}
	for name, url := range ctrl.metrics {
		fams, err := procstat.Scrape(ctx, url)
		if err != nil {
			return s, fmt.Errorf("metrics of %s: %w", name, err)
		}
		s.compiles += fams.Sum("flux_kcl_compile_cache_total", nil)
		s.applied += fams.Sum("fkc_applier_reconciles_total", procstat.Label("result", "applied"))
	}
	fams, err := apiserverMetrics(ctx, cl)
	if err != nil {
		return s, err
	}
	tenantKinds := procstat.Label("resource", "deployments", "services", "configmaps", "kclruns")
	for _, verb := range writeVerbs {
		isVerb := procstat.Label("verb", verb)
		// Dry runs (the SSA manager's drift checks) change nothing: counted apart.
		if v := fams.Sum("apiserver_request_total", func(l map[string]string) bool {
			return isVerb(l) && l["dry_run"] == "" && l["resource"] != "leases" && l["resource"] != "events"
		}); v > 0 {
			s.byVerb[verb] = v
		}
		s.objWrites += fams.Sum("apiserver_request_total", func(l map[string]string) bool {
			return isVerb(l) && l["dry_run"] == "" && tenantKinds(l)
		})
		s.dryRuns += fams.Sum("apiserver_request_total", func(l map[string]string) bool {
			return isVerb(l) && l["dry_run"] != "" && tenantKinds(l)
		})
	}
	for name, pid := range mergePIDs(ctrl.pids, cl.apiserverPIDs) {
		if cpu, err := procstat.CPU(pid); err == nil {
			s.cpu[name] = cpu
		}
	}
	return s, nil
}

// steady measures a window in which nothing changes.
func (d *driver) steady(ctx context.Context, cl *cluster, ctrl *controller) (*report.Steady, error) {
	before, err := d.settle(ctx, cl, ctrl)
	if err != nil {
		return nil, err
	}
	select {
	case <-time.After(d.opts.SteadyWindow):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	after, err := d.read(ctx, cl, ctrl)
	if err != nil {
		return nil, err
	}
	minutes := after.at.Sub(before.at).Minutes()
	st := &report.Steady{
		WindowSeconds:         after.at.Sub(before.at).Seconds(),
		CompilesPerMinute:     (after.compiles - before.compiles) / minutes,
		AppliedPerMinute:      (after.applied - before.applied) / minutes,
		ObjectWritesPerMinute: (after.objWrites - before.objWrites) / minutes,
		DryRunsPerMinute:      (after.dryRuns - before.dryRuns) / minutes,
		WritesPerMinuteByVerb: map[string]float64{},
		CPUSecondsPerMinute:   map[string]float64{},
	}
	for verb, v := range after.byVerb {
		st.WritesPerMinuteByVerb[verb] = (v - before.byVerb[verb]) / minutes
	}
	for name, cpu := range after.cpu {
		st.CPUSecondsPerMinute[name] = (cpu - before.cpu[name]).Seconds() / minutes
	}
	return st, nil
}

// settle waits until the last scenario's trailing work is done: no reconcile applied and
// no object written between two readings a second apart (at most settleLimit), so the
// steady window does not count it.
func (d *driver) settle(ctx context.Context, cl *cluster, ctrl *controller) (sample, error) {
	const settleLimit = 30 * time.Second
	prev, err := d.read(ctx, cl, ctrl)
	if err != nil {
		return prev, err
	}
	for deadline := time.Now().Add(settleLimit); time.Now().Before(deadline); {
		select {
		case <-time.After(time.Second):
		case <-ctx.Done():
			return prev, ctx.Err()
		}
		cur, err := d.read(ctx, cl, ctrl)
		if err != nil {
			return cur, err
		}
		if cur.applied == prev.applied && cur.objWrites == prev.objWrites && cur.compiles == prev.compiles {
			return cur, nil
		}
		prev = cur
	}
	return prev, nil
}

func cpuByName(pids map[string]int) map[string]time.Duration {
	out := map[string]time.Duration{}
	for name, pid := range pids {
		if cpu, err := procstat.CPU(pid); err == nil {
			out[name] = cpu
		}
	}
	return out
}

func mergePIDs(maps ...map[string]int) map[string]int {
	out := map[string]int{}
	for _, m := range maps {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// peaks reads VmHWM of each process.
func peaks(pidMaps ...map[string]int) map[string]procstat.Memory {
	out := map[string]procstat.Memory{}
	for name, pid := range mergePIDs(pidMaps...) {
		if m, err := procstat.ReadMemory(pid); err == nil {
			out[name] = m
		}
	}
	return out
}

// apiserverPIDs finds the kube-apiserver and etcd the harness started below this process.
func apiserverPIDs() map[string]int {
	pids, err := procstat.Descendants(os.Getpid(), "kube-apiserver", "etcd")
	if err != nil {
		return nil
	}
	return pids
}
