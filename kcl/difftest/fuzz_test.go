package difftest

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kcl-lang/flux-kcl-controller/kcl"
	"github.com/kcl-lang/flux-kcl-controller/kcl/difftest/gen"
	"github.com/kcl-lang/flux-kcl-controller/kcl/difftest/oracle"
	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	"github.com/kcl-lang/flux-kcl-controller/kcl/eval"
)

// The long run:
//
//	cd kcl && go test -v ./difftest -run TestFuzzLong -timeout 0 -args -programs=100000 [-seed=N] [-duration=1h] [-save=DIR]
//
// prints the totals (programs, divergences by class, time) after every
// 1,000 programs (-v: without it go test keeps a passing test's output) and,
// with -save, writes each divergent program, minimised, with both engines'
// answers to DIR. Give each run its own -seed range so that runs add up to
// new programs.
var (
	fuzzPrograms     = flag.Int("programs", 0, "TestFuzzLong: programs to generate (0: only -duration bounds the run)")
	fuzzSeed         = flag.Int64("seed", 1, "TestFuzzLong: the first seed; program i has seed seed+i")
	fuzzDuration     = flag.Duration("duration", 0, "TestFuzzLong: stop after this long")
	fuzzSave         = flag.String("save", "", "TestFuzzLong: directory to write divergent programs to")
	fuzzShowRejected = flag.Bool("show-rejected", false, "TestFuzzLong: print why each program both engines reject was rejected")
	fuzzBroken       = flag.Float64("broken", 0.08, "TestFuzzLong: probability that a statement is made slightly wrong")
	fuzzLazy         = flag.Float64("lazy", 0.5, "TestFuzzLong: probability that a program holds the lazy-scope shapes")
	fuzzNested       = flag.Float64("nested", 0.3, "TestFuzzLong: probability that a program holds the nested-configuration shapes")
	fuzzShared       = flag.Float64("shared", 0.3, "TestFuzzLong: probability that a program holds the shapes of functions assigned again and shared values")
)

// shortPrograms bounds the run that is part of every `go test`.
const shortPrograms = 800

// answer is one engine's verdict on a program.
type answer struct {
	ok   bool
	yaml string
	log  string
	kind string // error kind when !ok
	msg  string
	// diags is every diagnostic of a rejection, one located line a line
	// (see the conformance suite's "### diagnostics:").
	diags string
}

func (a answer) String() string {
	if a.ok {
		s := a.yaml
		if a.log != "" {
			s = "print: " + a.log + "\n" + s
		}
		return "accepted:\n" + s
	}
	return "rejected: " + a.kind + ": " + a.msg
}

func ours(dir string, args []gen.Arg) answer {
	return oursRun(dir, invocation{args: args})
}

// invocation is how a program is run: by default main.k in the program's
// directory; a conformance chunk may name other entry files, a work dir below
// the program's directory (which then stands for the artifact: the root
// nothing outside of which is read) and -O overrides.
type invocation struct {
	workDir   string // relative to the program's directory; "" for itself
	files     []string
	args      []gen.Arg
	overrides []string
}

func (inv invocation) entries() []string {
	if len(inv.files) == 0 {
		return []string{"main.k"}
	}
	return inv.files
}

func oursRun(dir string, inv invocation) answer {
	var argv []string
	for _, a := range inv.args {
		argv = append(argv, a.Name+"="+a.Value)
	}
	var log bytes.Buffer
	res, err := kcl.Run(context.Background(), kcl.Options{
		WorkDir: filepath.Join(dir, inv.workDir), Root: dir, Files: inv.entries(), Arguments: argv,
		Overrides: inv.overrides, Stdout: &log,
		Limits: kcl.Limits{Timeout: 20 * time.Second},
	})
	if err != nil {
		var kerr *kcl.Error
		if errors.As(err, &kerr) {
			msg := kerr.Message
			if positionless(kerr) {
				msg = ""
			}
			return answer{kind: errkind.Printed(kerr.Kind), msg: msg, diags: oursDiagnostics(kerr, filepath.Join(dir, inv.workDir))}
		}
		return answer{kind: "GoError", msg: err.Error()}
	}
	return answer{ok: true, yaml: strings.TrimSuffix(string(res.YAML), "\n"), log: log.String()}
}

func official(srv *oracle.Server, dir string, args []gen.Arg) (answer, error) {
	return officialRun(srv, dir, invocation{args: args})
}

