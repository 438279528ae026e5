// Package mod reads KCL package manifests (kcl.mod) and lock files (kcl.mod.lock)
// the way KCL's package manager (kpm) writes them, computes kpm's package
// checksum, and resolves a program's dependencies into the engine's external
// package roots (kcl run -E name=path). It holds no network code: fetching is a
// Fetcher the caller passes (see kcl/mod/fetch).
package mod

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// File names of a KCL package.
const (
	ModFileName  = "kcl.mod"
	LockFileName = "kcl.mod.lock"
	VendorDir    = "vendor"
)

// File is a kcl.mod.
type File struct {
	Package Package
	// Dependencies in the order of their names.
	Dependencies []Dependency
	Profile      Profile
}

// Profile is the [profile] table of a kcl.mod: what `kcl run` compiles
// when it is given no files.
type Profile struct {
	// Entries are files, folders or ${name:KCL_MOD}/... paths, relative to
	// the kcl.mod's folder.
	Entries []string `toml:"entries"`
}

// ParseProfile reads only the [profile] table, so that a manifest whose
// dependencies this package would refuse still gives its entries.
func ParseProfile(data []byte) (Profile, error) {
	var raw struct {
		Profile Profile `toml:"profile"`
	}
	if _, err := toml.Decode(string(data), &raw); err != nil {
		return Profile{}, fmt.Errorf("%w: %s: %v", ErrInvalid, ModFileName, err)
	}
	return raw.Profile, nil
}

// Package is the [package] table of a kcl.mod.
type Package struct {
	Name        string `toml:"name"`
	Edition     string `toml:"edition"`
	Version     string `toml:"version"`
	Description string `toml:"description"`
}

// Dependency is one entry of the [dependencies] table:
//
//	k8s = "1.29"                                               # registry package
//	k8s = { version = "1.29" }                                 # the same
//	helloworld = { oci = "oci://ghcr.io/kcl-lang/helloworld", tag = "0.1.4" }
//	konfig = { git = "https://github.com/kcl-lang/konfig", tag = "v0.4.0" }  # or commit/branch
//	common = { path = "../common" }
//
// `package` names the package inside a Git repository or an OCI artifact when it
// differs from the dependency's name (a rename).
type Dependency struct {
	// Name is the key in kcl.mod.
	Name    string
	Version string
	OCI     string
	Tag     string
	Git     string
	Commit  string
	Branch  string
	Path    string
	Package string
}

// ImportName is the name a program imports the dependency by: kpm replaces '-'
// with '_' (json-merge-patch is imported as json_merge_patch).
func (d Dependency) ImportName() string { return strings.ReplaceAll(d.Name, "-", "_") }

// ErrInvalid marks a kcl.mod or kcl.mod.lock that cannot be used as written.
var ErrInvalid = errors.New("invalid KCL package manifest")

// ReadFile reads dir/kcl.mod; a missing file is (nil, nil).
func ReadFile(dir string) (*File, error) {
	data, err := os.ReadFile(filepath.Join(dir, ModFileName))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", ModFileName, err)
	}
	return ParseFile(data)
}

// ParseFile parses the text of a kcl.mod.
func ParseFile(data []byte) (*File, error) {
	var raw struct {
		Package      Package        `toml:"package"`
		Dependencies map[string]any `toml:"dependencies"`
		Profile      Profile        `toml:"profile"`
	}
	if _, err := toml.Decode(string(data), &raw); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalid, ModFileName, err)
	}
	f := &File{Package: raw.Package, Profile: raw.Profile}
	names := make([]string, 0, len(raw.Dependencies))
	for name := range raw.Dependencies {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		d := Dependency{Name: name}
		switch v := raw.Dependencies[name].(type) {
		case string:
			d.Version = v
		case map[string]any:
			for key, field := range v {
				s, ok := field.(string)
				if !ok {
					return nil, fmt.Errorf("%w: %s: dependency %s: %s must be a string", ErrInvalid, ModFileName, name, key)
				}
				switch key {
				case "version":
					d.Version = s
				case "oci":
					d.OCI = s
				case "tag":
					d.Tag = s
				case "git":
					d.Git = s
				case "commit":
					d.Commit = s
				case "branch":
					d.Branch = s
				case "path":
					d.Path = s
				case "package":
					d.Package = s
				}
			}
		default:
			// kpm gives such a dependency (`k8s = 1.29`, a float) no source
			// and goes on: nothing is fetched for it.
			continue
		}
		if err := d.validate(); err != nil {
			return nil, err
		}
		f.Dependencies = append(f.Dependencies, d)
	}
	return f, nil
}

func (d Dependency) validate() error {
	kinds := 0
	for _, s := range []string{d.OCI, d.Git, d.Path} {
		if s != "" {
			kinds++
		}
	}
	switch {
	case kinds > 1:
		return fmt.Errorf("%w: %s: dependency %s names more than one of oci, git and path", ErrInvalid, ModFileName, d.Name)
	case kinds == 0 && d.Version == "":
		return fmt.Errorf("%w: %s: dependency %s has no version, oci, git or path", ErrInvalid, ModFileName, d.Name)
	case d.Git != "" && countSet(d.Tag, d.Commit, d.Branch) > 1:
		return fmt.Errorf("%w: %s: dependency %s names more than one of tag, commit and branch", ErrInvalid, ModFileName, d.Name)
	case d.OCI != "" && !strings.HasPrefix(d.OCI, "oci://"):
		return fmt.Errorf("%w: %s: dependency %s: oci must start with oci://", ErrInvalid, ModFileName, d.Name)
	}
	return nil
}

func countSet(values ...string) int {
	n := 0
	for _, v := range values {
		if v != "" {
			n++
		}
	}
	return n
}
