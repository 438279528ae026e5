package report

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
)

func TestLatencyPercentilesAreNearestRank(t *testing.T) {
	var samples []float64
	for i := 100; i >= 1; i-- {
		samples = append(samples, float64(i)/1000)
	}
	l := NewLatency(samples, 2)
	if l.P50 != 0.050 || l.P95 != 0.095 || l.P99 != 0.099 || l.Max != 0.100 || l.Missed != 2 {
		t.Errorf("got p50 %v p95 %v p99 %v max %v missed %d", l.P50, l.P95, l.P99, l.Max, l.Missed)
	}
	if got := NewLatency(nil, 0); got.P99 != 0 {
		t.Errorf("empty latency has p99 %v", got.P99)
	}
}

func TestChartIsWellFormedSVGWithLegendAndAxes(t *testing.T) {
	r := &Report{Sizes: []Size{{
		N:         3,
		KCL:       FirstSync{N: 3, Ready: 3, Seconds: 2, Curve: []Point{{0, 0}, {1, 1}, {1.5, 2}, {2, 3}}},
		Kustomize: &FirstSync{N: 3, Ready: 3, Seconds: 9, Curve: []Point{{0, 0}, {9, 3}}},
		Policy:    NewLatency([]float64{0.1, 0.2}, 0),
		Source:    NewLatency([]float64{0.3}, 1),
	}}}
	for _, c := range []Chart{r.FirstSyncChart(), r.LatencyChart()} {
		var b bytes.Buffer
		if err := c.WriteSVG(&b); err != nil {
			t.Fatal(err)
		}
		if err := xml.Unmarshal(b.Bytes(), new(struct{})); err != nil {
			t.Errorf("%s: not well-formed: %v", c.Title, err)
		}
		for _, s := range c.Series {
			if !strings.Contains(b.String(), s.Name) {
				t.Errorf("%s: legend lacks %q", c.Title, s.Name)
			}
		}
		if !strings.Contains(b.String(), c.XLabel) || !strings.Contains(b.String(), c.YLabel) {
			t.Errorf("%s: axis labels missing", c.Title)
		}
	}
}

func TestNiceSteps(t *testing.T) {
	for max, want := range map[float64]float64{100: 20, 7: 2, 0.3: 0.05, 250: 50, 1234: 500} {
		if got := niceStep(max); got != want {
			t.Errorf("niceStep(%v) = %v, want %v", max, got, want)
		}
	}
}

// The ratios compare medians of the rounds, so one slow round (a busy host)
// moves neither side's figure.
func TestSummarizeTakesMediansOfRounds(t *testing.T) {
	s := Size{N: 10, Rounds: []Round{
		{KCLSeconds: 30, KustomizeSeconds: 120, KCLCPUSeconds: 50, KustomizeCPUSeconds: 220},
		{KCLSeconds: 45, KustomizeSeconds: 110, KCLCPUSeconds: 70, KustomizeCPUSeconds: 200},
		{KCLSeconds: 25, KustomizeSeconds: 125, KCLCPUSeconds: 45, KustomizeCPUSeconds: 230},
	}}
	s.Summarize()
	if s.KCLMedianSeconds != 30 || s.KustomizeMedianSeconds != 120 {
		t.Fatalf("medians %v/%v, want 30/120", s.KCLMedianSeconds, s.KustomizeMedianSeconds)
	}
	if s.FirstSyncRatio != 4 {
		t.Fatalf("ratio %v, want 4", s.FirstSyncRatio)
	}
	if s.CPURatio != 220.0/50 {
		t.Fatalf("CPU ratio %v, want %v", s.CPURatio, 220.0/50)
	}
	if got := NewRound(FirstSync{Seconds: 3, CPUSeconds: map[string]float64{"driver": 5, "etcd": 1, "kube-apiserver": 2}}, nil); got.KCLCPUSeconds != 3 {
		t.Fatalf("round CPU %v, want 3 (driver left out)", got.KCLCPUSeconds)
	}
}
