// Package driver is the load driver: it prepares N tenants on an apiserver (a namespace, a
// GitRepository whose artifact the in-process artifact server serves, an ImagePolicy and a
// KCLRun each), runs flux-kcl-controller against them and measures first sync, image-policy
// and source latency, a steady-state window and peak memory; side by side, the same N apps
// as plain-YAML Kustomizations reconciled by Flux's kustomize-controller; and compile
// throughput with 1, 2 and 4 compiler workers. Run returns a report.Report.
//
// With no kubeconfig the driver starts a fresh local apiserver (test/harness/kube) for
// each size, so sizes do not see each other's objects.
package driver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/kcl-lang/flux-kcl-controller/loadtest/report"
	"github.com/kcl-lang/flux-kcl-controller/loadtest/tenant"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/kube"
)

// Options configure a run.
type Options struct {
	// Sizes are the tenant counts, each run on its own apiserver (default 100, 500, 1000).
	Sizes []int
	// Kubeconfig points at an existing cluster instead of a local apiserver; then Sizes
	// must hold one size.
	Kubeconfig string
	// Mode runs flux-kcl-controller in-process, all-in-one or split (see the Mode constants).
	Mode string
	// BinDir holds flux-kcl-controller, watcher, resolver, compiler and applier (make build).
	BinDir string
	// ControllerArgs are extra flags for the all-in-one process.
	ControllerArgs []string

	// KustomizeController is the kustomize-controller binary (hack/loadtest/build.sh); empty
	// skips the reference side.
	KustomizeController string
	// KustomizeCRDs is a folder with the Kustomization CRD, installed when the reference runs.
	KustomizeCRDs string

	// PolicyChanges is how many ImagePolicies are moved one after the other (M).
	PolicyChanges int
	// SourceChanges is how many sources get a new artifact revision one after the other.
	SourceChanges int
	// Burst is how many KCLRuns one namespace changes at once beside a quiet
	// tenant's single change (fair turns); 0 skips the scenario.
	Burst int
	// BurstRounds is how many bursts are measured, one quiet change each.
	BurstRounds int
	// Rollout gives every tenant's program a second container following one
	// shared ImagePolicy, which an ImageRollout stages over the KCLRuns by
	// label (1 % canary, 9 % early, the rest; bake 0) and which exists
	// through every KCL first sync; the first round then elects a new image
	// and follows the waves (report.Rollout).
	Rollout bool
	// NoService makes every tenant's program render no Service, so that the
	// apiserver's ClusterIP allocator (a scan of every IPAddress per Service
	// create) weighs on neither side.
	NoService bool
	// SteadyWindow is the quiet window measured; 0 skips it.
	SteadyWindow time.Duration

	// ScaleOutWorkers are the compiler worker counts compared (empty skips it).
	ScaleOutWorkers []int
	// ScaleOutCompiles is how many distinct programs each worker count compiles per round.
	ScaleOutCompiles int
	// ScaleOutRounds is how many turns each worker count takes; the report gives medians.
	ScaleOutRounds int
	// ScaleOutInProcess serves the compiler workers inside the driver instead of bin/compiler
	// (the smoke test: no binaries needed).
	ScaleOutInProcess bool
	// ScaleOutIsolated repeats the scale-out with isolated units: each worker in
	// a process of its own, fed by its own client and artifact server.
	ScaleOutIsolated bool
	// WorkerGOMAXPROCS limits each compiler process to this many threads running Go code,
	// as a one-CPU pod would; 0 leaves the default.
	WorkerGOMAXPROCS int

	// Faults are fault scenarios run after the measurements (FaultArtifactServer,
	// FaultNATS, FaultAPIServer, FaultJetStreamCluster); each changes FaultChanges sources during an outage of
	// FaultOutage and reports the recovery time.
	Faults       []string
	FaultOutage  time.Duration
	FaultChanges int

	// FirstSyncRounds repeats the first sync of both sides (each round on a fresh
	// apiserver, the KCL side first) and reports the medians: on a shared 2-core
	// machine one round's time swings by a third. Only the first round runs the
	// other scenarios. It needs a driver-started apiserver.
	FirstSyncRounds int

	// BadTenants is how many broken tenants (every kind in turn) the bad-input
	// scenario puts among the N healthy ones on a fresh apiserver; -1 picks 5%
	// of N (at least one of each kind), 0 skips the scenario.
	BadTenants int
	// BadKinds limits the broken inputs to these kinds (names as in the report); empty is all.
	BadKinds []string

	// SyncTimeout bounds a first sync; 0 scales it with the runners
	// (syncTimeoutFor). ChangeTimeout bounds one change.
	SyncTimeout   time.Duration
	ChangeTimeout time.Duration

	// HeapProfile runs the controller with --enable-pprof and saves each
	// process's heap profile after the first sync and after the steady window
	// into OutDir/profiles/ (what grows with the KCLRuns).
	HeapProfile bool

	// CPUProfile writes a CPU profile of the driver's process during each KCL first sync and
	// each scale-out round into OutDir (useful in in-process mode and with ScaleOutInProcess,
	// where the controller or the workers run inside it).
	CPUProfile bool

	// OutDir receives report.json, the SVG charts and logs/.
	OutDir string
	// Logf reports progress; nil is silent.
	Logf func(format string, args ...any)
}

