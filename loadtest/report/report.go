// Package report holds what a load-test run measured, and writes it as a table, a JSON file
// and SVG charts (the first-sync curves and the latency distributions).
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kcl-lang/flux-kcl-controller/loadtest/procstat"
)

// Report is one run of the driver.
type Report struct {
	Started time.Time `json:"started"`
	// Mode is how flux-kcl-controller ran: "in-process", "all-in-one" (one child process) or
	// "split" (watcher, applier, compiler, resolver processes and NATS).
	Mode     string     `json:"mode"`
	CPUs     int        `json:"cpus"`
	Sizes    []Size     `json:"sizes"`
	ScaleOut []ScaleOut `json:"scaleOut,omitempty"`
	// ScaleOutIsolated is the same compiles with each worker in a process of
	// its own with its own client and artifact server, limited to one CPU:
	// what the workers do when the driver does not share their cores.
	ScaleOutIsolated []ScaleOut `json:"scaleOutIsolated,omitempty"`
	Notes            []string   `json:"notes,omitempty"`
}

// Size is everything measured with N tenants on each side.
type Size struct {
	N         int        `json:"n"`
	KCL       FirstSync  `json:"kclFirstSync"`
	Kustomize *FirstSync `json:"kustomizeFirstSync,omitempty"`
	// FirstSyncRatio is how many times faster KCLRuns are: the median of the
	// rounds' Kustomization first syncs over the median of their KCLRun ones.
	FirstSyncRatio float64 `json:"firstSyncRatio,omitempty"`
	// Rounds are the first syncs of both sides, each round on a fresh apiserver;
	// the first round's are KCL and Kustomize above.
	Rounds []Round `json:"rounds,omitempty"`
	// KCLMedianSeconds and KustomizeMedianSeconds are the rounds' medians.
	KCLMedianSeconds       float64 `json:"kclMedianSeconds,omitempty"`
	KustomizeMedianSeconds float64 `json:"kustomizeMedianSeconds,omitempty"`
	// CPURatio is the same comparison in CPU seconds (controller, kube-apiserver
	// and etcd): the work each side costs, which the machine's speed swings
	// less than the wall time.
	CPURatio float64 `json:"cpuRatio,omitempty"`

	Policy Latency `json:"policyLatency"`
	Source Latency `json:"sourceLatency"`
	Steady *Steady `json:"steady,omitempty"`
	// Burst is the quiet tenant's change beside another namespace's burst.
	Burst *Burst `json:"burst,omitempty"`

	// Memory is the peak RSS (VmHWM) of each flux-kcl-controller process, and of the
	// apiserver and etcd, at the end of the KCL scenarios.
	Memory map[string]procstat.Memory `json:"memory,omitempty"`
	// Faults are the fault scenarios run after the measurements.
	Faults []FaultCheck `json:"faults,omitempty"`
	// KustomizeMemory is kustomize-controller's after its first sync.
	KustomizeMemory *procstat.Memory `json:"kustomizeMemory,omitempty"`
	// MemoryRatio is kustomize-controller's peak over flux-kcl-controller's (all processes).
	MemoryRatio float64 `json:"memoryRatio,omitempty"`
	// BadInput is the first sync and policy latency again, with broken tenants among the healthy.
	BadInput *BadInput `json:"badInput,omitempty"`
	// Rollout is one election of the shared ImagePolicy rolled out in stages
	// by an ImageRollout (with --rollout).
	Rollout *Rollout `json:"rollout,omitempty"`
}

