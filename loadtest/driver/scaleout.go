package driver

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
	"github.com/kcl-lang/flux-kcl-controller/loadtest/procstat"
	"github.com/kcl-lang/flux-kcl-controller/loadtest/report"
	"github.com/kcl-lang/flux-kcl-controller/loadtest/tenant"
	"github.com/kcl-lang/flux-kcl-controller/services/compiler"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
)

// inFlightPerWorker keeps every worker's engine slots busy (the compiler's default
// --concurrent is 4).
const inFlightPerWorker = 4

// scaleOut measures compile throughput with 1, 2, 4... compiler workers behind the applier's
// own client (round-robin over the replicas), every request a distinct program so nothing is
// answered from a cache. The worker counts take turns, round after round, and each reports
// its median: this machine's speed drifts by a third within minutes, and turns spread the
// drift over every count instead of handing it to one.
func (d *driver) scaleOut(ctx context.Context) ([]report.ScaleOut, error) {
	artifacts, err := artifactserver.Start()
	if err != nil {
		return nil, err
	}
	defer artifacts.Close()

	type workerSet struct {
		workers                       int
		client                        *workerclient.Client
		pids                          []int
		stop                          func()
		rates                         []float64
		workerCPU, driverCPU, machine []float64
	}
	var sets []*workerSet
	defer func() {
		for _, set := range sets {
			set.client.Close()
			set.stop()
		}
	}()
	base := 1_000_000
	next := func(n int) ([]workerclient.CompileInput, error) {
		inputs, err := publishPrograms(artifacts, base, n)
		base += n
		return inputs, err
	}
	for _, workers := range d.opts.ScaleOutWorkers {
		d.logf("scale-out: starting %d compiler worker(s)", workers)
		addrs, pids, stop, err := d.startCompilers(ctx, workers)
		if err != nil {
			return nil, err
		}
		cfg := workerclient.DefaultConfig()
		cfg.CompilerAddr, cfg.ResolverAddr = strings.Join(addrs, ","), strings.Join(addrs, ",")
		client, err := workerclient.Dial(cfg)
		if err != nil {
			stop()
			return nil, fmt.Errorf("dialing compilers: %w", err)
		}
		sets = append(sets, &workerSet{workers: workers, client: client, pids: pids, stop: stop})
		// Warm up: every connection made, every worker's code paths hot.
		warm := workers * inFlightPerWorker * 4
		inputs, err := next(warm)
		if err != nil {
			return nil, err
		}
		if _, err := compileAll(ctx, client, inputs, workers*inFlightPerWorker); err != nil {
			return nil, err
		}
	}
	for round := 1; round <= d.opts.ScaleOutRounds; round++ {
		for _, set := range sets {
			inputs, err := next(d.opts.ScaleOutCompiles)
			if err != nil {
				return nil, err
			}
			machine := machineSpeedup(set.workers)
			workerCPU, driverCPU := cpuOf(set.pids), cpuOf([]int{os.Getpid()})
			stopProfile, err := d.startCPUProfile(fmt.Sprintf("cpu-scaleout-%d-workers-round-%d.pprof", set.workers, round))
			if err != nil {
				return nil, err
			}
			elapsed, err := compileAll(ctx, set.client, inputs, set.workers*inFlightPerWorker)
			stopProfile()
			if err != nil {
				return nil, err
			}
			rate := float64(len(inputs)) / elapsed.Seconds()
			set.rates = append(set.rates, rate)
			set.workerCPU = append(set.workerCPU, (cpuOf(set.pids) - workerCPU).Seconds())
			set.driverCPU = append(set.driverCPU, (cpuOf([]int{os.Getpid()}) - driverCPU).Seconds())
			set.machine = append(set.machine, machine)
			d.logf("scale-out round %d: %d worker(s): %.1f compiles/s, worker CPU %.2fs, driver CPU %.2fs; machine %.2f×",
				round, set.workers, rate, set.workerCPU[len(set.workerCPU)-1], set.driverCPU[len(set.driverCPU)-1], machine)
		}
	}
	var out []report.ScaleOut
	for _, set := range sets {
		rate := report.Median(set.rates)
		so := report.ScaleOut{Workers: set.workers, Compiles: d.opts.ScaleOutCompiles, Rounds: len(set.rates),
			CompilesPerSec: rate, Seconds: float64(d.opts.ScaleOutCompiles) / rate, RoundRates: set.rates,
			WorkerCPUSeconds: report.Median(set.workerCPU), DriverCPUSeconds: report.Median(set.driverCPU),
			MachineSpeedup: report.Median(set.machine), Speedup: 1}
		if len(out) > 0 {
			so.Speedup = so.CompilesPerSec / out[0].CompilesPerSec
		}
		out = append(out, so)
	}
	return out, nil
}

