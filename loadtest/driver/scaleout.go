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

	"github.com/kcl-lang/flux-kcl-controller/internal/harness/artifactserver"
	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
	"github.com/kcl-lang/flux-kcl-controller/loadtest/procstat"
	"github.com/kcl-lang/flux-kcl-controller/loadtest/report"
	"github.com/kcl-lang/flux-kcl-controller/loadtest/tenant"
	"github.com/kcl-lang/flux-kcl-controller/services/compiler"
)

// inFlightPerWorker keeps every worker's engine slots busy (the compiler's default
// --concurrent is 4).
const inFlightPerWorker = 4

// scaleOut measures compile throughput with 1, 2, 4... compiler workers behind the applier's
// own client (round-robin over the replicas), every request a distinct program so nothing is
// answered from a cache.
func (d *driver) scaleOut(ctx context.Context) ([]report.ScaleOut, error) {
	artifacts, err := artifactserver.Start()
	if err != nil {
		return nil, err
	}
	defer artifacts.Close()
	var out []report.ScaleOut
	for round, workers := range d.opts.ScaleOutWorkers {
		d.logf("scale-out: %d compiler worker(s)", workers)
		// Distinct programs per round too: the artifact cache of a worker is per process,
		// but in-process workers of successive rounds would otherwise share nothing anyway.
		warm := workers * inFlightPerWorker
		inputs, err := publishPrograms(artifacts, (round+1)*1_000_000, warm+d.opts.ScaleOutCompiles)
		if err != nil {
			return out, err
		}
		addrs, pids, stop, err := d.startCompilers(ctx, workers)
		if err != nil {
			return out, err
		}
		cfg := workerclient.DefaultConfig()
		cfg.CompilerAddr, cfg.ResolverAddr = strings.Join(addrs, ","), strings.Join(addrs, ",")
		client, err := workerclient.Dial(cfg)
		if err != nil {
			stop()
			return out, fmt.Errorf("dialing compilers: %w", err)
		}
		// Warm up: every connection made, every worker's code paths hot.
		if _, err := compileAll(ctx, client, inputs[:warm], warm); err != nil {
			client.Close()
			stop()
			return out, err
		}
		workerCPU, driverCPU := cpuOf(pids), cpuOf([]int{os.Getpid()})
		stopProfile, err := d.startCPUProfile(fmt.Sprintf("cpu-scaleout-%d-workers.pprof", workers))
		if err != nil {
			client.Close()
			stop()
			return out, err
		}
		elapsed, err := compileAll(ctx, client, inputs[warm:], workers*inFlightPerWorker)
		stopProfile()
		workerCPU, driverCPU = cpuOf(pids)-workerCPU, cpuOf([]int{os.Getpid()})-driverCPU
		client.Close()
		stop()
		if err != nil {
			return out, err
		}
		so := report.ScaleOut{Workers: workers, Compiles: d.opts.ScaleOutCompiles, Seconds: elapsed.Seconds(),
			CompilesPerSec:   float64(d.opts.ScaleOutCompiles) / elapsed.Seconds(),
			WorkerCPUSeconds: workerCPU.Seconds(), DriverCPUSeconds: driverCPU.Seconds()}
		if len(out) > 0 {
			so.Speedup = so.CompilesPerSec / out[0].CompilesPerSec
		} else {
			so.Speedup = 1
		}
		d.logf("scale-out: %d worker(s): %.1f compiles/s, worker CPU %.2fs, driver CPU %.2fs", workers, so.CompilesPerSec, so.WorkerCPUSeconds, so.DriverCPUSeconds)
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
				got, err := c.Compile(ctx, inputs[i])
				if err == nil && len(got.Objects) != 3 {
					err = fmt.Errorf("program %d compiled to %d objects, want 3", i, len(got.Objects))
				}
				if err != nil {
					errs <- fmt.Errorf("compiling %s: %w", inputs[i].KCLRun, err)
					return
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
