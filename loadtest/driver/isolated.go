package driver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
	"github.com/kcl-lang/flux-kcl-controller/loadtest/procstat"
	"github.com/kcl-lang/flux-kcl-controller/loadtest/report"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
)

// The isolated scale-out asks what the compiler workers do when each has its
// core to itself. In the shared scale-out one driver (gRPC client and artifact
// server) feeds every worker: on a 2-core machine it takes a fifth of the cores
// from the workers it measures, so it cannot show them scaling. Here each unit
// is a process of its own, with one worker, its own client and its own
// artifact server, limited to one CPU; n units run at once and their compiles
// add up. Each unit carries its load's cost, so a unit is slower than a worker
// fed from outside, and the same for every count.

// compileUnitEnv marks a process started as an isolated scale-out unit; its
// value is the number of timed compiles.
const compileUnitEnv = "FKC_LOADTEST_COMPILE_UNIT"

// IsCompileUnit reports whether this process was started as an isolated
// scale-out unit: main (and TestMain) then call RunCompileUnit and exit.
func IsCompileUnit() bool { return os.Getenv(compileUnitEnv) != "" }

// unitResult is what a unit prints when its timed compiles are done: when
// they started and when each one completed (Unix nanoseconds, one clock for
// every unit of the machine), and the CPU the unit used meanwhile.
type unitResult struct {
	Start      int64   `json:"start"`
	Done       []int64 `json:"done"`
	CPUSeconds float64 `json:"cpuSeconds"`
}

// RunCompileUnit warms its worker up, says "ready" on stdout, waits for a line
// on stdin, compiles its programs and prints a unitResult. It returns the exit code.
func RunCompileUnit() int {
	if err := runCompileUnit(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "compile unit:", err)
		return 1
	}
	return 0
}

func runCompileUnit(in io.Reader, out io.Writer) error {
	n, err := strconv.Atoi(os.Getenv(compileUnitEnv))
	if err != nil || n < 1 {
		return fmt.Errorf("%s=%q is not a positive number", compileUnitEnv, os.Getenv(compileUnitEnv))
	}
	ctx := context.Background()
	artifacts, err := artifactserver.Start()
	if err != nil {
		return err
	}
	defer artifacts.Close()
	addr, stop, err := startInProcessCompiler()
	if err != nil {
		return err
	}
	defer stop()
	cfg := workerclient.DefaultConfig()
	cfg.CompilerAddr, cfg.ResolverAddr = addr, addr
	client, err := workerclient.Dial(cfg)
	if err != nil {
		return fmt.Errorf("dialing the compiler: %w", err)
	}
	defer client.Close()

	warm, err := publishPrograms(artifacts, 0, inFlightPerWorker*4)
	if err != nil {
		return err
	}
	if _, err := compileAll(ctx, client, warm, inFlightPerWorker); err != nil {
		return err
	}
	inputs, err := publishPrograms(artifacts, len(warm), n)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "ready")
	if _, err := bufio.NewReader(in).ReadString('\n'); err != nil {
		return fmt.Errorf("waiting for the start: %w", err)
	}
	cpu, err := procstat.CPU(os.Getpid())
	if err != nil {
		return err
	}
	res := unitResult{Start: time.Now().UnixNano(), Done: make([]int64, 0, n)}
	var mu sync.Mutex
	_, err = compileAllTimed(ctx, client, inputs, inFlightPerWorker, func(t time.Time) {
		mu.Lock()
		res.Done = append(res.Done, t.UnixNano())
		mu.Unlock()
	})
	if err != nil {
		return err
	}
	after, err := procstat.CPU(os.Getpid())
	if err != nil {
		return err
	}
	res.CPUSeconds = (after - cpu).Seconds()
	return json.NewEncoder(out).Encode(res)
}

// scaleOutIsolated runs 1, 2, 4... units at once, the counts taking turns
// round after round, and reports each count's median throughput: the
// compiles all units completed while all of them were running, over that
// time (units never end together; the one left alone at the end would
// otherwise count as two, or the slowest unit's tail as none).
func (d *driver) scaleOutIsolated(ctx context.Context) ([]report.ScaleOut, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding the driver's binary: %w", err)
	}
	counts := d.opts.ScaleOutWorkers
	rates := make([][]float64, len(counts))
	cpus := make([][]float64, len(counts))
	for round := 1; round <= d.opts.ScaleOutRounds; round++ {
		for i, units := range counts {
			rate, cpu, err := d.runUnits(ctx, self, units)
			if err != nil {
				return nil, fmt.Errorf("%d isolated unit(s): %w", units, err)
			}
			rates[i], cpus[i] = append(rates[i], rate), append(cpus[i], cpu)
			d.logf("isolated scale-out round %d: %d unit(s): %.1f compiles/s, CPU %.2fs", round, units, rate, cpu)
		}
	}
	var out []report.ScaleOut
	for i, units := range counts {
		rate := report.Median(rates[i])
		so := report.ScaleOut{Workers: units, Compiles: d.opts.ScaleOutCompiles, Rounds: len(rates[i]),
			CompilesPerSec: rate, Seconds: float64(d.opts.ScaleOutCompiles) / rate, RoundRates: rates[i],
			WorkerCPUSeconds: report.Median(cpus[i]), Speedup: 1}
		if len(out) > 0 {
			so.Speedup = so.CompilesPerSec / out[0].CompilesPerSec
		}
		out = append(out, so)
	}
	return out, nil
}

