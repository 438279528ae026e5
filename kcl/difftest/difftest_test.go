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
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/kcl"
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

// oracleModules finds (or, when KCL_DIFFTEST=required, installs) the official
// engine's node_modules directory.
func oracleModules(t *testing.T) string {
	t.Helper()
	required := os.Getenv("KCL_DIFFTEST") == "required"
	skip := func(msg string) string {
		if required {
			t.Fatalf("KCL_DIFFTEST=required but %s", msg)
		}
		t.Skipf("differential test skipped: %s (run kcl/hack/oracle.sh to install the official engine)", msg)
		return ""
	}
	if _, err := exec.LookPath("node"); err != nil {
		return skip("node is not installed")
	}
	dir := os.Getenv("KCL_ORACLE_DIR")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "flux-kcl-controller", "kcl-official")
	}
	modules := filepath.Join(dir, "node_modules")
	pkg := filepath.Join(modules, "@kcl-lang", "lib-linux-x64-gnu", "package.json")
	if _, err := os.Stat(pkg); err != nil && required {
		cmd := exec.Command("bash", "../hack/oracle.sh")
		cmd.Env = append(os.Environ(), "KCL_ORACLE_DIR="+dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("installing the official engine: %v\n%s", err, out)
		}
	}
	if _, err := os.Stat(pkg); err != nil {
		return skip("the official engine is not installed in " + dir)
	}
	return modules
}

type oracleReply struct {
	YAML  string `json:"yaml"`
	Log   string `json:"log"`
	Error string `json:"error"`
}

func runOracle(t *testing.T, modules string, c testCase) oracleReply {
	t.Helper()
	type arg struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	req := struct {
		WorkDir string   `json:"workDir"`
		Files   []string `json:"files"`
		Args    []arg    `json:"args"`
	}{WorkDir: c.dir, Files: []string{"main.k"}}
	for _, a := range c.args {
		name, v, _ := strings.Cut(a, "=")
		req.Args = append(req.Args, arg{name, argumentJSON(v)})
	}
	b, _ := json.Marshal(req)
	out, err := exec.Command("node", "oracle.js", modules, string(b)).Output()
	if err != nil {
		t.Fatalf("oracle: %v", err)
	}
	var r oracleReply
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("oracle reply %q: %v", out, err)
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
	modules := oracleModules(t)
	for _, c := range cases(t) {
		t.Run(c.name, func(t *testing.T) {
			want := runOracle(t, modules, c)
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