func officialRun(srv *oracle.Server, dir string, inv invocation) (answer, error) {
	req := oracle.Request{WorkDir: filepath.Join(dir, inv.workDir), Files: inv.entries(), Overrides: inv.overrides}
	for _, a := range inv.args {
		req.Args = append(req.Args, oracle.Arg{Name: a.Name, Value: a.Value})
	}
	r, err := srv.Run(req)
	if err != nil {
		return answer{}, err
	}
	if r.Error != "" {
		d := oracle.ParseError(r.Error)
		return answer{kind: d.Kind, msg: d.Message, diags: officialDiagnostics(r.Error, req.WorkDir)}, nil
	}
	// The engine's yamlResult is the document without its final newline
	// (`kcl run` prints it with one): trimmed once more, a document ending
	// in a string of newlines would lose one of its own.
	return answer{ok: true, yaml: r.YAML, log: r.Log}, nil
}

// diagnosticLine is one located line of a diagnostic list.
func diagnosticLine(indent, file string, line, col int, msg string) string {
	at := fmt.Sprint(line)
	if col > 0 {
		at += fmt.Sprintf(":%d", col)
	}
	if file != "" && file != "main.k" {
		at = file + ":" + at
	}
	return strings.TrimRight(indent+at+" "+firstLine(msg), " ")
}

// oursDiagnostics lists an error of this engine and those reported with it;
// files are named relative to workDir.
func oursDiagnostics(e *kcl.Error, workDir string) string {
	var lines []string
	// The CLI prints a line-only location at column 1, as 0.12.1 does.
	col := func(line, col int) int {
		if line > 0 && col <= 0 {
			return 1
		}
		return col
	}
	rel := func(f string) string {
		if r, err := filepath.Rel(workDir, f); err == nil && filepath.IsAbs(f) && !strings.HasPrefix(r, "..") {
			return r
		}
		return f
	}
	for _, d := range append([]*kcl.Error{e}, e.Also...) {
		if positionless(d) {
			lines = append(lines, diagnosticLine(errkind.Printed(d.Kind)+" ", rel(d.File), 1, 1, ""))
			continue
		}
		lines = append(lines, diagnosticLine(errkind.Printed(d.Kind)+" ", rel(d.File), d.Line, col(d.Line, d.Col), d.Message))
		for _, l := range d.Labels {
			lines = append(lines, diagnosticLine("  ", rel(l.File), l.Line, col(l.Line, l.Col), l.Message))
		}
	}
	return strings.Join(lines, "\n")
}

// positionless is a syntax error at the end of an empty line (column 0), which
// 0.12.1 prints as "--> file:1:1" without source line or message.
func positionless(e *kcl.Error) bool {
	return errkind.IsSyntax(e.Kind) && e.Line > 0 && e.Col == 0
}

// officialDiagnostics lists the official engine's rendered diagnostics the
// same way, its absolute files named relative to workDir.
func officialDiagnostics(text, workDir string) string {
	var lines []string
	for _, d := range oracle.Printed(text) {
		for i, l := range d.Lines {
			file := l.File
			if r, err := filepath.Rel(workDir, file); err == nil && !strings.HasPrefix(r, "..") {
				file = r
			}
			indent := "  "
			if i == 0 {
				indent = d.Kind + " "
			}
			lines = append(lines, diagnosticLine(indent, file, l.Line, l.Col, l.Message))
		}
	}
	return strings.Join(lines, "\n")
}

// divergence classifies how two answers differ; "" when they agree.
func divergence(want, got answer) string {
	switch {
	case want.ok && !got.ok:
		return "we reject (" + got.kind + ") what the official engine accepts"
	case !want.ok && got.ok:
		return "we accept what the official engine rejects (" + want.kind + ")"
	case want.ok:
		if want.yaml != got.yaml {
			return "output differs"
		}
		if want.log != got.log {
			return "print output differs"
		}
	case want.kind != got.kind:
		return "error kind differs (official " + want.kind + ", ours " + got.kind + ")"
	}
	return ""
}

// known are divergences that cannot sensibly be copied from the official
// engine, each with its reason and a minimal program; a divergence one of
// them matches is reported, not failed. Every other divergence the fuzzer
// found became a conformance case (testdata/conformance) and was fixed.
var known = []struct {
	reason string
	match  func(class, source string, want, got answer) bool
}{
	{
		// float ** is the C library's pow in the official add-on (glibc's,
		// under 0.52 ULP): at a halfway square such as
		// float(123456789) ** 2 it rounds either way, where Go's math.Pow
		// is correctly rounded (testdata/conformance/floats.k).
		reason: "float ** rounds like glibc's pow (1 ULP)",
		match: func(class, source string, want, got answer) bool {
			return want.ok && got.ok && strings.Contains(source, "**") && onlyULPApart(want.yaml, got.yaml)
		},
	},
}

