package driver_test

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/kcl-lang/flux-kcl-controller/loadtest/driver"
	"github.com/kcl-lang/flux-kcl-controller/loadtest/report"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/kube"
)

var env *kube.Env

func TestMain(m *testing.M) {
	if driver.IsCompileUnit() {
		os.Exit(driver.RunCompileUnit())
	}
	ctrllog.SetLogger(logr.Discard())
	flag.Parse()
	if testing.Short() {
		os.Exit(m.Run())
	}
	var err error
	if env, err = kube.Start(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "loadtest: starting kube-apiserver:", err)
		os.Exit(1)
	}
	code := m.Run()
	if err := env.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "loadtest: stopping kube-apiserver:", err)
	}
	os.Exit(code)
}

// TestSmoke runs the whole driver small (20 KCLRuns, the controller and compiler workers in
// this process), the ImageRollout scenario included, so it cannot rot: everything converges
// and the report and charts are written.
// It asserts no speed; make loadtest measures.
func TestSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("needs kube-apiserver")
	}
	out := t.TempDir()
	opts := driver.DefaultOptions()
	opts.Kubeconfig = env.Kubeconfig()
	opts.Sizes = []int{20}
	opts.Mode = driver.ModeInProcess
	opts.PolicyChanges, opts.SourceChanges = 5, 5
	opts.Burst, opts.BurstRounds = 20, 2
	opts.Rollout = true
	opts.SteadyWindow = 2 * time.Second
	opts.ScaleOutWorkers, opts.ScaleOutCompiles, opts.ScaleOutInProcess = []int{1, 2}, 16, true
	opts.Faults, opts.FaultOutage, opts.FaultChanges = []string{driver.FaultArtifactServer}, time.Second, 3
	opts.OutDir = out
	opts.Logf = t.Logf

	r, err := driver.Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Sizes) != 1 {
		t.Fatalf("got %d sizes, want 1", len(r.Sizes))
	}
	s := r.Sizes[0]
	if s.KCL.Ready != 20 {
		t.Errorf("%d of 20 KCLRuns Ready", s.KCL.Ready)
	}
	if len(s.Policy.Samples) != 5 || s.Policy.Missed != 0 {
		t.Errorf("policy changes: %d arrived, %d missed, want 5 and 0", len(s.Policy.Samples), s.Policy.Missed)
	}
	if len(s.Source.Samples) != 5 || s.Source.Missed != 0 {
		t.Errorf("source changes: %d arrived, %d missed, want 5 and 0", len(s.Source.Samples), s.Source.Missed)
	}
	if b := s.Burst; b == nil || len(b.Quiet.Samples) != 2 || b.Quiet.Missed != 0 || len(b.BurstSeconds) != 2 {
		t.Errorf("burst: %+v, want 2 rounds, each quiet change and burst applied", b)
	}
	if b := s.BadInput; b == nil || b.HealthyReady != 20 {
		t.Errorf("bad input: %+v, want 20 healthy KCLRuns Ready beside the broken ones", b)
	} else {
		for _, k := range b.Kinds {
			if k.Reported != k.Count || k.Count == 0 {
				t.Errorf("bad input %s: %d of %d reported %s; last %s: %s", k.Name, k.Reported, k.Count, k.WantReason, k.Reason, k.Message)
			}
		}
	}
	if ro := s.Rollout; ro == nil || !ro.Converged {
		t.Errorf("rollout: %+v, want the election rolled out to every stage", ro)
	} else {
		for _, st := range ro.Stages {
			if st.KCLRuns == 0 || st.Ready != st.KCLRuns || st.Applied != st.KCLRuns {
				t.Errorf("rollout stage %s: %d applied, %d Ready of %d KCLRuns", st.Name, st.Applied, st.Ready, st.KCLRuns)
			}
		}
		if len(ro.CanaryApplied.Samples) != ro.Stages[0].KCLRuns {
			t.Errorf("rollout: %d canary applies seen, want %d", len(ro.CanaryApplied.Samples), ro.Stages[0].KCLRuns)
		}
	}
	if s.Steady == nil || len(s.Memory) == 0 {
		t.Errorf("steady state %v, memory %v: want both measured", s.Steady, s.Memory)
	}
	if len(s.Faults) != 1 || !s.Faults[0].Converged {
		t.Errorf("faults: %+v, want the artifact server outage converged", s.Faults)
	}
	if len(r.ScaleOut) != 2 {
		t.Errorf("scale-out: %d rounds, want 2", len(r.ScaleOut))
	}
	if len(r.ScaleOutIsolated) != 2 {
		t.Errorf("isolated scale-out: %d worker counts, want 2", len(r.ScaleOutIsolated))
	}

	var decoded report.Report
	data, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &decoded); err != nil {
		t.Fatalf("report.json: %v", err)
	}
	for _, name := range []string{"first-sync.svg", "latency.svg"} {
		svg, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := xml.Unmarshal(svg, new(struct{})); err != nil {
			t.Errorf("%s is not well-formed XML: %v", name, err)
		}
	}
}