// DefaultOptions are the full table's settings.
func DefaultOptions() Options {
	return Options{
		Sizes:            []int{100, 500, 1000},
		Mode:             ModeAllInOne,
		BinDir:           "bin",
		PolicyChanges:    100,
		SourceChanges:    50,
		Burst:            1000,
		BurstRounds:      10,
		SteadyWindow:     10 * time.Minute,
		ScaleOutWorkers:  []int{1, 2, 4},
		ScaleOutCompiles: 1000,
		ScaleOutRounds:   5,
		ScaleOutIsolated: true,
		WorkerGOMAXPROCS: 1,
		Faults:           []string{FaultArtifactServer, FaultNATS, FaultAPIServer},
		FaultOutage:      10 * time.Second,
		FaultChanges:     10,
		FirstSyncRounds:  3,
		BadTenants:       -1,
		ChangeTimeout:    time.Minute,
		OutDir:           "loadtest/out",
	}
}

type driver struct {
	opts      Options
	logDir    string
	artifacts *artifactserver.Server
}

func (d *driver) logf(format string, args ...any) {
	if d.opts.Logf != nil {
		d.opts.Logf(format, args...)
	}
}

// Run runs every scenario and writes the report into OutDir.
func Run(ctx context.Context, opts Options) (*report.Report, error) {
	opts.Faults = slices.DeleteFunc(opts.Faults, func(f string) bool { return f == "" || f == "none" })
	opts.Sizes = slices.DeleteFunc(opts.Sizes, func(n int) bool { return n < 1 })
	opts.ScaleOutWorkers = slices.DeleteFunc(opts.ScaleOutWorkers, func(n int) bool { return n < 1 }) // 0 skips
	if len(opts.Sizes) == 0 && len(opts.ScaleOutWorkers) == 0 {
		return nil, fmt.Errorf("nothing to run: no sizes and no scale-out")
	}
	if opts.Kubeconfig != "" && len(opts.Sizes) > 1 {
		return nil, fmt.Errorf("an existing cluster runs one size at a time, got %v", opts.Sizes)
	}
	if opts.ScaleOutRounds < 1 {
		opts.ScaleOutRounds = 1
	}
	if opts.FirstSyncRounds < 1 || opts.Kubeconfig != "" {
		opts.FirstSyncRounds = 1 // an existing cluster cannot be made fresh again
	}
	if opts.Rollout && slices.ContainsFunc(opts.Sizes, func(n int) bool { return n < minRolloutSize }) {
		return nil, fmt.Errorf("the rollout scenario needs at least %d KCLRuns, one a stage", minRolloutSize)
	}
	if opts.ChangeTimeout == 0 {
		opts.ChangeTimeout = time.Minute
	}
	d := &driver{opts: opts, logDir: filepath.Join(opts.OutDir, "logs")}
	if err := os.MkdirAll(d.logDir, 0o755); err != nil {
		return nil, fmt.Errorf("creating %s: %w", d.logDir, err)
	}
	r := &report.Report{Started: time.Now(), Mode: opts.Mode, CPUs: runtime.NumCPU()}
	for _, n := range opts.Sizes {
		size, err := d.runSize(ctx, n)
		if size != nil {
			r.Sizes = append(r.Sizes, *size)
		}
		if err != nil {
			_ = r.Write(opts.OutDir) // keep what was measured
			return r, fmt.Errorf("N=%d: %w", n, err)
		}
		d.logf("%s", size.Summary())
	}
	if len(opts.ScaleOutWorkers) > 0 {
		so, err := d.scaleOut(ctx)
		r.ScaleOut = so
		if err != nil {
			_ = r.Write(opts.OutDir)
			return r, fmt.Errorf("scale-out: %w", err)
		}
		if opts.ScaleOutIsolated {
			iso, err := d.scaleOutIsolated(ctx)
			r.ScaleOutIsolated = iso
			if err != nil {
				_ = r.Write(opts.OutDir)
				return r, fmt.Errorf("isolated scale-out: %w", err)
			}
		}
	}
	if r.Mode == ModeInProcess {
		r.Notes = append(r.Notes, "in-process mode: CPU and memory of flux-kcl-controller include the driver's")
	}
	return r, r.Write(opts.OutDir)
}

