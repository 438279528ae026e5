// Package procstat reads what the load test measures from outside a process: CPU time from
// /proc/<pid>/stat, resident memory from /proc/<pid>/status, and counters from a Prometheus
// text endpoint.
package procstat

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTicks is USER_HZ, 100 on every Linux the project runs on.
const clockTicks = 100

// CPU is the user+system CPU time a process has used so far.
func CPU(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("reading the CPU time of process %d: %w", pid, err)
	}
	// The command name may hold spaces and parentheses: fields start after the last ')'.
	end := bytes.LastIndexByte(data, ')')
	if end < 0 {
		return 0, fmt.Errorf("parsing /proc/%d/stat: no command name", pid)
	}
	fields := strings.Fields(string(data[end+1:]))
	// utime and stime are fields 14 and 15 of stat(5); fields[0] here is field 3.
	if len(fields) < 13 {
		return 0, fmt.Errorf("parsing /proc/%d/stat: %d fields", pid, len(fields))
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("parsing /proc/%d/stat: utime %q stime %q", pid, fields[11], fields[12])
	}
	return time.Duration(utime+stime) * time.Second / clockTicks, nil
}

// Memory is a process's resident set: now and its peak (VmHWM).
type Memory struct {
	RSSBytes  int64 `json:"rssBytes"`
	PeakBytes int64 `json:"peakBytes"`
}

// ReadMemory reads VmRSS and VmHWM from /proc/<pid>/status.
func ReadMemory(pid int) (Memory, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return Memory{}, fmt.Errorf("reading the memory of process %d: %w", pid, err)
	}
	defer f.Close()
	var m Memory
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		key, value, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		var dst *int64
		switch key {
		case "VmRSS":
			dst = &m.RSSBytes
		case "VmHWM":
			dst = &m.PeakBytes
		default:
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		if err != nil {
			return Memory{}, fmt.Errorf("parsing %s of process %d: %w", key, pid, err)
		}
		*dst = kb << 10
	}
	return m, sc.Err()
}

// Descendants lists the processes below pid (children, grandchildren...) whose command name
// (comm) is one of names, name → pid; the first found wins. The load test finds the
// kube-apiserver and etcd envtest started for it this way.
func Descendants(pid int, names ...string) (map[string]int, error) {
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		return nil, fmt.Errorf("listing processes: %w", err)
	}
	parent := map[int]int{}
	comm := map[int]string{}
	for _, path := range stats {
		data, err := os.ReadFile(path)
		if err != nil {
			continue // gone meanwhile
		}
		open, end := bytes.IndexByte(data, '('), bytes.LastIndexByte(data, ')')
		if open < 0 || end < open {
			continue
		}
		p, _ := strconv.Atoi(strings.TrimSpace(string(data[:open])))
		fields := strings.Fields(string(data[end+1:]))
		if len(fields) < 2 {
			continue
		}
		pp, _ := strconv.Atoi(fields[1])
		parent[p], comm[p] = pp, string(data[open+1:end])
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	found := map[string]int{}
	for p, c := range comm {
		if !want[c] || found[c] != 0 {
			continue
		}
		for q, hops := parent[p], 0; q > 0 && hops < 64; q, hops = parent[q], hops+1 {
			if q == pid {
				found[c] = p
				break
			}
		}
	}
	return found, nil
}
