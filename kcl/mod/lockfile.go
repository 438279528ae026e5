package mod

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/BurntSushi/toml"
)

// Lock is a kcl.mod.lock: the exact source and checksum of every package of the
// program's dependency graph, keyed by dependency name.
type Lock struct {
	Dependencies map[string]Locked `toml:"dependencies"`
}

// Locked is one [dependencies.<name>] entry, with kpm's field names.
type Locked struct {
	Name     string `toml:"name"`
	FullName string `toml:"full_name"`
	Version  string `toml:"version"`
	// Sum is kpm's checksum of the package contents (see Sum); empty means unchecked.
	Sum string `toml:"sum"`

	// OCI source.
	Reg    string `toml:"reg"`
	Repo   string `toml:"repo"`
	OCITag string `toml:"oci_tag"`

	// Git source.
	URL    string `toml:"url"`
	Branch string `toml:"branch"`
	Commit string `toml:"commit"`
	GitTag string `toml:"git_tag"`

	// Local source.
	Path string `toml:"path"`

	Package string `toml:"package"`
}

// ReadLock reads dir/kcl.mod.lock; a missing file is (nil, nil).
func ReadLock(dir string) (*Lock, error) {
	data, err := os.ReadFile(filepath.Join(dir, LockFileName))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", LockFileName, err)
	}
	return ParseLock(data)
}

// ParseLock parses the text of a kcl.mod.lock.
func ParseLock(data []byte) (*Lock, error) {
	var l Lock
	if _, err := toml.Decode(string(data), &l); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalid, LockFileName, err)
	}
	return &l, nil
}

// lookup finds the entry of a dependency by its kcl.mod name or its import name.
func (l *Lock) lookup(name string) (Locked, bool) {
	if l == nil {
		return Locked{}, false
	}
	if e, ok := l.Dependencies[name]; ok {
		return e, true
	}
	for _, e := range l.Dependencies {
		if e.Name == name {
			return e, true
		}
	}
	return Locked{}, false
}