// runUnits starts n units, starts their timed compiles together once all are
// warm, and returns their compiles per second while all ran and the units'
// CPU seconds per unit (the mean).
func (d *driver) runUnits(ctx context.Context, self string, n int) (rate, cpu float64, err error) {
	type unit struct {
		cmd    *exec.Cmd
		stdin  io.WriteCloser
		stdout *bufio.Reader
		stderr *strings.Builder
	}
	units := make([]*unit, 0, n)
	defer func() {
		for _, u := range units {
			_ = u.stdin.Close()
			if u.cmd.Process != nil {
				_ = u.cmd.Process.Kill()
			}
			_ = u.cmd.Wait()
		}
	}()
	env := append(os.Environ(), compileUnitEnv+"="+strconv.Itoa(d.opts.ScaleOutCompiles))
	if d.opts.WorkerGOMAXPROCS > 0 {
		env = append(env, "GOMAXPROCS="+strconv.Itoa(d.opts.WorkerGOMAXPROCS))
	}
	for range n {
		u := &unit{cmd: exec.CommandContext(ctx, self), stderr: &strings.Builder{}}
		u.cmd.Env, u.cmd.Stderr = env, u.stderr
		if u.stdin, err = u.cmd.StdinPipe(); err != nil {
			return 0, 0, err
		}
		stdout, err := u.cmd.StdoutPipe()
		if err != nil {
			return 0, 0, err
		}
		u.stdout = bufio.NewReader(stdout)
		if err := u.cmd.Start(); err != nil {
			return 0, 0, fmt.Errorf("starting a unit: %w", err)
		}
		units = append(units, u)
	}
	for _, u := range units {
		if line, err := u.stdout.ReadString('\n'); err != nil || strings.TrimSpace(line) != "ready" {
			return 0, 0, fmt.Errorf("a unit did not get ready (%q, %v): %s", line, err, u.stderr.String())
		}
	}
	for _, u := range units {
		if _, err := io.WriteString(u.stdin, "go\n"); err != nil {
			return 0, 0, fmt.Errorf("starting a unit's compiles: %w", err)
		}
	}
	results := make([]unitResult, len(units))
	errs := make([]error, len(units))
	var wg sync.WaitGroup
	for i, u := range units {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := json.NewDecoder(u.stdout).Decode(&results[i]); err != nil {
				errs[i] = fmt.Errorf("reading a unit's result: %w: %s", err, u.stderr.String())
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return 0, 0, err
	}
	rate = overlapRate(results)
	if rate == 0 {
		// Runs too short to overlap (a handful of compiles): all compiles
		// over the whole span, which understates the throughput.
		rate = spanRate(results)
	}
	return rate, meanCPU(results), nil
}

// overlapRate is the compiles per second of all units together while every
// one of them was running: from the last start to the first unit's last
// completion.
func overlapRate(results []unitResult) float64 {
	var start, end int64
	for i, r := range results {
		if len(r.Done) == 0 {
			return 0
		}
		last := slices.Max(r.Done)
		if i == 0 || r.Start > start {
			start = r.Start
		}
		if i == 0 || last < end {
			end = last
		}
	}
	if end <= start {
		return 0
	}
	var n int
	for _, r := range results {
		for _, t := range r.Done {
			if t > start && t <= end {
				n++
			}
		}
	}
	return float64(n) / (float64(end-start) / float64(time.Second))
}

// spanRate is all units' compiles over the time from the first start to the
// last completion.
func spanRate(results []unitResult) float64 {
	var start, end int64
	var n int
	for i, r := range results {
		if i == 0 || r.Start < start {
			start = r.Start
		}
		for _, t := range r.Done {
			end = max(end, t)
		}
		n += len(r.Done)
	}
	if end <= start {
		return 0
	}
	return float64(n) / (float64(end-start) / float64(time.Second))
}

func meanCPU(results []unitResult) float64 {
	var total float64
	for _, r := range results {
		total += r.CPUSeconds
	}
	return total / float64(len(results))
}
