package difftest

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/kcl/difftest/gen"
	"github.com/kcl-lang/flux-kcl-controller/kcl/difftest/oracle"
)

// The conformance suite: kcl/testdata/conformance/*.k hold many small
// programs ("chunks", separated by a line "---"), each followed by what the
// official engine 0.12.1 answers for it:
//
//	a = 1.0 / 3           the program (main.k)
//	### file: pkg/lib.k   optional further files of the program, up to the next ###
//	### arg: env=prod     optional -D arguments, one a line
//	### override: a.b-    optional -O overrides, one a line
//	### workdir: dev      optional work dir, below the program's directory (which
//	                      stays the root: entries may lie anywhere in it)
//	### entry: ../base.k  optional entry files, relative to the work dir, one a
//	                      line (default main.k)
//	### log:              optional print() output, each line prefixed "# "
//	### want:             the YAML, each line prefixed "# " ("#" for an empty line)
//	# a: 0.3333333333333333
//
// or, for a rejected program, "### error: Kind: first line of the message",
// which a chunk may follow with "### diagnostics:" for the whole list the
// official engine prints, in its order: each diagnostic a line
// "# Kind L:C message", each of its labels a line "#   L:C message"
// (first message lines; the file named when it is not main.k).
// A chunk this engine gets wrong today carries "### known-divergence: why";
// the test reports it as skipped with the reason (and logs when it passes again).
//
// The expectations are written by the official engine, never by hand:
//
//	cd kcl && go test ./difftest -run TestConformance -update
//
// rewrites every want/log/error from the oracle and re-tags the chunks this
// engine disagrees with (a tag with a hand-written reason is kept while the
// chunk still diverges).
var (
	update    = flag.Bool("update", false, "TestConformance: rewrite the expectations from the official engine")
	showKnown = flag.Bool("show-known", false, "TestConformance: print both answers of each known divergence")
	only      = flag.String("conformance", "*.k", "TestConformance: the files of the suite to run (and -update), a glob")
)

const conformanceDir = "../testdata/conformance"

type chunk struct {
	name   string // file:line
	source string // main.k
	files  map[string]string
	args   []string
	// overrides, workDir and entries: see invocation
	overrides []string
	workDir   string
	entries   []string
	known     string // known-divergence reason
	want      answer
	// fullList marks a chunk compared by its whole diagnostic list
	// (want.diags).
	fullList bool
	// comments and directives to keep on rewrite, in order
	head []string
}

func parseChunks(t *testing.T, path string) []*chunk {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []*chunk
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	start := 0
	for i := 0; i <= len(lines); i++ {
		if i < len(lines) && lines[i] != "---" {
			continue
		}
		c := parseChunk(lines[start:i])
		c.name = fmt.Sprintf("%s:%d", filepath.Base(path), start+1)
		out = append(out, c)
		start = i + 1
	}
	return out
}

func parseChunk(lines []string) *chunk {
	c := &chunk{files: map[string]string{}, want: answer{ok: true}}
	var main, cur []string
	file := ""
	flush := func() {
		if file != "" {
			c.files[file] = strings.Join(cur, "\n") + "\n"
		}
		cur, file = nil, ""
	}
	section := "" // "", "log", "want", "diagnostics"
	var log, want, diags []string
	for _, l := range lines {
		if d, ok := strings.CutPrefix(l, "### "); ok {
			name, arg, _ := strings.Cut(d, ":")
			arg = strings.TrimSpace(arg)
			switch name {
			case "file":
				flush()
				file = arg
				c.head = append(c.head, l)
				continue
			case "arg":
				flush()
				c.args = append(c.args, arg)
			case "override":
				flush()
				c.overrides = append(c.overrides, arg)
			case "workdir":
				flush()
				c.workDir = arg
			case "entry":
				flush()
				c.entries = append(c.entries, arg)
			case "known-divergence":
				flush()
				c.known = arg
			case "log", "want":
				flush()
				section = name
				c.want.ok = true
				continue
			case "diagnostics":
				flush()
				section = name
				c.fullList = true
				continue
			case "error":
				flush()
				c.want.ok = false
				c.want.kind, c.want.msg, _ = strings.Cut(arg, ":")
				c.want.msg = strings.TrimPrefix(c.want.msg, " ")
				continue
			}
			c.head = append(c.head, l)
			continue
		}
		switch {
		case section == "log":
			log = append(log, uncomment(l))
		case section == "want":
			want = append(want, uncomment(l))
		case section == "diagnostics":
			diags = append(diags, uncomment(l))
		case file != "":
			cur = append(cur, l)
			c.head = append(c.head, l)
		default:
			main = append(main, l)
		}
	}
	flush()
	c.source = strings.Join(main, "\n") + "\n"
	if len(log) > 0 {
		c.want.log = strings.Join(log, "\n") + "\n"
	}
	c.want.yaml = strings.Join(want, "\n")
	c.want.diags = strings.Join(diags, "\n")
	return c
}

func uncomment(l string) string {
	if l == "#" {
		return ""
	}
	return strings.TrimPrefix(l, "# ")
}

func comment(text string) string {
	var b strings.Builder
	for _, l := range strings.Split(text, "\n") {
		if l == "" {
			b.WriteString("#\n")
		} else {
			b.WriteString("# " + l + "\n")
		}
	}
	return b.String()
}

