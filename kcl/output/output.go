// Package output prints a program's top-level values exactly as `kcl run` does
// (YAML), and encodes values as JSON the way json.encode does.
package output

import (
	"errors"

	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

var errNotYet = errors.New("output: not implemented yet")

// Options mirror the output flags of `kcl run`.
type Options struct {
	SortKeys    bool // --sort_keys
	ShowHidden  bool // --show_hidden: keep _private names
	DisableNone bool // -n: drop None values
}

// YAML prints v (the dict of a program's top-level names, or a list of documents
// from manifests.yaml_stream) as `kcl run` does.
func YAML(v value.Value, opts Options) ([]byte, error) {
	return nil, errNotYet
}
