// Package memorylimit gives the Go runtime a soft memory limit (runtime/debug.SetMemoryLimit)
// at process start. Without one the garbage collector lets the heap grow to twice the live
// heap (GOGC=100) whatever the memory available: at 10,000 KCLRuns the all-in-one process
// peaked at 2.5× its live heap. With a limit the collector runs earlier as the limit nears,
// and the process stays below it while the live heap fits.
//
// In order: GOMEMLIMIT, when set, is the runtime's own and is left alone; --memory-limit
// with a size sets that; "auto" (the default) takes 90 % of the cgroup's memory limit (a
// container's limits.memory, as github.com/KimMachineGun/automemlimit does) or, outside a
// limited cgroup, the binary's fallback; "off" sets none.
package memorylimit

import (
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strings"

	"github.com/go-logr/logr"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/api/resource"
)

// cgroupShare is the part of a cgroup limit given to the Go runtime: the rest is for what it
// does not count (cgo, the binary's mapped pages) and for the collector to catch up
// before the kernel kills the process.
const cgroupShare = 0.9

// Config is the --memory-limit flag and the limit "auto" falls back to.
type Config struct {
	// Limit is "auto", "off" or a size: 400MiB (GOMEMLIMIT's spelling) or 400Mi.
	Limit string
	// Fallback is the limit "auto" sets outside a limited cgroup, in bytes; 0 sets none.
	Fallback int64
}

// DefaultConfig is "auto" with the given fallback.
func DefaultConfig(fallback int64) Config { return Config{Limit: "auto", Fallback: fallback} }

// BindFlags registers --memory-limit.
func (c *Config) BindFlags(fs *pflag.FlagSet) {
	fallback := "no limit"
	if c.Fallback > 0 {
		fallback = formatBytes(c.Fallback)
	}
	fs.StringVar(&c.Limit, "memory-limit", c.Limit, fmt.Sprintf("Soft memory limit of the Go runtime: a size (400MiB, 1Gi), \"off\", or \"auto\": 90%% of the cgroup's memory limit (a container's limits.memory), outside one %s. GOMEMLIMIT, when set, takes precedence.", fallback))
}

// Result is the limit set and where it came from, for the start-up log.
type Result struct {
	// Bytes is the limit in force; 0 when there is none.
	Bytes int64
	// Source is GOMEMLIMIT, flag, cgroup, fallback or off.
	Source string
}

func (r Result) String() string {
	if r.Bytes == 0 {
		return "none (" + r.Source + ")"
	}
	return formatBytes(r.Bytes) + " (" + r.Source + ")"
}

// Apply sets the limit the config names, reading the cgroup limits of this process, and logs
// it once.
func (c Config) Apply(log logr.Logger) error {
	r, err := c.resolve(os.Getenv("GOMEMLIMIT"), cgroupLimit)
	if err != nil {
		return err
	}
	switch {
	case r.Source == "GOMEMLIMIT":
		if n := debug.SetMemoryLimit(-1); n != math.MaxInt64 {
			r.Bytes = n
		}
	case r.Bytes > 0:
		debug.SetMemoryLimit(r.Bytes)
	}
	log.Info("Go runtime memory limit", "limit", r.String())
	return nil
}

// resolve decides the limit without setting it; cgroup returns the cgroup's limit in bytes,
// 0 when there is none.
func (c Config) resolve(env string, cgroup func() (int64, error)) (Result, error) {
	if env != "" {
		return Result{Source: "GOMEMLIMIT"}, nil
	}
	switch v := strings.TrimSpace(c.Limit); v {
	case "off", "0":
		return Result{Source: "off"}, nil
	case "", "auto":
		limit, err := cgroup()
		if err != nil {
			return Result{}, fmt.Errorf("reading the cgroup memory limit: %w", err)
		}
		if limit > 0 {
			return Result{Bytes: int64(float64(limit) * cgroupShare), Source: "cgroup"}, nil
		}
		if c.Fallback > 0 {
			return Result{Bytes: c.Fallback, Source: "fallback"}, nil
		}
		return Result{Source: "no cgroup limit"}, nil
	default:
		n, err := ParseSize(v)
		if err != nil {
			return Result{}, fmt.Errorf("--memory-limit: %w", err)
		}
		return Result{Bytes: n, Source: "flag"}, nil
	}
}

// ParseSize reads a size in GOMEMLIMIT's spelling (400MiB, 1GiB, 512B) or as a Kubernetes
// quantity (400Mi, 1G).
func ParseSize(s string) (int64, error) {
	q := s
	if strings.HasSuffix(q, "iB") {
		q = strings.TrimSuffix(q, "B")
	} else if strings.HasSuffix(q, "B") && len(q) > 1 && q[len(q)-2] >= '0' && q[len(q)-2] <= '9' {
		q = strings.TrimSuffix(q, "B")
	}
	qty, err := resource.ParseQuantity(q)
	if err != nil {
		return 0, fmt.Errorf("size %q: %w", s, err)
	}
	n, ok := qty.AsInt64()
	if !ok || n <= 0 {
		return 0, fmt.Errorf("size %q: not a positive number of bytes", s)
	}
	return n, nil
}

func formatBytes(n int64) string {
	switch {
	case n%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", n>>30)
	case n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	default:
		return fmt.Sprintf("%.0fMiB", math.Round(float64(n)/(1<<20)))
	}
}
