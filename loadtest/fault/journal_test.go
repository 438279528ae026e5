package fault_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/loadtest/fault"
)

func TestJournalFindsOverlapsAndClosesKilledReconciles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal")
	lines := "enter 1 ns/a\n" +
		"enter 2 ns/b\n" +
		"exit 1 ns/a applied\n" +
		"enter 2 ns/a\n" + // fine: pid 1 left ns/a
		"killed 2\n" + // closes ns/a and ns/b of pid 2
		"enter 3 ns/a\n" +
		"enter 1 ns/a\n" + // overlap with pid 3
		"exit 3 ns/a noop\n"
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := fault.ReadJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Overlaps) != 1 || sum.Killed != 2 || sum.Reconciles["ns/a"] != 4 || sum.Total() != 5 {
		t.Fatalf("summary = %+v", sum)
	}
	if got := sum.Open["ns/a"]; len(got) != 1 || got[0] != 1 {
		t.Fatalf("open = %v", sum.Open)
	}
	if sum.Results["applied"] != 1 || sum.Results["noop"] != 1 {
		t.Fatalf("results = %v", sum.Results)
	}
}

func TestJournalWritesWholeLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal")
	j, err := fault.OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	j.Enter("ns/a")
	j.Exit("ns/a", "applied")
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if err := fault.RecordKill(path, 42); err != nil {
		t.Fatal(err)
	}
	sum, err := fault.ReadJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Total() != 1 || len(sum.Open) != 0 || len(sum.Overlaps) != 0 {
		t.Fatalf("summary = %s", sum)
	}
}
