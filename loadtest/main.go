// Command loadtest is the load driver (make loadtest): it runs flux-kcl-controller against N
// tenants on a local apiserver, side by side with Flux's kustomize-controller, prints a table
// and writes report.json, first-sync.svg and latency.svg. The work is in loadtest/driver.
//
//	go run ./loadtest --kustomize-controller="$(hack/loadtest/build.sh)" \
//	  --kustomize-crds="$(hack/loadtest/crds.sh)"
//
// LOADTEST_N=20 runs a single size.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"github.com/spf13/pflag"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/kcl-lang/flux-kcl-controller/loadtest/driver"
)

func main() {
	if driver.IsCompileUnit() {
		os.Exit(driver.RunCompileUnit())
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(1)
	}
}

func run() error {
	opts := driver.DefaultOptions()
	fs := pflag.CommandLine
	fs.IntSliceVar(&opts.Sizes, "sizes", opts.Sizes, "Tenant counts, each on a fresh local apiserver; 0 runs none (LOADTEST_N overrides with one size).")
	fs.StringVar(&opts.Kubeconfig, "kubeconfig", opts.Kubeconfig, "Run against this cluster instead of a local apiserver (one size only).")
	fs.StringVar(&opts.Mode, "mode", opts.Mode, "How flux-kcl-controller runs: all-in-one (one process), split (four processes and NATS) or in-process.")
	fs.StringVar(&opts.BinDir, "bin-dir", opts.BinDir, "Folder of the make build binaries.")
	fs.StringSliceVar(&opts.ControllerArgs, "controller-arg", opts.ControllerArgs, "Extra flag for the all-in-one process (repeatable).")
	fs.StringVar(&opts.KustomizeController, "kustomize-controller", opts.KustomizeController, "kustomize-controller binary (hack/loadtest/build.sh); empty skips the reference side.")
	fs.StringVar(&opts.KustomizeCRDs, "kustomize-crds", opts.KustomizeCRDs, "Folder with the Kustomization CRD (hack/loadtest/crds.sh).")
	fs.IntVar(&opts.PolicyChanges, "policy-changes", opts.PolicyChanges, "ImagePolicies moved one after the other.")
	fs.IntVar(&opts.SourceChanges, "source-changes", opts.SourceChanges, "Sources given a new revision one after the other.")
	fs.IntVar(&opts.Burst, "burst", opts.Burst, "KCLRuns one namespace changes at once (one shared source) beside a quiet tenant's one change; 0 skips the burst scenario.")
	fs.IntVar(&opts.BurstRounds, "burst-rounds", opts.BurstRounds, "Bursts measured, one quiet change each (p50/p99 over them).")
	fs.BoolVar(&opts.Rollout, "rollout", opts.Rollout, "ImageRollout scenario: every tenant's program also follows one shared ImagePolicy, which an ImageRollout (stages 1% canary, 9% early, the rest by KCLRun label, bake 0) governs through every KCL first sync; the first round elects a new image and measures the waves.")
	fs.BoolVar(&opts.NoService, "no-service", opts.NoService, "Tenants render no Service (a ConfigMap and a Deployment): the cost without the apiserver's ClusterIP allocator.")
	fs.DurationVar(&opts.SteadyWindow, "steady-window", opts.SteadyWindow, "Quiet window measured; 0 skips it.")
	fs.IntSliceVar(&opts.ScaleOutWorkers, "scaleout-workers", opts.ScaleOutWorkers, "Compiler worker counts compared; 0 skips the scale-out.")
	fs.IntVar(&opts.ScaleOutCompiles, "scaleout-compiles", opts.ScaleOutCompiles, "Distinct programs compiled per worker count and round.")
	fs.IntVar(&opts.ScaleOutRounds, "scaleout-rounds", opts.ScaleOutRounds, "Turns each worker count takes; the report gives the medians.")
	fs.BoolVar(&opts.ScaleOutInProcess, "scaleout-in-process", opts.ScaleOutInProcess, "Serve the scale-out compiler workers inside the driver (for --cpu-profile).")
	fs.BoolVar(&opts.ScaleOutIsolated, "scaleout-isolated", opts.ScaleOutIsolated, "Repeat the scale-out with isolated units: each worker in a process of its own with its own client and artifact server (the driver then shares no core with them).")
	fs.IntVar(&opts.WorkerGOMAXPROCS, "worker-gomaxprocs", opts.WorkerGOMAXPROCS, "GOMAXPROCS of each scale-out compiler process (a one-CPU pod); 0 leaves Go's default.")
	fs.StringSliceVar(&opts.Faults, "faults", opts.Faults, "Fault scenarios after the measurements: artifact-server-outage, nats-restart (split mode), apiserver-restart (a driver-started apiserver), jetstream-cluster (split mode on a three-node NATS cluster with two appliers and two compilers: the stream leader killed, then a follower, then both restarted); none skips them.")
	fs.DurationVar(&opts.FaultOutage, "fault-outage", opts.FaultOutage, "How long each fault lasts.")
	fs.IntVar(&opts.FaultChanges, "fault-changes", opts.FaultChanges, "Sources given a new revision during each fault.")
	fs.IntVar(&opts.FirstSyncRounds, "first-sync-rounds", opts.FirstSyncRounds, "First syncs of both sides per size, each side on a fresh apiserver; the report gives the medians (the first round alone runs the other scenarios).")
	fs.IntVar(&opts.BadTenants, "bad-tenants", opts.BadTenants, "Broken tenants among the healthy in the bad-input scenario (a fresh apiserver per size); -1 is 5% of N, 0 skips it.")
	fs.StringSliceVar(&opts.BadKinds, "bad-kinds", opts.BadKinds, "Only these broken inputs: syntax-error, infinite-recursion, output-bomb, 1-gib-artifact, path-traversal-tarball, foreign-repository-policy.")
	fs.DurationVar(&opts.SyncTimeout, "sync-timeout", opts.SyncTimeout, "Bound of one first sync; 0 is 20 minutes or 1.2 s per runner, whichever is longer.")
	fs.DurationVar(&opts.ChangeTimeout, "change-timeout", opts.ChangeTimeout, "Bound of one policy or source change.")
	fs.BoolVar(&opts.HeapProfile, "heap-profile", opts.HeapProfile, "Run the controller with --enable-pprof and save its heap profiles after the first sync and the steady window into OUT/profiles/.")
	fs.BoolVar(&opts.CPUProfile, "cpu-profile", opts.CPUProfile, "Profile the driver's process during each KCL first sync and scale-out round (the controller or workers too when they run in-process).")
	fs.StringVar(&opts.OutDir, "out", opts.OutDir, "Folder for report.json, the SVG charts and the processes' logs.")
	pflag.Parse()
	if v := os.Getenv("LOADTEST_N"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return fmt.Errorf("LOADTEST_N=%q is not a positive number", v)
		}
		opts.Sizes = []int{n}
	}
	ctrllog.SetLogger(logr.Discard()) // the harness's clients; the processes log to files
	start := time.Now()
	opts.Logf = func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "[%6.1fs] %s\n", time.Since(start).Seconds(), fmt.Sprintf(format, args...))
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	r, err := driver.Run(ctx, opts)
	if r != nil {
		fmt.Println()
		r.PrintTable(os.Stdout)
		fmt.Printf("\nreport: %s/report.json, %s/first-sync.svg, %s/latency.svg\n", opts.OutDir, opts.OutDir, opts.OutDir)
	}
	return err
}