// publishPrograms serves n distinct tenant programs, numbered from base.
func publishPrograms(s *artifactserver.Server, base, n int) ([]workerclient.CompileInput, error) {
	inputs := make([]workerclient.CompileInput, n)
	for i := range inputs {
		t := tenant.Tenant{Index: base + i, Side: tenant.KCL}
		a, err := s.PublishFiles(artifactserver.ArtifactPath("GitRepository", t.Namespace(), tenant.Name, ""),
			map[string]string{tenant.ProgramFile: t.Program("r1", firstTag)}, "")
		if err != nil {
			return nil, err
		}
		inputs[i] = workerclient.CompileInput{
			Artifact: workerclient.Artifact{URL: a.URL, Revision: a.Revision, Digest: a.Digest},
			KCLRun:   t.Namespace() + "/" + tenant.Name,
		}
	}
	return inputs, nil
}

// compileAll compiles every input with inFlight calls at a time and returns the wall time.
func compileAll(ctx context.Context, c *workerclient.Client, inputs []workerclient.CompileInput, inFlight int) (time.Duration, error) {
	return compileAllTimed(ctx, c, inputs, inFlight, nil)
}

// compileAllTimed is compileAll that also calls done (if not nil) when each
// compile completes, from the calling goroutines.
func compileAllTimed(ctx context.Context, c *workerclient.Client, inputs []workerclient.CompileInput, inFlight int, done func(time.Time)) (time.Duration, error) {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, inFlight)
	start := time.Now()
	for range inFlight {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(inputs) {
					return
				}
				// Counting, not decoding, the objects keeps the driver's share
				// of the two cores small: the workers are what is measured.
				n, err := c.CompileCount(ctx, inputs[i])
				if err == nil && n != 3 {
					err = fmt.Errorf("program %d compiled to %d objects, want 3", i, n)
				}
				if err != nil {
					errs <- fmt.Errorf("compiling %s: %w", inputs[i].KCLRun, err)
					return
				}
				if done != nil {
					done(time.Now())
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	return elapsed, <-errs
}

// startCompilers runs n compiler workers: bin/compiler processes (each limited to
// WorkerGOMAXPROCS), or servers inside the driver.
func (d *driver) startCompilers(ctx context.Context, n int) (addrs []string, pids []int, stop func(), err error) {
	var stops []func()
	stop = func() {
		for _, s := range stops {
			s()
		}
	}
	for i := range n {
		if d.opts.ScaleOutInProcess {
			addr, s, err := startInProcessCompiler()
			if err != nil {
				stop()
				return nil, nil, nil, err
			}
			addrs, stops = append(addrs, addr), append(stops, s)
			continue
		}
		ports, err := freeAddrs(2)
		if err != nil {
			stop()
			return nil, nil, nil, err
		}
		var env []string
		if d.opts.WorkerGOMAXPROCS > 0 {
			env = append(env, "GOMAXPROCS="+strconv.Itoa(d.opts.WorkerGOMAXPROCS))
		}
		p, err := startProcess(fmt.Sprintf("scaleout-compiler-%d-of-%d", i+1, n), d.logDir, filepath.Join(d.opts.BinDir, "compiler"),
			[]string{"--grpc-addr=" + ports[0], "--health-addr=" + ports[1], "--metrics-addr="}, env)
		if err != nil {
			stop()
			return nil, nil, nil, err
		}
		stops, pids = append(stops, p.stop), append(pids, p.pid())
		if err := waitHTTP(ctx, "http://"+ports[1]+"/readyz", p); err != nil {
			stop()
			return nil, nil, nil, err
		}
		addrs = append(addrs, ports[0])
	}
	return addrs, pids, stop, nil
}

// cpuOf adds the CPU time of processes (0 for any that cannot be read).
func cpuOf(pids []int) time.Duration {
	var total time.Duration
	for _, pid := range pids {
		if cpu, err := procstat.CPU(pid); err == nil {
			total += cpu
		}
	}
	return total
}

func startInProcessCompiler() (string, func(), error) {
	cfg := compiler.DefaultConfig()
	cfg.GRPCAddr, cfg.MetricsAddr, cfg.HealthAddr = "", "", ""
	svc, err := compiler.New(cfg, compiler.Deps{Registerer: prometheus.NewRegistry(), Logger: logr.Discard()})
	if err != nil {
		return "", nil, fmt.Errorf("compiler: %w", err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("listening: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- svc.Serve(ctx, lis) }()
	return lis.Addr().String(), func() { cancel(); <-done }, nil
}