// render writes the chunk back with expectations want.
func (c *chunk) render() string {
	var b strings.Builder
	b.WriteString(c.source)
	for _, h := range c.head {
		if strings.HasPrefix(h, "### known-divergence:") {
			continue
		}
		b.WriteString(h + "\n")
	}
	if c.known != "" {
		b.WriteString("### known-divergence: " + c.known + "\n")
	}
	if !c.want.ok {
		fmt.Fprintf(&b, "### error: %s: %s\n", c.want.kind, c.want.msg)
		if c.fullList {
			b.WriteString("### diagnostics:\n")
			b.WriteString(comment(c.want.diags))
		}
		return b.String()
	}
	if c.want.log != "" {
		b.WriteString("### log:\n")
		b.WriteString(comment(strings.TrimSuffix(c.want.log, "\n")))
	}
	b.WriteString("### want:\n")
	if c.want.yaml != "" {
		b.WriteString(comment(c.want.yaml))
	}
	return b.String()
}

func (c *chunk) program() *gen.Program {
	p := &gen.Program{Files: map[string]string{"main.k": c.source}}
	for k, v := range c.files {
		p.Files[k] = v
	}
	for _, a := range c.args {
		name, v, _ := strings.Cut(a, "=")
		p.Args = append(p.Args, gen.Arg{Name: name, Value: argumentJSON(v)})
	}
	return p
}

// compare is "" when got matches the expectation, else why not.
func (c *chunk) compare(got answer) string {
	want := c.want
	switch {
	case want.ok && !got.ok:
		return "ours rejects it: " + got.kind + ": " + firstLine(got.msg)
	case !want.ok && got.ok:
		return "ours accepts it"
	case want.ok && strings.TrimRight(want.yaml, "\n") != strings.TrimRight(got.yaml, "\n"):
		return "ours prints other YAML"
	case want.ok && want.log != got.log:
		return "ours prints other print() output"
	case !want.ok && (want.kind != got.kind || want.msg != firstLine(got.msg)):
		return "ours: " + got.kind + ": " + firstLine(got.msg)
	case !want.ok && c.fullList && want.diags != got.diags:
		return "ours reports other diagnostics"
	}
	return ""
}

// withDiagnostics prints an answer with its diagnostic list, if full.
func (a answer) withDiagnostics(full bool) string {
	if !full || a.ok {
		return a.String()
	}
	return a.String() + "\n" + a.diags
}

func conformanceFiles(t *testing.T) []string {
	files, err := filepath.Glob(filepath.Join(conformanceDir, *only))
	if err != nil || len(files) == 0 {
		t.Fatalf("no conformance files in %s: %v", conformanceDir, err)
	}
	return files
}

func writeProgram(dir string, p *gen.Program) error {
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

// normalise makes an answer independent of the directory the program ran in.
func normalise(a answer, dir string) answer {
	a.msg = strings.ReplaceAll(strings.TrimSpace(firstLine(a.msg)), dir, "${DIR}")
	a.yaml = strings.ReplaceAll(a.yaml, dir, "${DIR}")
	a.diags = strings.ReplaceAll(a.diags, dir+string(filepath.Separator), "")
	a.diags = strings.ReplaceAll(a.diags, dir, "${DIR}")
	return a
}

func TestConformance(t *testing.T) {
	var srv *oracle.Server
	if *update {
		srv = oracleServer(t)
	}
	total, known := 0, 0
	for _, path := range conformanceFiles(t) {
		chunks := parseChunks(t, path)
		for i, c := range chunks {
			dir := filepath.Join(t.TempDir(), fmt.Sprintf("c%d", i))
			if err := writeProgram(dir, c.program()); err != nil {
				t.Fatal(err)
			}
			p := c.program()
			inv := invocation{workDir: c.workDir, files: c.entries, args: p.Args, overrides: c.overrides}
			got := normalise(oursRun(dir, inv), dir)
			if *update {
				want, err := officialRun(srv, dir, inv)
				if errors.Is(err, oracle.ErrTimeout) {
					// Keep no such case: its expectation cannot be known.
					t.Errorf("%s: the official engine does not answer; remove the case\n%s", c.name, c.source)
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				c.want = normalise(want, dir)
				if why := c.compare(got); why == "" {
					c.known = ""
				} else if c.known == "" || strings.HasPrefix(c.known, "ours") {
					c.known = why
				}
			}
			total++
			if c.known != "" {
				known++
			}
			t.Run(c.name, func(t *testing.T) {
				why := c.compare(got)
				if c.known != "" {
					if why == "" {
						t.Logf("passes now: remove the known-divergence tag (%s)", c.known)
						return
					}
					if *showKnown {
						fmt.Printf("=== %s: %s\n%s--- official:\n%s\n--- ours:\n%s\n\n", c.name, c.known, c.source, c.want.withDiagnostics(c.fullList), got.withDiagnostics(c.fullList))
					}
					t.Skipf("known divergence: %s", c.known)
				}
				if why != "" {
					t.Errorf("%s\n%s--- official:\n%s\n--- ours:\n%s", why, c.source, c.want.withDiagnostics(c.fullList), got.withDiagnostics(c.fullList))
				}
			})
		}
		if *update {
			var b bytes.Buffer
			for i, c := range chunks {
				if i > 0 {
					b.WriteString("---\n")
				}
				b.WriteString(c.render())
			}
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("conformance: %d cases, %d known divergences", total, known)
}