// Rollout is one election rolled out by an ImageRollout over the N KCLRuns
// that follow its policy; every time counts from the election (the driver's
// write of the policy's status.latestRef), as the driver's informers saw it.
type Rollout struct {
	// Target is the image elected.
	Target string `json:"target"`
	// Stages are the rollout's stages in order.
	Stages []RolloutStage `json:"stages"`
	// CanaryApplied is, for each KCLRun of the first stage, the election →
	// its Deployment running the target.
	CanaryApplied Latency `json:"canaryApplied"`
	// TargetSeconds is the election → the rollout's status naming the target.
	TargetSeconds float64 `json:"targetSeconds"`
	// SucceededSeconds is the election → the rollout Ready with the target
	// as last good (every stage passed).
	SucceededSeconds float64 `json:"succeededSeconds"`
	// Converged says the rollout succeeded and every KCLRun was Ready at the
	// target before the deadline.
	Converged bool `json:"converged"`
	// EarlyApplies counts KCLRuns whose Deployment was seen running the
	// target before their stage was seen admitted (a rollout holding nothing
	// back would show most of them here).
	EarlyApplies int `json:"earlyApplies"`
	// Requests are the apiserver requests served from the election until
	// the rollout succeeded ("VERB resource" → count, as FirstSync.Requests).
	Requests map[string]float64 `json:"requests,omitempty"`
	// SettleSeconds is the end of the first sync → the rollout Ready at the
	// first election with every KCLRun counted in a stage.
	SettleSeconds float64 `json:"settleSeconds"`
}

// RolloutStage is one stage's times since the election.
type RolloutStage struct {
	Name    string `json:"name"`
	KCLRuns int    `json:"kclRuns"`
	// AdmittedSeconds: the stage seen admitted (given the target).
	AdmittedSeconds float64 `json:"admittedSeconds"`
	// AppliedSeconds: the last of its Deployments seen running the target.
	AppliedSeconds float64 `json:"appliedSeconds"`
	// ReadySeconds: the last of its KCLRuns seen Ready at the target.
	ReadySeconds float64 `json:"readySeconds"`
	// PassedSeconds: the stage seen Succeeded.
	PassedSeconds float64 `json:"passedSeconds"`
	// GateSeconds is, past the first stage, the previous stage passed →
	// every KCLRun of this one Ready at the target.
	GateSeconds float64 `json:"gateSeconds,omitempty"`
	// Ready and Applied count its KCLRuns that got there.
	Ready   int `json:"ready"`
	Applied int `json:"applied"`
}

// BadInput compares the healthy tenants' figures with broken tenants present
// to the clean ones, and tells how each kind of broken tenant was reported.
type BadInput struct {
	// Tenants is the number of broken tenants beside the N healthy ones.
	Tenants int `json:"tenants"`
	// Healthy is the healthy KCLRuns' first sync in seconds, the median of
	// HealthyRounds (one per first-sync round, taken in turns with the clean
	// ones); HealthyReady how many got Ready in the worst round.
	Healthy       float64   `json:"healthySeconds"`
	HealthyRounds []float64 `json:"healthyRounds,omitempty"`
	HealthyReady  int       `json:"healthyReady"`
	// Policy is the ImagePolicy → Deployment latency of healthy tenants.
	Policy Latency `json:"policyLatency"`
	// Kinds tells, per kind of broken input, how many KCLRuns reported it as they should.
	Kinds []BadKind `json:"kinds"`
}

