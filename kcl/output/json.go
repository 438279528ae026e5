package output

import (
	"fmt"

	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

// JSON encodes v as json.encode does (see value.EncodeJSON for the rules).
func JSON(v value.Value, opts value.JSONOptions) []byte {
	return []byte(value.EncodeJSON(v, opts))
}

// JSONProgram prints the result of a run as `kcl run --format json` does:
// the documents Program would print (a top-level list's items, or those of
// manifests.yaml_stream), each encoded on a line of its own with the same
// filters. The text ends with a newline.
func JSONProgram(t *value.Thread, v value.Value, opts Options) ([]byte, error) {
	if m := t.Manifests; m != nil && m.Planned != nil {
		// manifests.yaml_stream's documents, with its options.
		v = m.Planned
		opts.SortKeys, opts.ShowHidden, opts.DisableNone = m.SortKeys, m.ShowHidden, m.DisableNone
	}
	jopts := value.JSONOptions{SortKeys: opts.SortKeys, IgnorePrivate: !opts.ShowHidden, IgnoreNone: opts.DisableNone}
	var b []byte
	for _, d := range documents(v, opts) {
		b = append(b, value.EncodeJSON(d, jopts)...)
		b = append(b, '\n')
		if opts.MaxBytes > 0 && int64(len(b)) > opts.MaxBytes {
			return nil, fmt.Errorf("%w: more than %d bytes", ErrOutputTooLarge, opts.MaxBytes)
		}
	}
	return b, nil
}
