package compiler

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// dependency is one entry of the [dependencies] of a kcl.mod.
type dependency struct {
	name     string
	version  string // registry, oci or git version/tag
	path     string // local dependency, relative to the module
	fullName string // "<name>_<version>" from kcl.mod.lock, the vendor folder name
}

// localDependencies maps the program's kcl.mod dependencies that the artifact
// itself can serve, for kcl.Options.ExternalPkgs: local `path` dependencies and
// packages vendored by `kcl mod vendor` under vendor/<name>_<version>. The worker
// has no network, so other dependencies stay unresolved and the engine reports
// their imports; with vendor set, a dependency that is not vendored is an error
// up front.
func localDependencies(root, programDir string, vendor bool) (map[string]string, error) {
	mod, err := os.ReadFile(filepath.Join(programDir, "kcl.mod"))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading kcl.mod: %w", err)
	}
	deps := parseDependencies(mod)
	if lock, err := os.ReadFile(filepath.Join(programDir, "kcl.mod.lock")); err == nil {
		for name, full := range parseLockFullNames(lock) {
			if d, ok := deps[name]; ok {
				d.fullName = full
			}
		}
	}
	names := make([]string, 0, len(deps))
	for name := range deps {
		names = append(names, name)
	}
	sort.Strings(names)
	pkgs := map[string]string{}
	for _, name := range names {
		d := deps[name]
		var candidates []string
		if d.path != "" {
			candidates = []string{filepath.Join(programDir, filepath.FromSlash(d.path))}
		} else {
			for _, folder := range []string{d.fullName, name + "_" + d.version, name} {
				if folder != "" && !strings.HasSuffix(folder, "_") {
					candidates = append(candidates, filepath.Join(programDir, "vendor", folder))
				}
			}
		}
		found := ""
		for _, dir := range candidates {
			if info, err := os.Stat(dir); err == nil && info.IsDir() && inside(root, dir) {
				found = dir
				break
			}
		}
		switch {
		case found != "":
			pkgs[name] = found
		case d.path != "":
			return nil, fmt.Errorf("kcl.mod: dependency %s: path %q is not a folder inside the artifact", name, d.path)
		case vendor:
			return nil, fmt.Errorf("kcl.mod: dependency %s is not vendored (vendor/%s_%s); run `kcl mod vendor` and commit vendor/", name, name, d.version)
		}
	}
	return pkgs, nil
}

func inside(root, dir string) bool {
	rel, err := filepath.Rel(root, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// parseDependencies reads the [dependencies] table of a kcl.mod: `name = "1.0"`
// or `name = { path = "../lib" }` / `{ oci = "...", tag = "1.0" }` /
// `{ git = "...", tag = "v1" }` / `{ version = "1.0" }`.
func parseDependencies(mod []byte) map[string]*dependency {
	deps := map[string]*dependency{}
	inDeps := false
	scanner := bufio.NewScanner(bytes.NewReader(mod))
	for scanner.Scan() {
		line := strings.TrimSpace(stripComment(scanner.Text()))
		if strings.HasPrefix(line, "[") {
			inDeps = line == "[dependencies]"
			continue
		}
		key, val, ok := strings.Cut(line, "=")
		if !inDeps || !ok {
			continue
		}
		name := unquote(strings.TrimSpace(key))
		val = strings.TrimSpace(val)
		d := &dependency{name: name}
		if strings.HasPrefix(val, "{") {
			fields := inlineTable(val)
			d.path = fields["path"]
			for _, k := range []string{"version", "tag", "commit"} {
				if d.version == "" {
					d.version = fields[k]
				}
			}
		} else {
			d.version = unquote(val)
		}
		deps[name] = d
	}
	return deps
}

// parseLockFullNames reads `full_name` of each [dependencies.<name>] of a kcl.mod.lock.
func parseLockFullNames(lock []byte) map[string]string {
	names := map[string]string{}
	current := ""
	scanner := bufio.NewScanner(bytes.NewReader(lock))
	for scanner.Scan() {
		line := strings.TrimSpace(stripComment(scanner.Text()))
		if strings.HasPrefix(line, "[") {
			current = ""
			if rest, ok := strings.CutPrefix(strings.Trim(line, "[]"), "dependencies."); ok {
				current = unquote(strings.TrimSpace(rest))
			}
			continue
		}
		if key, val, ok := strings.Cut(line, "="); ok && current != "" && strings.TrimSpace(key) == "full_name" {
			names[current] = unquote(strings.TrimSpace(val))
		}
	}
	return names
}

func inlineTable(val string) map[string]string {
	fields := map[string]string{}
	for _, part := range strings.Split(strings.Trim(val, "{} "), ",") {
		if k, v, ok := strings.Cut(part, "="); ok {
			fields[strings.TrimSpace(k)] = unquote(strings.TrimSpace(v))
		}
	}
	return fields
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		return s[1 : len(s)-1]
	}
	return s
}

// stripComment drops a # comment outside quotes.
func stripComment(line string) string {
	var quote byte
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == '"' || c == '\''):
			quote = c
		case quote == 0 && c == '#':
			return line[:i]
		}
	}
	return line
}
