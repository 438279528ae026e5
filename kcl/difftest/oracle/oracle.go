// Package oracle runs KCL programs through the official engine 0.12.1 (the npm
// add-on, driven by node) for the differential tests: one node process serves
// many programs, one request a line.
package oracle

import (
	"bufio"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
)

//go:embed oracle.js
var script []byte

// ErrAbsent means the official engine (or node) is not installed.
var ErrAbsent = errors.New("the official engine is not installed")

// Modules finds the node_modules directory holding the official engine: in
// KCL_ORACLE_DIR or the user cache kcl/hack/oracle.sh fills. With install set it
// runs oracle.sh when the engine is missing.
func Modules(install bool) (string, error) {
	if _, err := exec.LookPath("node"); err != nil {
		return "", fmt.Errorf("%w: node is not on PATH", ErrAbsent)
	}
	dir := os.Getenv("KCL_ORACLE_DIR")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "flux-kcl-controller", "kcl-official")
	}
	modules := filepath.Join(dir, "node_modules")
	pkg := filepath.Join(modules, "@kcl-lang", "lib-linux-x64-gnu", "package.json")
	if _, err := os.Stat(pkg); err != nil && install {
		_, self, _, _ := runtime.Caller(0)
		sh := filepath.Join(filepath.Dir(self), "..", "..", "hack", "oracle.sh")
		cmd := exec.Command("bash", sh)
		cmd.Env = append(os.Environ(), "KCL_ORACLE_DIR="+dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("installing the official engine: %w\n%s", err, out)
		}
	}
	if _, err := os.Stat(pkg); err != nil {
		return "", fmt.Errorf("%w in %s (run kcl/hack/oracle.sh)", ErrAbsent, dir)
	}
	return modules, nil
}

// Arg is one top-level argument (-D); Value is JSON, as the CLI converts it.
type Arg struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Request is one program run.
type Request struct {
	WorkDir     string   `json:"workDir"`
	Files       []string `json:"files"`
	Args        []Arg    `json:"args,omitempty"`
	Overrides   []string `json:"overrides,omitempty"`
	SortKeys    bool     `json:"sortKeys,omitempty"`
	DisableNone bool     `json:"disableNone,omitempty"`
}

// Reply is what execProgram returned: the YAML, the print() output, or the
// rendered error.
type Reply struct {
	YAML  string `json:"yaml"`
	Log   string `json:"log"`
	Error string `json:"error"`
}

// ErrTimeout means the official engine did not answer within Server.Timeout;
// the node process was killed and the next Run starts a new one.
var ErrTimeout = errors.New("the official engine did not answer in time")

// Server is one node process running oracle.js --serve.
type Server struct {
	// Timeout bounds one program (default 20 s): some programs make the
	// official engine loop.
	Timeout time.Duration

	mu      sync.Mutex
	modules string
	cmd     *exec.Cmd
	in      io.WriteCloser
	replies chan []byte
	script  string
}

// Start starts node with the official engine found in modules.
func Start(modules string) (*Server, error) {
	s := &Server{modules: modules}
	if err := s.start(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Server) start() error {
	f, err := os.CreateTemp("", "kcl-oracle-*.js")
	if err != nil {
		return err
	}
	if _, err := f.Write(script); err != nil {
		f.Close()
		return err
	}
	f.Close()
	cmd := exec.Command("node", f.Name(), s.modules, "--serve")
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("starting the oracle: %w", err)
	}
	replies := make(chan []byte)
	go func() {
		defer close(replies)
		r := bufio.NewReaderSize(out, 1<<20)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return
			}
			replies <- line
		}
	}()
	s.cmd, s.in, s.replies, s.script = cmd, in, replies, f.Name()
	return nil
}

func (s *Server) stop() error {
	s.in.Close()
	err := s.cmd.Wait()
	os.Remove(s.script)
	s.cmd = nil
	return err
}

// Run runs one program.
func (s *Server) Run(req Request) (Reply, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := json.Marshal(req)
	if err != nil {
		return Reply{}, err
	}
	if s.cmd == nil {
		if err := s.start(); err != nil {
			return Reply{}, err
		}
	}
	if _, err := s.in.Write(append(b, '\n')); err != nil {
		return Reply{}, fmt.Errorf("oracle: %w", err)
	}
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = 20 * time.Second
	}
	var line []byte
	select {
	case l, ok := <-s.replies:
		if !ok {
			s.stop()
			return Reply{}, errors.New("oracle: node exited")
		}
		line = l
	case <-time.After(timeout):
		s.cmd.Process.Kill()
		s.stop()
		return Reply{}, ErrTimeout
	}
	var r Reply
	if err := json.Unmarshal(line, &r); err != nil {
		return Reply{}, fmt.Errorf("oracle reply %q: %w", line, err)
	}
	return r, nil
}

// Close stops the node process.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return nil
	}
	return s.stop()
}

// Diagnostic is the first diagnostic of a rendered official error.
type Diagnostic struct {
	Kind      string // CompileError, EvaluationError, TypeError, InvalidSyntax...
	Message   string
	File      string
	Line, Col int
}

