// Package realprograms names the real-world KCL programs the engine is held to:
// programs shaped like production configuration that live in this repository
// (kcl/testdata/real_like, each with the official engine's output), a
// kcl-deployment-shaped program of the repository that imports the k8s 1.29
// module (kcl/testdata/k8s_programs, run when KCL_K8S_MODULE names the
// module's folder), and public programs (the k8s module, konfig,
// kcl-lang/modules) that are read from a directory outside the repository
// when KCL_REAL_PROGRAMS points at one. Its tests compare outputs byte for
// byte; its benchmarks time whole warm runs, and TestSideBySide
// (kcl/hack/bench.sh) times them beside the official engine's warm
// execProgram, wall and CPU time per run.
package realprograms

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl"
	"github.com/kcl-lang/flux-kcl-controller/kcl/mod"
)

// Program is one `kcl run` invocation.
type Program struct {
	Name string
	// Dir is the working directory; Files are relative to it (an entry may be
	// ${name:KCL_MOD}/path for a file of external package name).
	Dir   string
	Files []string
	// External maps external package names to absolute directories (-E).
	External map[string]string
	// ModPackages are the path dependencies of the program's kcl.mod (import
	// name to absolute folder). The user entry points (bin/kcl, the compiler,
	// build) resolve them from kcl.mod; the Go API and the official engine,
	// which read no kcl.mod dependencies, are given them as -E.
	ModPackages map[string]string
	// Profile is the program's kcl.mod [profile] entries, empty without.
	Profile []string
	// Args are option() arguments name=value (-D).
	Args []string
	// KnownDiff, when not empty, explains why the engine's output still
	// differs from the official engine's.
	KnownDiff string
}

// Options returns the engine options that run the program.
func (p Program) Options() kcl.Options {
	return kcl.Options{WorkDir: p.Dir, Files: p.Files, ExternalPkgs: p.allExternal(), Arguments: p.Args}
}

func (p Program) allExternal() map[string]string {
	if len(p.ModPackages) == 0 {
		return p.External
	}
	all := map[string]string{}
	for n, d := range p.ModPackages {
		all[n] = d
	}
	for n, d := range p.External {
		all[n] = d
	}
	return all
}

// CommandLine returns the program as `kcl run` arguments (after "run"), for
// the official engine: kcl.mod's packages are given with -E.
func (p Program) CommandLine() []string {
	return commandLine(p.Files, p.allExternal(), p.Args)
}

// UserCommandLine returns the program as `kcl run` arguments the way a user
// types them for bin/kcl, which reads kcl.mod's dependencies itself.
func (p Program) UserCommandLine() []string {
	return commandLine(p.Files, p.External, p.Args)
}

func commandLine(files []string, external map[string]string, args []string) []string {
	var out []string
	out = append(out, files...)
	names := make([]string, 0, len(external))
	for n := range external {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		out = append(out, "-E", n+"="+external[n])
	}
	for _, a := range args {
		out = append(out, "-D", a)
	}
	return out
}

// RunsFromFolder tells whether compiling the program's folder without naming
// files, as the controller does, runs the same files as Files: its kcl.mod
// [profile] lists them, or Files is the folder's only .k file.
func (p Program) RunsFromFolder() bool {
	if len(p.Profile) > 0 {
		return slices.Equal(p.Profile, p.Files)
	}
	ks, _ := filepath.Glob(filepath.Join(p.Dir, "*.k"))
	return len(p.Files) == 1 && len(ks) == 1 && filepath.Base(ks[0]) == p.Files[0] && !strings.Contains(p.Files[0], "/")
}

// RealLike lists the programs under dir (kcl/testdata/real_like). Each
// directory holds the program, `entries` (entry files, one a line; default
// main.k), optional `args` (-D name=value, one a line), expected.yaml (the
// official engine's output) and, while the engine still differs, KNOWN_DIFF.
func RealLike(dir string) ([]Program, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("real-like programs: %w", err)
	}
	var out []Program
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		d, err := filepath.Abs(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("real-like program %s: %w", e.Name(), err)
		}
		p := Program{Name: e.Name(), Dir: d, Files: []string{"main.k"}}
		if lines, err := readLines(filepath.Join(d, "entries")); err == nil {
			p.Files = lines
		}
		if lines, err := readLines(filepath.Join(d, "args")); err == nil {
			p.Args = lines
		}
		if b, err := os.ReadFile(filepath.Join(d, "KNOWN_DIFF")); err == nil {
			p.KnownDiff = strings.TrimSpace(string(b))
		}
		if err := p.readKclMod(); err != nil {
			return nil, fmt.Errorf("real-like program %s: %w", e.Name(), err)
		}
		out = append(out, p)
	}
	return out, nil
}

// readKclMod fills ModPackages and Profile from the program's kcl.mod. Only
// path dependencies are taken: real-like programs carry their packages.
func (p *Program) readKclMod() error {
	file, err := mod.ReadFile(p.Dir)
	if err != nil || file == nil {
		return err
	}
	for _, d := range file.Dependencies {
		if d.Path == "" {
			return fmt.Errorf("kcl.mod dependency %s is not a local path", d.Name)
		}
		if p.ModPackages == nil {
			p.ModPackages = map[string]string{}
		}
		p.ModPackages[d.ImportName()] = filepath.Join(p.Dir, filepath.FromSlash(d.Path))
	}
	p.Profile = profileEntries(filepath.Join(p.Dir, "kcl.mod"))
	return nil
}

