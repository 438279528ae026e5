// Package difftest checks the engine against golden files and, when the
// official engine is available, against it: every program under kcl/testdata
// must print exactly what `kcl run` 0.12.1 prints.
package difftest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/kcl"
	"github.com/kcl-lang/flux-kcl-controller/kcl/difftest/oracle"
)

const testdata = "../testdata"

// testCase is a directory holding main.k, optional `args` (one -D name=value a
// line) and expected.yaml or expected.stderr.
type testCase struct {
	name string
	dir  string
	args []string
}

func cases(t *testing.T) []testCase {
	t.Helper()
	entries, err := os.ReadDir(testdata)
	if err != nil {
		t.Fatal(err)
	}
	var out []testCase
	for _, e := range entries {
		dir, err := filepath.Abs(filepath.Join(testdata, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, "main.k")); err != nil {
			continue
		}
		c := testCase{name: e.Name(), dir: dir}
		if b, err := os.ReadFile(filepath.Join(dir, "args")); err == nil {
			for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				if l != "" {
					c.args = append(c.args, l)
				}
			}
		}
		out = append(out, c)
	}
	return out
}

type outcome struct {
	yaml, log string
	err       error
}

func runEngine(c testCase) outcome {
	var log bytes.Buffer
	res, err := kcl.Run(context.Background(), kcl.Options{
		WorkDir:   c.dir,
		Files:     []string{"main.k"},
		Arguments: c.args,
		Stdout:    &log,
	})
	o := outcome{log: log.String(), err: err}
	if res != nil {
		o.yaml = string(res.YAML)
	}
	return o
}

func TestGolden(t *testing.T) {
	for _, c := range cases(t) {
		t.Run(c.name, func(t *testing.T) {
			got := runEngine(c)
			if want, err := os.ReadFile(filepath.Join(c.dir, "expected.yaml")); err == nil {
				if got.err != nil {
					t.Fatalf("unexpected error: %v", got.err)
				}
				if got.yaml != string(want) {
					t.Fatalf("output differs\n--- got\n%s--- want\n%s", got.yaml, want)
				}
				if wantLog, err := os.ReadFile(filepath.Join(c.dir, "expected.log")); err == nil && got.log != string(wantLog) {
					t.Fatalf("print output differs: got %q, want %q", got.log, wantLog)
				}
				return
			}
			want, err := os.ReadFile(filepath.Join(c.dir, "expected.stderr"))
			if err != nil {
				t.Fatalf("%s has neither expected.yaml nor expected.stderr", c.name)
			}
			var kerr *kcl.Error
			if !errors.As(got.err, &kerr) {
				t.Fatalf("want a program error, got %v (output %q)", got.err, got.yaml)
			}
			text := kerr.Kind + ": " + kerr.Message
			for _, l := range kerr.Labels {
				text += "\n" + l.Message
			}
			if !strings.Contains(text, strings.TrimSpace(string(want))) {
				t.Fatalf("error %q does not contain %q", text, strings.TrimSpace(string(want)))
			}
		})
	}
}

// oracleServer starts the official engine for the test, or skips the test
// when it is absent and KCL_DIFFTEST is not "required" (make test sets it, and
// then a missing engine is installed or the test fails).
func oracleServer(t testing.TB) *oracle.Server {
	t.Helper()
	required := os.Getenv("KCL_DIFFTEST") == "required"
	modules, err := oracle.Modules(required)
	if err != nil {
		if required || !errors.Is(err, oracle.ErrAbsent) {
			t.Fatalf("KCL_DIFFTEST=%s: %v", os.Getenv("KCL_DIFFTEST"), err)
		}
		t.Skipf("differential test skipped: %v", err)
	}
	srv, err := oracle.Start(modules)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

func runOracle(t *testing.T, srv *oracle.Server, c testCase) oracle.Reply {
	t.Helper()
	req := oracle.Request{WorkDir: c.dir, Files: []string{"main.k"}}
	for _, a := range c.args {
		name, v, _ := strings.Cut(a, "=")
		req.Args = append(req.Args, oracle.Arg{Name: name, Value: argumentJSON(v)})
	}
	r, err := srv.Run(req)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// argumentJSON converts a -D value as the official CLI does before it reaches
// the engine: JSON as is, True/False/None as JSON, anything else a string.
func argumentJSON(v string) string {
	if json.Valid([]byte(v)) {
		return v
	}
	switch v {
	case "True":
		return "true"
	case "False":
		return "false"
	case "None":
		return "null"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func TestOracle(t *testing.T) {
	srv := oracleServer(t)
	for _, c := range cases(t) {
		t.Run(c.name, func(t *testing.T) {
			want := runOracle(t, srv, c)
			got := runEngine(c)
			if want.Error != "" {
				if got.err == nil {
					t.Fatalf("the official engine fails (%s) but the engine printed\n%s", want.Error, got.yaml)
				}
				return
			}
			if got.err != nil {
				t.Fatalf("the engine fails (%v) but the official engine printed\n%s", got.err, want.YAML)
			}
			if strings.TrimSuffix(got.yaml, "\n") != strings.TrimSuffix(want.YAML, "\n") {
				t.Fatalf("output differs from the official engine\n--- got\n%s--- want\n%s", got.yaml, want.YAML)
			}
			if got.log != want.Log {
				t.Fatalf("print output differs: got %q, want %q", got.log, want.Log)
			}
		})
	}
}