var (
	ansi     = regexp.MustCompile("\x1b\\[[0-9;]*m")
	header   = regexp.MustCompile(`^(?:error\[\w+\]: )*(\w+)\s*$`)
	location = regexp.MustCompile(`^\s*--> (.*?):(\d+)(?::(\d+))?\s*$`)
)

// ParseError reads the kind, the location and the message of the first
// diagnostic of an error execProgram rendered. A message without the
// diagnostic frame (a panic text) is returned whole as the Message.
func ParseError(text string) Diagnostic {
	d, rest := parseFirst(text)
	// For a missing import the add-on returns its runner's "pkgpath …
	// not found in the program" first; `kcl run` prints only the loader's
	// diagnostics, which follow.
	if d.Kind == errkind.CannotFindModule && strings.HasPrefix(d.Message, "pkgpath ") && strings.HasSuffix(d.Message, " not found in the program") {
		if next, _ := parseFirst(rest); next.Kind != "" {
			return next
		}
	}
	return d
}

// parseFirst is ParseError of the first diagnostic, and the text from the
// next diagnostic's header on.
func parseFirst(text string) (Diagnostic, string) {
	lines := strings.Split(ansi.ReplaceAllString(text, ""), "\n")
	var d Diagnostic
	i := 0
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	if i < len(lines) {
		if m := header.FindStringSubmatch(lines[i]); m != nil {
			d.Kind = m[1]
			i++
		}
	}
	if d.Kind == "" {
		d.Message = strings.TrimSpace(strings.Join(lines[i:], "\n"))
		return d, ""
	}
	if i < len(lines) {
		if m := location.FindStringSubmatch(lines[i]); m != nil {
			d.File = m[1]
			fmt.Sscan(m[2], &d.Line)
			if m[3] != "" {
				fmt.Sscan(m[3], &d.Col)
			}
			i++
		}
	}
	// The frame: "  |", "N | source", "  |   ^ message", "  |"; a frame-less
	// diagnostic has the message on the next line.
	var msg []string
	sawSource := false
	for ; i < len(lines); i++ {
		l := lines[i]
		if strings.TrimSpace(l) == "" || header.MatchString(l) {
			break
		}
		t := strings.TrimLeft(l, " ")
		if len(t) > 0 && t[0] >= '0' && t[0] <= '9' {
			sawSource = true
			continue
		}
		if !strings.HasPrefix(t, "|") {
			msg = append(msg, strings.TrimSpace(l))
			continue
		}
		if sawSource {
			rest := strings.TrimPrefix(t, "|")
			rest = strings.TrimLeft(rest, " ")
			rest = strings.TrimLeft(rest, "^")
			rest = strings.TrimSpace(rest)
			if rest != "" {
				msg = append(msg, rest)
			}
		}
	}
	d.Message = strings.Join(msg, "\n")
	for ; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "" && header.MatchString(lines[i]) {
			return d, strings.Join(lines[i:], "\n")
		}
	}
	return d, ""
}

// Located is one located line of a rendered diagnostic: the error itself or
// a label pointing at a related place.
type Located struct {
	File      string
	Line, Col int // Col 0 when the frame names a line only
	Message   string
}

// Full is a diagnostic with every located line, in the order printed.
type Full struct {
	Kind  string
	Lines []Located
}

// ParseAll reads every diagnostic of an error execProgram rendered, each
// with the first message line of each of its located lines (the frame line
// after the source line, its carets dropped).
func ParseAll(text string) []Full {
	var out []Full
	sawSource := false
	for _, l := range strings.Split(ansi.ReplaceAllString(text, ""), "\n") {
		if m := header.FindStringSubmatch(l); m != nil && !strings.HasPrefix(l, " ") {
			out = append(out, Full{Kind: m[1]})
			continue
		}
		if len(out) == 0 {
			continue
		}
		d := &out[len(out)-1]
		if m := location.FindStringSubmatch(l); m != nil {
			loc := Located{File: m[1]}
			fmt.Sscan(m[2], &loc.Line)
			if m[3] != "" {
				fmt.Sscan(m[3], &loc.Col)
			}
			d.Lines = append(d.Lines, loc)
			sawSource = false
			continue
		}
		t := strings.TrimLeft(l, " ")
		if t != "" && t[0] >= '0' && t[0] <= '9' {
			sawSource = true
			continue
		}
		if !sawSource || !strings.HasPrefix(t, "|") || len(d.Lines) == 0 || d.Lines[len(d.Lines)-1].Message != "" {
			continue
		}
		msg := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(strings.TrimPrefix(t, "|")), "^"))
		d.Lines[len(d.Lines)-1].Message = msg
	}
	return out
}

// Printed is ParseAll of what `kcl run` prints for an error execProgram
// rendered. With syntax errors the add-on's text starts with the parse
// errors as a set (each once), followed by the session's list that `kcl run`
// prints (the parse errors as reported, repeats kept, then the others); the
// leading set is dropped. Without syntax errors the text is the list.
func Printed(text string) []Full {
	all := ParseAll(text)
	if len(all) == 0 || !errkind.IsSyntax(all[0].Kind) {
		return all
	}
	for k := 1; k < len(all); k++ {
		if sameFull(all[k], all[0]) {
			return all[k:]
		}
	}
	return all
}

func sameFull(a, b Full) bool {
	return a.Kind == b.Kind && slices.Equal(a.Lines, b.Lines)
}