// cluster is the apiserver a size runs on.
type cluster struct {
	cfg        *rest.Config
	kubeconfig string
	client     client.Client
	// env is the apiserver the driver started (nil for an existing cluster).
	env *kube.Env
	// apiserverPIDs are kube-apiserver and etcd when the driver started them.
	apiserverPIDs map[string]int
	stop          func()
}

func (d *driver) startCluster(ctx context.Context) (*cluster, error) {
	cl := &cluster{stop: func() {}}
	if d.opts.Kubeconfig != "" {
		cfg, err := clientcmd.BuildConfigFromFlags("", d.opts.Kubeconfig)
		if err != nil {
			return nil, fmt.Errorf("loading %s: %w", d.opts.Kubeconfig, err)
		}
		cl.cfg, cl.kubeconfig = cfg, d.opts.Kubeconfig
	} else {
		env, err := kube.Start(ctx)
		if err != nil {
			return nil, err
		}
		cl.env, cl.cfg, cl.kubeconfig, cl.stop = env, env.Config, env.Kubeconfig(), func() { _ = env.Stop() }
	}
	// The driver must not be the bottleneck: no client-side throttling.
	cl.cfg = rest.CopyConfig(cl.cfg)
	cl.cfg.QPS, cl.cfg.Burst = 2000, 4000
	var err error
	if cl.client, err = client.New(cl.cfg, client.Options{Scheme: kube.Scheme()}); err != nil {
		cl.stop()
		return nil, fmt.Errorf("creating client: %w", err)
	}
	if d.opts.KustomizeController != "" {
		if _, err := envtest.InstallCRDs(cl.cfg, envtest.CRDInstallOptions{Paths: []string{d.opts.KustomizeCRDs}, ErrorIfPathMissing: true}); err != nil {
			cl.stop()
			return nil, fmt.Errorf("installing the Kustomization CRD from %s: %w", d.opts.KustomizeCRDs, err)
		}
	}
	cl.apiserverPIDs = apiserverPIDs()
	return cl, nil
}

// syncTimeoutFor bounds the first sync of n runners: SyncTimeout when set,
// else 20 minutes or 1.2 s per runner, whichever is longer (kustomize-controller
// took 123 s for 1,000 here; the bound is ten times that).
func (d *driver) syncTimeoutFor(n int) time.Duration {
	if d.opts.SyncTimeout > 0 {
		return d.opts.SyncTimeout
	}
	return max(20*time.Minute, time.Duration(n)*1200*time.Millisecond)
}

// tenants lists a side's tenants of a size.
func tenants(side tenant.Side, n int) []tenant.Tenant {
	ts := make([]tenant.Tenant, n)
	for i := range ts {
		ts[i] = tenant.Tenant{Index: i + 1, Side: side}
	}
	return ts
}