// BadKind is how the KCLRuns of one kind of broken input ended.
type BadKind struct {
	Name       string `json:"name"`
	Count      int    `json:"count"`
	WantReason string `json:"wantReason"`
	// Reported counts the KCLRuns that ended Ready=False with WantReason and the expected message.
	Reported int `json:"reported"`
	// Reason and Message are the last such KCLRun's Ready condition.
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// Round is one first sync of each side on a fresh apiserver.
type Round struct {
	KCLSeconds       float64 `json:"kclSeconds"`
	KustomizeSeconds float64 `json:"kustomizeSeconds,omitempty"`
	// KCLCPUSeconds and KustomizeCPUSeconds are the CPU seconds of the
	// controller, kube-apiserver and etcd (not the driver) during the first sync.
	KCLCPUSeconds       float64 `json:"kclCPUSeconds"`
	KustomizeCPUSeconds float64 `json:"kustomizeCPUSeconds,omitempty"`
}

// NewRound records the first syncs of a round; kust is nil without the reference side.
func NewRound(kcl FirstSync, kust *FirstSync) Round {
	r := Round{KCLSeconds: kcl.Seconds, KCLCPUSeconds: kcl.WorkCPUSeconds()}
	if kust != nil {
		r.KustomizeSeconds, r.KustomizeCPUSeconds = kust.Seconds, kust.WorkCPUSeconds()
	}
	return r
}

// Summarize computes the medians and ratios of the rounds and the memory ratio.
func (s *Size) Summarize() {
	var kcl, kust, kclCPU, kustCPU []float64
	for _, r := range s.Rounds {
		kcl, kclCPU = append(kcl, r.KCLSeconds), append(kclCPU, r.KCLCPUSeconds)
		if r.KustomizeSeconds > 0 {
			kust, kustCPU = append(kust, r.KustomizeSeconds), append(kustCPU, r.KustomizeCPUSeconds)
		}
	}
	s.KCLMedianSeconds, s.KustomizeMedianSeconds = Median(kcl), Median(kust)
	if s.KCLMedianSeconds > 0 && s.KustomizeMedianSeconds > 0 {
		s.FirstSyncRatio = s.KustomizeMedianSeconds / s.KCLMedianSeconds
	}
	if c := Median(kclCPU); c > 0 && len(kustCPU) > 0 {
		s.CPURatio = Median(kustCPU) / c
	}
	if peak := s.ControllerPeak(); peak > 0 && s.KustomizeMemory != nil {
		s.MemoryRatio = float64(s.KustomizeMemory.PeakBytes) / float64(peak)
	}
	if b := s.BadInput; b != nil && len(b.HealthyRounds) > 0 {
		b.Healthy = Median(b.HealthyRounds)
	}
}

// Median is the middle value of v (the mean of the two middle ones for an
// even count); 0 for none.
func Median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// FirstSync is the time from creating N runners until all are Ready.
type FirstSync struct {
	N       int     `json:"n"`
	Ready   int     `json:"ready"`
	Seconds float64 `json:"seconds"`
	// Curve is the ready count over time (seconds since the first create).
	Curve []Point `json:"curve"`
	// Requests are the apiserver requests served during the first sync ("VERB resource" →
	// count, from apiserver_request_total; every client's, the driver's creates included).
	Requests map[string]float64 `json:"requests,omitempty"`
	// CPUSeconds is the CPU each measured process used during the first sync.
	CPUSeconds map[string]float64 `json:"cpuSeconds,omitempty"`
}

// WorkCPUSeconds adds the CPU seconds of every process but the driver.
func (f FirstSync) WorkCPUSeconds() float64 {
	var total float64
	for name, v := range f.CPUSeconds {
		if name != "driver" {
			total += v
		}
	}
	return total
}

// DryRunSuffix marks a verb of dry-run requests in Requests ("APPLY-dry-run configmaps"):
// they change nothing, so they count with the reads.
const DryRunSuffix = "-dry-run"

// PerRunner splits Requests into writes and reads per runner.
func (f FirstSync) PerRunner() (writes, reads float64) {
	for key, v := range f.Requests {
		verb, _, _ := strings.Cut(key, " ")
		switch {
		case verb == "GET", verb == "LIST", verb == "WATCH", strings.HasSuffix(verb, DryRunSuffix):
			reads += v
		default:
			writes += v
		}
	}
	n := float64(max(f.N, 1))
	return writes / n, reads / n
}

// Latency is a distribution of latencies in seconds.
type Latency struct {
	Samples []float64 `json:"samples"`
	// Missed counts changes that did not arrive before the scenario's deadline.
	Missed int     `json:"missed"`
	P50    float64 `json:"p50"`
	P95    float64 `json:"p95"`
	P99    float64 `json:"p99"`
	Max    float64 `json:"max"`
}

// NewLatency sorts samples and computes the percentiles.
func NewLatency(samples []float64, missed int) Latency {
	s := append([]float64(nil), samples...)
	sort.Float64s(s)
	l := Latency{Samples: s, Missed: missed}
	if len(s) > 0 {
		l.P50, l.P95, l.P99, l.Max = quantile(s, 0.50), quantile(s, 0.95), quantile(s, 0.99), s[len(s)-1]
	}
	return l
}

// quantile is the nearest-rank quantile of sorted samples.
func quantile(sorted []float64, q float64) float64 {
	i := int(float64(len(sorted))*q+0.999999) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// Burst is the fair-turns scenario: one namespace changes Size KCLRuns at
// once (one shared source) and, a second later, a quiet tenant changes one.
type Burst struct {
	Size int `json:"size"`
	// Quiet is the quiet tenant's ImagePolicy write → its Deployment, one sample per round.
	Quiet Latency `json:"quiet"`
	// BurstSeconds is each round's source write → the whole burst applied.
	BurstSeconds []float64 `json:"burstSeconds"`
}

// Steady is a window with nothing changing.
type Steady struct {
	WindowSeconds float64 `json:"windowSeconds"`
	// CompilesPerMinute counts engine runs and cache answers together.
	CompilesPerMinute float64 `json:"compilesPerMinute"`
	// AppliedPerMinute counts applier reconciles that wrote objects.
	AppliedPerMinute float64 `json:"appliedPerMinute"`
	// ObjectWritesPerMinute are apiserver writes (create, update, patch, apply, delete) to
	// the tenants' kinds, KCLRun status included, from the apiserver's own metrics.
	ObjectWritesPerMinute float64 `json:"objectWritesPerMinute"`
	// DryRunsPerMinute are dry-run requests to the same kinds (drift checks), which change nothing.
	DryRunsPerMinute float64 `json:"dryRunsPerMinute"`
	// WritesPerMinuteByVerb are all apiserver writes but leases, events and dry runs, by verb.
	WritesPerMinuteByVerb map[string]float64 `json:"writesPerMinuteByVerb"`
	// CPUSecondsPerMinute is CPU time per minute of wall time by process.
	CPUSecondsPerMinute map[string]float64 `json:"cpuSecondsPerMinute"`
}

// roundRange is the slowest and fastest round's compiles per second.
func (s ScaleOut) roundRange() (lo, hi float64) {
	lo, hi = s.CompilesPerSec, s.CompilesPerSec
	for _, v := range s.RoundRates {
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi
}

// ScaleOut is compile throughput with a number of separate compiler processes.
type ScaleOut struct {
	Workers int `json:"workers"`
	// Compiles is the number of distinct programs of each round.
	Compiles int `json:"compiles"`
	// Rounds is how many times this worker count took its turn; RoundRates are
	// the rounds' compiles per second, CompilesPerSec their median and Seconds
	// the time of one round at that rate.
	Rounds         int       `json:"rounds"`
	RoundRates     []float64 `json:"roundRates,omitempty"`
	Seconds        float64   `json:"seconds"`
	CompilesPerSec float64   `json:"compilesPerSecond"`
	Speedup        float64   `json:"speedup"`
	// WorkerCPUSeconds is the CPU the compiler processes used in a round (the
	// median; 0 when they run in the driver); DriverCPUSeconds the driver's
	// (client, artifact server).
	WorkerCPUSeconds float64 `json:"workerCPUSeconds"`
	DriverCPUSeconds float64 `json:"driverCPUSeconds"`
	// MachineSpeedup is what as many busy threads as workers (up to the CPU
	// count) get done over one, measured just before: the ceiling of Speedup
	// on this machine.
	MachineSpeedup float64 `json:"machineSpeedup,omitempty"`
}

// FaultCheck is one fault scenario's outcome.
type FaultCheck struct {
	Name string `json:"name"`
	// Skipped says the fault does not apply to this mode (Detail says why).
	Skipped   bool    `json:"skipped,omitempty"`
	Converged bool    `json:"converged"`
	Seconds   float64 `json:"seconds"`
	Detail    string  `json:"detail,omitempty"`
}

// Write writes report.json, first-sync.svg and latency.svg into dir.
func (r *Report) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating report dir: %w", err)
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding report: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "report.json"), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing report: %w", err)
	}
	for name, chart := range map[string]Chart{"first-sync.svg": r.FirstSyncChart(), "latency.svg": r.LatencyChart()} {
		if err := writeChart(filepath.Join(dir, name), chart); err != nil {
			return err
		}
	}
	return nil
}

