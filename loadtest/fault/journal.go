package fault

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Journal appends a line for every reconcile entering and leaving a KCLRun's lease. Every
// applier process appends to the same file with O_APPEND, one write per line, so the file's
// order is the order of the events across processes: no clocks are compared.
//
//	enter <pid> <key>
//	exit <pid> <key> <result>
//	killed <pid>
type Journal struct {
	mu  sync.Mutex
	f   *os.File
	pid int
}

// OpenJournal opens path for appending, creating it if needed.
func OpenJournal(path string) (*Journal, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening reconcile journal: %w", err)
	}
	return &Journal{f: f, pid: os.Getpid()}, nil
}

// Enter records that this process started a reconcile of key ("namespace/name").
func (j *Journal) Enter(key string) { j.write(fmt.Sprintf("enter %d %s\n", j.pid, key)) }

// Exit records that the reconcile of key ended with result.
func (j *Journal) Exit(key, result string) {
	if result == "" {
		result = "-"
	}
	j.write(fmt.Sprintf("exit %d %s %s\n", j.pid, key, result))
}

// Close closes the file.
func (j *Journal) Close() error { return j.f.Close() }

func (j *Journal) write(line string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	// One write per line: O_APPEND keeps lines of several processes whole and ordered.
	_, _ = j.f.WriteString(line)
}

// RecordKill appends that pid was killed: its open reconciles ended there.
func RecordKill(path string, pid int) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("opening reconcile journal: %w", err)
	}
	_, err = fmt.Fprintf(f, "killed %d\n", pid)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("recording kill of %d: %w", pid, err)
	}
	return nil
}

// JournalSummary is what a journal shows.
type JournalSummary struct {
	// Reconciles counts the reconciles that entered, per key.
	Reconciles map[string]int
	// Results counts the reconciles that ended, per result (applied, noop, failed...).
	Results map[string]int
	// Overlaps lists every time a key was entered while another reconcile held it, as
	// "key: pid A entered while pid B held it" — never expected.
	Overlaps []string
	// Killed counts the reconciles cut by a kill.
	Killed int
	// Open holds, per key, the pids of reconciles with no exit and no kill (a process still
	// inside a reconcile, or one that died without a recorded kill).
	Open map[string][]int
}

// ReadJournal reads and checks the journal at path.
func ReadJournal(path string) (*JournalSummary, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading reconcile journal: %w", err)
	}
	defer f.Close()
	sum := &JournalSummary{Reconciles: map[string]int{}, Results: map[string]int{}}
	holders := map[string][]int{} // key → pids inside a reconcile of it
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 {
			return nil, fmt.Errorf("reconcile journal line %d: %q", n, sc.Text())
		}
		pid, err := strconv.Atoi(fields[1])
		if err != nil {
			return nil, fmt.Errorf("reconcile journal line %d: %w", n, err)
		}
		switch {
		case fields[0] == "enter" && len(fields) == 3:
			key := fields[2]
			for _, other := range holders[key] {
				sum.Overlaps = append(sum.Overlaps, fmt.Sprintf("%s: pid %d entered while pid %d held it (line %d)", key, pid, other, n))
			}
			holders[key] = append(holders[key], pid)
			sum.Reconciles[key]++
		case fields[0] == "exit" && len(fields) == 4:
			holders[fields[2]] = removeOne(holders[fields[2]], pid)
			sum.Results[fields[3]]++
		case fields[0] == "killed":
			for key, pids := range holders {
				for _, p := range pids {
					if p == pid {
						sum.Killed++
					}
				}
				holders[key] = removeAll(pids, pid)
			}
		default:
			return nil, fmt.Errorf("reconcile journal line %d: %q", n, sc.Text())
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading reconcile journal: %w", err)
	}
	sum.Open = map[string][]int{}
	for key, pids := range holders {
		if len(pids) > 0 {
			sum.Open[key] = pids
		}
	}
	return sum, nil
}

// Total is the number of reconciles that entered.
func (s *JournalSummary) Total() int {
	n := 0
	for _, c := range s.Reconciles {
		n += c
	}
	return n
}

// String summarises the journal in one line.
func (s *JournalSummary) String() string {
	results := make([]string, 0, len(s.Results))
	for r, n := range s.Results {
		results = append(results, fmt.Sprintf("%s=%d", r, n))
	}
	sort.Strings(results)
	return fmt.Sprintf("%d reconciles of %d KCLRuns (%s), %d cut by a kill, %d open, %d overlaps",
		s.Total(), len(s.Reconciles), strings.Join(results, " "), s.Killed, len(s.Open), len(s.Overlaps))
}

func removeOne(pids []int, pid int) []int {
	for i, p := range pids {
		if p == pid {
			return append(pids[:i:i], pids[i+1:]...)
		}
	}
	return pids
}

func removeAll(pids []int, pid int) []int {
	out := pids[:0:0]
	for _, p := range pids {
		if p != pid {
			out = append(out, p)
		}
	}
	return out
}