// K8sModuleEnv names the environment variable that points at the k8s 1.29
// module (kcl-lang/modules' k8s/1.29, a folder outside the repository): the
// k8s-importing program is run and timed only when it is set.
const K8sModuleEnv = "KCL_K8S_MODULE"

// K8sDeployment is the repository's kcl-deployment-shaped program
// (testdata/k8s_programs/deployment: a Deployment, a Service and a ConfigMap of the
// k8s module from one schema of option() parameters), with its kcl.mod
// declaring k8s = "1.29" and the module given with -E, which wins over
// kcl.mod: nothing is fetched. testdata is kcl/testdata; module the k8s
// 1.29 folder.
func K8sDeployment(testdata, module string) (Program, error) {
	dir, err := filepath.Abs(filepath.Join(testdata, "k8s_programs", "deployment"))
	if err != nil {
		return Program{}, fmt.Errorf("k8s program: %w", err)
	}
	if module, err = filepath.Abs(module); err != nil {
		return Program{}, fmt.Errorf("k8s module: %w", err)
	}
	if _, err := os.Stat(filepath.Join(module, "api", "apps", "v1")); err != nil {
		return Program{}, fmt.Errorf("%s=%s is not the k8s module: %w", K8sModuleEnv, module, err)
	}
	return Program{Name: "k8s-deployment", Dir: dir, Files: []string{"main.k"}, External: map[string]string{"k8s": module}}, nil
}

// Public lists the public programs below root, laid out as
//
//	root/kcl-deployment        awesome-kusion/kcl-deployment
//	root/modules/k8s/1.29 ...  kcl-lang/modules (k8s, podinfo, ingress-nginx)
//	root/konfig                kcl-lang/konfig (examples/server/app_service/prod
//	                           and every other example with [profile] entries)
//
// Programs whose directory is missing are left out.
func Public(root string) []Program {
	k8s := func(v string) map[string]string {
		return map[string]string{"k8s": filepath.Join(root, "modules", "k8s", v)}
	}
	konfigExt := k8s("1.31")
	konfigExt["konfig"] = filepath.Join(root, "konfig")
	all := []Program{
		{Name: "kcl-deployment", Dir: filepath.Join(root, "kcl-deployment"), Files: []string{"main.k"}, External: k8s("1.29")},
		{Name: "podinfo", Dir: filepath.Join(root, "modules", "podinfo"), Files: []string{"main.k"}, External: k8s("1.31")},
		{Name: "ingress-nginx", Dir: filepath.Join(root, "modules", "ingress-nginx"), Files: []string{"main.k"}},
		{
			Name:     "konfig-app-service-prod",
			Dir:      filepath.Join(root, "konfig", "examples", "server", "app_service", "prod"),
			Files:    []string{"../base/base.k", "main.k", "${konfig:KCL_MOD}/models/kube/render/render.k"},
			External: konfigExt,
		},
	}
	var out []Program
	for _, p := range all {
		if _, err := os.Stat(p.Dir); err == nil {
			out = append(out, p)
		}
	}
	return append(out, konfigExamples(filepath.Join(root, "konfig"), konfigExt)...)
}

// konfigExamples lists konfig's other examples: every kcl.mod below
// examples/ whose [profile] names entries (app_service/prod is in Public).
func konfigExamples(konfig string, ext map[string]string) []Program {
	var out []Program
	examples := filepath.Join(konfig, "examples")
	_ = filepath.WalkDir(examples, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "kcl.mod" {
			return nil
		}
		dir := filepath.Dir(path)
		rel, _ := filepath.Rel(examples, dir)
		if rel == filepath.Join("server", "app_service", "prod") {
			return nil
		}
		if entries := profileEntries(path); len(entries) > 0 {
			out = append(out, Program{Name: "konfig/" + filepath.ToSlash(rel), Dir: dir, Files: entries, External: ext})
		}
		return nil
	})
	return out
}

// profileEntries reads `entries = ["a.k", ...]` of a kcl.mod's [profile].
func profileEntries(kclMod string) []string {
	lines, err := readLines(kclMod)
	if err != nil {
		return nil
	}
	inProfile := false
	for _, l := range lines {
		if strings.HasPrefix(l, "[") {
			inProfile = l == "[profile]"
			continue
		}
		name, list, ok := strings.Cut(l, "=")
		if !inProfile || !ok || strings.TrimSpace(name) != "entries" {
			continue
		}
		var out []string
		for _, e := range strings.Split(strings.Trim(strings.TrimSpace(list), "[]"), ",") {
			if e = strings.Trim(strings.TrimSpace(e), `"`); e != "" {
				out = append(out, e)
			}
		}
		return out
	}
	return nil
}

func readLines(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out, sc.Err()
}