func writeChart(path string, c Chart) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := c.WriteSVG(f); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
}

// FirstSyncChart plots the share of Ready runners over time, per size and side.
func (r *Report) FirstSyncChart() Chart {
	c := Chart{Title: "First sync: Ready over time", XLabel: "seconds since the runners were created", YLabel: "Ready (%)", YMax: 100}
	for _, s := range r.Sizes {
		c.Series = append(c.Series, Series{Name: fmt.Sprintf("KCLRun N=%d", s.N), Points: percent(s.KCL)})
		if s.Kustomize != nil {
			c.Series = append(c.Series, Series{Name: fmt.Sprintf("Kustomization N=%d", s.N), Points: percent(*s.Kustomize), Dashed: true})
		}
	}
	return c
}

func percent(f FirstSync) []Point {
	// A step line: the count holds until the next runner becomes Ready.
	pts := make([]Point, 0, 2*len(f.Curve))
	prev := 0.0
	for _, p := range f.Curve {
		y := 100 * p.Y / float64(max(f.N, 1))
		pts = append(pts, Point{X: p.X, Y: prev}, Point{X: p.X, Y: y})
		prev = y
	}
	return pts
}

// LatencyChart plots the cumulative distributions of the policy and source latencies.
func (r *Report) LatencyChart() Chart {
	c := Chart{Title: "Change → object updated: cumulative distribution", XLabel: "latency (ms)", YLabel: "changes applied (%)", YMax: 100}
	for _, s := range r.Sizes {
		c.Series = append(c.Series,
			Series{Name: fmt.Sprintf("ImagePolicy N=%d", s.N), Points: cdf(s.Policy)},
			Series{Name: fmt.Sprintf("new revision N=%d", s.N), Points: cdf(s.Source), Dashed: true})
	}
	return c
}