// onlyULPApart reports two documents that differ only in numbers a float
// step apart (a float, or an int made from one by math.floor and friends).
func onlyULPApart(a, b string) bool {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	if len(al) != len(bl) || a == b {
		return false
	}
	for i := range al {
		if al[i] == bl[i] {
			continue
		}
		ka, va, okA := strings.Cut(al[i], ": ")
		kb, vb, okB := strings.Cut(bl[i], ": ")
		if !okA || !okB || ka != kb {
			return false
		}
		x, errX := strconv.ParseFloat(strings.TrimSpace(va), 64)
		y, errY := strconv.ParseFloat(strings.TrimSpace(vb), 64)
		if errX != nil || errY != nil || (math.Nextafter(x, y) != y && math.Nextafter(math.Nextafter(x, y), y) != y) {
			return false
		}
	}
	return true
}

func knownReason(class, source string, want, got answer) string {
	for _, k := range known {
		if k.match(class, source, want, got) {
			return k.reason
		}
	}
	return ""
}

type fuzzer struct {
	srv    *oracle.Server
	tmp    string
	n      int
	counts map[string]int
	found  []finding
}

type finding struct {
	seed      int64
	class     string
	reason    string // non-empty when known
	source    string
	want, got answer
	minimised string
}

func (f *fuzzer) write(p *gen.Program, dir string) error {
	for name, src := range p.Files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// check runs p through both engines.
func (f *fuzzer) check(p *gen.Program) (class string, want, got answer, err error) {
	f.n++
	// A fresh directory each time: neither engine may serve a cached file.
	dir := filepath.Join(f.tmp, fmt.Sprintf("p%d", f.n))
	defer os.RemoveAll(dir)
	if err := f.write(p, dir); err != nil {
		return "", answer{}, answer{}, err
	}
	want, err = official(f.srv, dir, p.Args)
	if err != nil {
		return "", answer{}, answer{}, err
	}
	got = ours(dir, p.Args)
	return divergence(want, got), want, got, nil
}

// minimise drops top-level statements of main.k (a line at column 0 with its
// indented continuation) while the program keeps diverging the same way.
func (f *fuzzer) minimise(p *gen.Program, class string) *gen.Program {
	cur := p
	for changed := true; changed; {
		changed = false
		blocks := topLevelBlocks(cur.Files["main.k"])
		for i := len(blocks) - 1; i >= 0; i-- {
			cand := &gen.Program{Files: map[string]string{}, Args: cur.Args}
			for k, v := range cur.Files {
				cand.Files[k] = v
			}
			cand.Files["main.k"] = strings.Join(append(append([]string{}, blocks[:i]...), blocks[i+1:]...), "")
			c, _, _, err := f.check(cand)
			if err == nil && c == class {
				cur, blocks, changed = cand, append(blocks[:i:i], blocks[i+1:]...), true
			}
		}
	}
	return cur
}

func topLevelBlocks(src string) []string {
	var blocks []string
	for _, l := range strings.SplitAfter(src, "\n") {
		if l == "" {
			continue
		}
		if len(blocks) > 0 && (l[0] == ' ' || l[0] == '}' || l[0] == ']' || l[0] == ')' || strings.HasPrefix(l, "else") || strings.HasPrefix(l, "elif") || strings.HasPrefix(l, "\"\"\"") || strings.HasPrefix(l, "second line")) {
			blocks[len(blocks)-1] += l
			continue
		}
		blocks = append(blocks, l)
	}
	return blocks
}

func (f *fuzzer) run(t *testing.T, first int64, programs int, until time.Time, opts gen.Options) {
	for i := 0; programs == 0 || i < programs; i++ {
		if !until.IsZero() && time.Now().After(until) {
			break
		}
		seed := first + int64(i)
		p := gen.New(seed, opts)
		class, want, got, err := f.check(p)
		if errors.Is(err, oracle.ErrTimeout) {
			f.counts["programs"]++
			f.counts["official engine timed out (not compared)"]++
			continue
		}
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		f.counts["programs"]++
		if p.Lazy {
			f.counts["lazy shapes: programs"]++
			if class == "" && want.ok {
				f.counts["lazy shapes: agreed, accepted"]++
			}
		}
		if p.Nested {
			f.counts["nested shapes: programs"]++
			if class == "" && want.ok {
				f.counts["nested shapes: agreed, accepted"]++
			}
		}
		if p.Shared {
			f.counts["shared shapes: programs"]++
			if class == "" && want.ok {
				f.counts["shared shapes: agreed, accepted"]++
			}
		}
		if class == "" {
			if want.ok {
				f.counts["agreed, accepted"]++
			} else {
				f.counts["agreed, rejected"]++
				if *fuzzShowRejected {
					fmt.Printf("=== rejected by both (seed %d): %s: %s\n", seed, want.kind, firstLine(want.msg))
				}
			}
			continue
		}
		f.counts["divergences"]++
		f.counts[class]++
		fd := finding{seed: seed, class: class, reason: knownReason(class, p.Source(), want, got), source: p.Source(), want: want, got: got}
		if fd.reason != "" {
			f.counts["  known: "+fd.reason]++
		} else {
			f.counts["  not known"]++
		}
		if fd.reason == "" || *fuzzSave != "" {
			fd.minimised = f.minimise(p, class).Source()
		}
		f.found = append(f.found, fd)
	}
}

func newFuzzer(t *testing.T) *fuzzer {
	return &fuzzer{srv: oracleServer(t), tmp: t.TempDir(), counts: map[string]int{}}
}

func (f *fuzzer) report(t *testing.T, elapsed time.Duration) {
	var keys []string
	for k := range f.counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "fuzz: %d programs in %s\n", f.counts["programs"], elapsed.Round(time.Second))
	for _, k := range keys {
		if k != "programs" {
			fmt.Fprintf(&b, "  %6d  %s\n", f.counts[k], k)
		}
	}
	t.Log(b.String())
	fmt.Print(b.String())
}

