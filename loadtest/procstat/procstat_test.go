package procstat

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestOwnProcess(t *testing.T) {
	// The kernel counts CPU time in clock ticks, sampled: on a loaded machine a short busy
	// loop can be charged nothing, so spin until a tick lands (bounded by work, not time).
	busy := 0
	var cpu time.Duration
	for round := 0; round < 500 && cpu <= 0; round++ {
		for i := range 20_000_000 {
			busy += i % 7
		}
		var err error
		if cpu, err = CPU(os.Getpid()); err != nil {
			t.Fatal(err)
		}
	}
	_ = busy
	if cpu <= 0 {
		t.Errorf("CPU time %v after a busy loop", cpu)
	}
	m, err := ReadMemory(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if m.RSSBytes <= 0 || m.PeakBytes < m.RSSBytes {
		t.Errorf("memory %+v: want RSS > 0 and peak >= RSS", m)
	}
}

func TestSumFiltersByLabel(t *testing.T) {
	fams, err := Parse(strings.NewReader(`# TYPE apiserver_request_total counter
apiserver_request_total{verb="PATCH",resource="deployments"} 3
apiserver_request_total{verb="GET",resource="deployments"} 40
apiserver_request_total{verb="APPLY",resource="configmaps"} 2
`))
	if err != nil {
		t.Fatal(err)
	}
	if got := fams.Sum("apiserver_request_total", Label("verb", "patch", "apply")); got != 5 {
		t.Errorf("writes = %v, want 5", got)
	}
	if got := fams.Sum("apiserver_request_total", nil); got != 45 {
		t.Errorf("all = %v, want 45", got)
	}
	if got := fams.Sum("missing_total", nil); got != 0 {
		t.Errorf("missing = %v, want 0", got)
	}
}