func cdf(l Latency) []Point {
	total := len(l.Samples) + l.Missed
	pts := []Point{{X: 0, Y: 0}}
	for i, v := range l.Samples {
		pts = append(pts, Point{X: v * 1000, Y: 100 * float64(i) / float64(total)}, Point{X: v * 1000, Y: 100 * float64(i+1) / float64(total)})
	}
	return pts
}

// PrintTable writes the human-readable summary.
func (r *Report) PrintTable(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "flux-kcl-controller load test (%s, %d CPUs, %s)\n\n", r.Mode, r.CPUs, r.Started.Format(time.RFC3339))
	fmt.Fprintln(tw, "N\tKCLRun sync\tKustomization sync\tratio\tpolicy p50/p95/p99 ms\tsource p50/p99 ms\tfkc peak MiB\tkc peak MiB\tmem ratio\t")
	for _, s := range r.Sizes {
		kust, ratio, kcMem, memRatio := "-", "-", "-", "-"
		kcl := syncCell(s.KCL)
		if s.Kustomize != nil {
			kust = syncCell(*s.Kustomize)
			ratio = fmt.Sprintf("%.1f×", s.FirstSyncRatio)
		}
		if len(s.Rounds) > 1 {
			kcl, kust = roundsCell(s.Rounds, s.KCLMedianSeconds, func(r Round) float64 { return r.KCLSeconds }), "-"
			if s.KustomizeMedianSeconds > 0 {
				kust = roundsCell(s.Rounds, s.KustomizeMedianSeconds, func(r Round) float64 { return r.KustomizeSeconds })
			}
		}
		if s.KustomizeMemory != nil {
			kcMem = mib(s.KustomizeMemory.PeakBytes)
			memRatio = fmt.Sprintf("%.2f", s.MemoryRatio)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", s.N, kcl, kust, ratio,
			fmt.Sprintf("%.0f/%.0f/%.0f%s", s.Policy.P50*1000, s.Policy.P95*1000, s.Policy.P99*1000, missed(s.Policy)),
			fmt.Sprintf("%.0f/%.0f%s", s.Source.P50*1000, s.Source.P99*1000, missed(s.Source)),
			mib(controllerPeak(s.Memory)), kcMem, memRatio)
	}
	tw.Flush()

	for _, s := range r.Sizes {
		if len(s.KCL.Requests) > 0 {
			writes, reads := s.KCL.PerRunner()
			fmt.Fprintf(w, "\napiserver requests per runner during first sync at N=%d: KCLRun %.1f writes, %.1f reads and dry runs", s.N, writes, reads)
			if s.Kustomize != nil && len(s.Kustomize.Requests) > 0 {
				writes, reads = s.Kustomize.PerRunner()
				fmt.Fprintf(w, "; Kustomization %.1f writes, %.1f reads and dry runs", writes, reads)
			}
			fmt.Fprintln(w)
			printCPU(w, "CPU seconds during the KCLRun first sync:", s.KCL.CPUSeconds)
			if s.Kustomize != nil {
				printCPU(w, "CPU seconds during the Kustomization first sync:", s.Kustomize.CPUSeconds)
			}
			if len(s.Rounds) > 1 {
				fmt.Fprintf(w, "first-sync rounds at N=%d (KCLRun / Kustomization seconds, CPU seconds without the driver):", s.N)
				for i, r := range s.Rounds {
					fmt.Fprintf(w, " #%d %.1f/%.1f (CPU %.0f/%.0f);", i+1, r.KCLSeconds, r.KustomizeSeconds, r.KCLCPUSeconds, r.KustomizeCPUSeconds)
				}
				fmt.Fprintln(w)
			}
			if s.CPURatio > 0 {
				fmt.Fprintf(w, "work ratio at N=%d (median CPU seconds of a Kustomization first sync over a KCLRun one): %.1f×\n", s.N, s.CPURatio)
			}
		}
		if len(s.Memory) > 0 {
			fmt.Fprintf(w, "\npeak RSS at N=%d:", s.N)
			for _, name := range sortedKeys(s.Memory) {
				fmt.Fprintf(w, " %s %s MiB;", name, mib(s.Memory[name].PeakBytes))
			}
			fmt.Fprintln(w)
		}
		if b := s.Burst; b != nil {
			fmt.Fprintf(w, "quiet tenant's change beside a burst of %d KCLRuns in one namespace at N=%d, over %d rounds: p50 %.0f ms, p99 %.0f ms%s; each burst applied in (s):",
				b.Size, s.N, len(b.BurstSeconds), b.Quiet.P50*1000, b.Quiet.P99*1000, missed(b.Quiet))
			for _, sec := range b.BurstSeconds {
				fmt.Fprintf(w, " %.1f", sec)
			}
			fmt.Fprintln(w)
		}
		if st := s.Steady; st != nil {
			fmt.Fprintf(w, "steady state at N=%d over %.0fs, per minute: %.1f compiles, %.1f applied reconciles, %.1f object writes (%.1f dry runs);",
				s.N, st.WindowSeconds, st.CompilesPerMinute, st.AppliedPerMinute, st.ObjectWritesPerMinute, st.DryRunsPerMinute)
			for _, v := range sortedKeys(st.WritesPerMinuteByVerb) {
				fmt.Fprintf(w, " %s %.1f", v, st.WritesPerMinuteByVerb[v])
			}
			fmt.Fprint(w, "; CPU s/min:")
			for _, p := range sortedKeys(st.CPUSecondsPerMinute) {
				fmt.Fprintf(w, " %s %.2f", p, st.CPUSecondsPerMinute[p])
			}
			fmt.Fprintln(w)
		}
	}
	if len(r.ScaleOut) > 0 {
		fmt.Fprintf(w, "\ncompile throughput (distinct programs, no cache hits; median of %d rounds taken in turns):\n", r.ScaleOut[0].Rounds)
		for _, s := range r.ScaleOut {
			lo, hi := s.roundRange()
			fmt.Fprintf(w, "  %d worker(s): %.1f compiles/s (rounds %.0f–%.0f), %.2f× one worker; CPU per round of %d: workers %.2fs, driver %.2fs",
				s.Workers, s.CompilesPerSec, lo, hi, s.Speedup, s.Compiles, s.WorkerCPUSeconds, s.DriverCPUSeconds)
			if s.MachineSpeedup > 0 {
				fmt.Fprintf(w, "; the machine itself: %.2f× for %d busy threads", s.MachineSpeedup, min(s.Workers, r.CPUs))
			}
			fmt.Fprintln(w)
		}
	}
	if len(r.ScaleOutIsolated) > 0 {
		fmt.Fprintf(w, "\ncompile throughput, isolated units (each a process with one worker, its own client and artifact server, one CPU; median of %d rounds taken in turns):\n", r.ScaleOutIsolated[0].Rounds)
		for _, s := range r.ScaleOutIsolated {
			lo, hi := s.roundRange()
			fmt.Fprintf(w, "  %d unit(s): %.1f compiles/s (rounds %.0f–%.0f), %.2f× one unit; CPU per unit and round of %d: %.2fs\n",
				s.Workers, s.CompilesPerSec, lo, hi, s.Speedup, s.Compiles, s.WorkerCPUSeconds)
		}
	}
	for _, s := range r.Sizes {
		b := s.BadInput
		if b == nil {
			continue
		}
		clean := s.KCLMedianSeconds
		if clean == 0 {
			clean = s.KCL.Seconds
		}
		fmt.Fprintf(w, "\nbad input at N=%d with %d broken tenants: healthy first sync %.1fs (%d/%d Ready; clean %.1fs, %+.0f%%), policy p50/p99 %.0f/%.0f ms (clean %.0f/%.0f ms)\n",
			s.N, b.Tenants, b.Healthy, b.HealthyReady, s.N, clean, 100*(b.Healthy/clean-1),
			b.Policy.P50*1000, b.Policy.P99*1000, s.Policy.P50*1000, s.Policy.P99*1000)
		if len(b.HealthyRounds) > 1 {
			fmt.Fprint(w, "  rounds in turns (clean / with broken tenants, seconds):")
			for i, h := range b.HealthyRounds {
				if i < len(s.Rounds) {
					fmt.Fprintf(w, " #%d %.1f / %.1f;", i+1, s.Rounds[i].KCLSeconds, h)
				}
			}
			fmt.Fprintln(w)
		}
		for _, k := range b.Kinds {
			fmt.Fprintf(w, "  %s: %d/%d Ready=False %s (last: %s: %s)\n", k.Name, k.Reported, k.Count, k.WantReason, k.Reason, k.Message)
		}
	}
	for _, s := range r.Sizes {
		if ro := s.Rollout; ro != nil {
			fmt.Fprintf(w, "\nImageRollout at N=%d, election of %s (converged=%v; settled %.1fs after the first sync): rollout names it after %.2fs; canary applied p50 %.2fs p99 %.2fs%s; succeeded after %.1fs; %d KCLRuns applied before their stage\n",
				s.N, ro.Target, ro.Converged, ro.SettleSeconds, ro.TargetSeconds, ro.CanaryApplied.P50, ro.CanaryApplied.P99, missed(ro.CanaryApplied), ro.SucceededSeconds, ro.EarlyApplies)
			for i, st := range ro.Stages {
				fmt.Fprintf(w, "  %s (%d KCLRuns): admitted %.2fs, applied %d by %.2fs, Ready %d by %.2fs, passed %.2fs", st.Name, st.KCLRuns, st.AdmittedSeconds, st.Applied, st.AppliedSeconds, st.Ready, st.ReadySeconds, st.PassedSeconds)
				if i > 0 {
					fmt.Fprintf(w, "; gate (%s passed → all Ready) %.2fs", ro.Stages[i-1].Name, st.GateSeconds)
				}
				fmt.Fprintln(w)
			}
			if len(ro.Requests) > 0 {
				fmt.Fprint(w, "  apiserver requests from the election to the rollout's success:")
				for _, k := range sortedKeys(ro.Requests) {
					fmt.Fprintf(w, " %s %.0f;", k, ro.Requests[k])
				}
				fmt.Fprintln(w)
			}
		}
	}
	for _, s := range r.Sizes {
		if len(s.Faults) > 0 {
			fmt.Fprintf(w, "\nfault scenarios at N=%d (recovery: end of the fault → every changed source applied):\n", s.N)
			for _, f := range s.Faults {
				if f.Skipped {
					fmt.Fprintf(w, "  %s: %s\n", f.Name, f.Detail)
					continue
				}
				fmt.Fprintf(w, "  %s: converged=%v, recovery %.2fs (%s)\n", f.Name, f.Converged, f.Seconds, f.Detail)
			}
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintln(w, "note:", n)
	}
}