func describe(fd finding) string {
	src := fd.minimised
	if src == "" {
		src = fd.source
	}
	return fmt.Sprintf("seed %d: %s\n%s--- official: %s\n--- ours: %s\n", fd.seed, fd.class, src, fd.want, fd.got)
}

// TestFuzzShort is the seeded, bounded differential run of every `go test`.
func TestFuzzShort(t *testing.T) {
	f := newFuzzer(t)
	start := time.Now()
	f.run(t, 1, shortPrograms, time.Time{}, gen.Options{Broken: 0.04, Lazy: 0.5, Nested: 0.3, Shared: 0.3})
	for _, fd := range f.found {
		if fd.reason != "" {
			t.Logf("known divergence (%s): %s", fd.reason, describe(fd))
			continue
		}
		t.Errorf("divergence: %s", describe(fd))
	}
	f.report(t, time.Since(start))
}

// TestFuzzLong is the documented long run (see the flags above); it does not
// fail on divergences, it reports them.
func TestFuzzLong(t *testing.T) {
	if *fuzzPrograms == 0 && *fuzzDuration == 0 {
		t.Skip("give -programs=N or -duration=D")
	}
	// Each program is new source: a small parse cache keeps a run of hours
	// from holding gigabytes of ASTs.
	eval.SetParseCacheLimit(4 << 20)
	f := newFuzzer(t)
	start := time.Now()
	var until time.Time
	if *fuzzDuration > 0 {
		until = start.Add(*fuzzDuration)
	}
	// Report in chunks so that a long run shows its progress.
	const chunk = 1000
	seed := *fuzzSeed
	for done := 0; *fuzzPrograms == 0 || done < *fuzzPrograms; done += chunk {
		n := chunk
		if *fuzzPrograms > 0 && *fuzzPrograms-done < n {
			n = *fuzzPrograms - done
		}
		before := len(f.found)
		f.run(t, seed, n, until, gen.Options{Broken: *fuzzBroken, Lazy: *fuzzLazy, Nested: *fuzzNested, Shared: *fuzzShared})
		seed += int64(n)
		for _, fd := range f.found[before:] {
			text := describe(fd)
			if fd.reason != "" {
				text = "(known: " + fd.reason + ") " + text
			}
			fmt.Printf("=== divergence %s\n", text)
			if *fuzzSave != "" {
				os.MkdirAll(*fuzzSave, 0o755)
				os.WriteFile(filepath.Join(*fuzzSave, fmt.Sprintf("seed-%d.txt", fd.seed)), []byte(text), 0o644)
			}
		}
		f.found = f.found[:0]
		f.report(t, time.Since(start))
		if !until.IsZero() && time.Now().After(until) {
			break
		}
	}
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