func printCPU(w io.Writer, title string, cpu map[string]float64) {
	if len(cpu) == 0 {
		return
	}
	fmt.Fprint(w, title)
	for _, name := range sortedKeys(cpu) {
		fmt.Fprintf(w, " %s %.1f", name, cpu[name])
	}
	fmt.Fprintln(w)
}

// roundsCell is "median (min–max)" of the rounds' seconds.
func roundsCell(rounds []Round, med float64, of func(Round) float64) string {
	lo, hi := of(rounds[0]), of(rounds[0])
	for _, r := range rounds {
		lo, hi = min(lo, of(r)), max(hi, of(r))
	}
	return fmt.Sprintf("%.1fs (%.1f–%.1f)", med, lo, hi)
}

func syncCell(f FirstSync) string {
	if f.Ready < f.N {
		return fmt.Sprintf("%.1fs (%d/%d Ready)", f.Seconds, f.Ready, f.N)
	}
	return fmt.Sprintf("%.1fs", f.Seconds)
}

func missed(l Latency) string {
	if l.Missed > 0 {
		return fmt.Sprintf(" (%d missed)", l.Missed)
	}
	return ""
}

// controllerPeak adds the peaks of flux-kcl-controller's own processes (not the apiserver's,
// etcd's or NATS's when NATS runs in the driver).
func controllerPeak(m map[string]procstat.Memory) int64 {
	var total int64
	for name, v := range m {
		if name != "kube-apiserver" && name != "etcd" {
			total += v.PeakBytes
		}
	}
	return total
}

// ControllerPeak is the summed peak RSS of flux-kcl-controller's processes.
func (s Size) ControllerPeak() int64 { return controllerPeak(s.Memory) }

func mib(b int64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", float64(b)/(1<<20))
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Summary is a one-line description of a size, for logs.
func (s Size) Summary() string {
	var b strings.Builder
	kcl, kust, of := s.KCL.Seconds, 0.0, ""
	if s.Kustomize != nil {
		kust = s.Kustomize.Seconds
	}
	if len(s.Rounds) > 1 {
		kcl, kust, of = s.KCLMedianSeconds, s.KustomizeMedianSeconds, fmt.Sprintf(" (median of %d rounds)", len(s.Rounds))
	}
	fmt.Fprintf(&b, "N=%d KCLRuns Ready in %.1fs", s.N, kcl)
	if kust > 0 {
		fmt.Fprintf(&b, ", Kustomizations in %.1fs (%.1f×)", kust, s.FirstSyncRatio)
	}
	b.WriteString(of)
	return b.String()
}
