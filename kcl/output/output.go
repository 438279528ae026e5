// Package output prints a program's top-level values exactly as `kcl run` does
// (YAML), and encodes values as JSON the way json.encode does.
package output

import (
	"errors"
	"fmt"

	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

// Options mirror the output flags of `kcl run`.
type Options struct {
	SortKeys    bool // --sort_keys
	ShowHidden  bool // --show_hidden: keep _private names
	DisableNone bool // -n: drop None values
	// Sep separates documents of a top-level list; "" means "---".
	Sep string
	// MaxBytes caps the printed size (0: no cap); past it printing stops with an
	// error instead of growing without bound.
	MaxBytes int64
}

// ErrOutputTooLarge is returned (wrapped) when the output passes Options.MaxBytes.
var ErrOutputTooLarge = errors.New("the output is too large")

// YAML prints v as `kcl run` does: v is the dict of a program's top-level names
// (or, with path selectors, any value; a list of configs prints as a stream of
// documents). The text ends with a newline.
//
// The runtime plans the value first (dropping hidden names, None with -n,
// Undefined and functions at every level) and then prints it; the printer applies
// the same filters while printing, so nothing is copied.
func YAML(v value.Value, opts Options) ([]byte, error) {
	sep := opts.Sep
	if sep == "" {
		sep = "---"
	}
	p := yamlPrinter{opts: yamlOptions{sortKeys: opts.SortKeys, ignorePrivate: !opts.ShowHidden, ignoreNone: opts.DisableNone}, limit: opts.MaxBytes}
	for i, d := range documents(v, opts) {
		if i > 0 {
			p.b = append(p.b, sep...)
			p.b = append(p.b, '\n')
		}
		p.root(d)
		if p.tooDeep {
			return nil, fmt.Errorf("%w: values nested more than %d levels deep", ErrOutputTooLarge, maxYAMLDepth)
		}
		if p.overflow {
			return nil, fmt.Errorf("%w: more than %d bytes", ErrOutputTooLarge, opts.MaxBytes)
		}
	}
	return p.b, nil
}

// Program prints the result of a run: the manifests.yaml_stream output if the
// program called it (recorded on the thread), else YAML(v, opts).
func Program(t *value.Thread, v value.Value, opts Options) ([]byte, error) {
	if m := t.Manifests; m != nil {
		if opts.MaxBytes > 0 && int64(len(m.YAML)) > opts.MaxBytes {
			return nil, fmt.Errorf("%w: more than %d bytes", ErrOutputTooLarge, opts.MaxBytes)
		}
		out := []byte(m.YAML)
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		return out, nil
	}
	return YAML(v, opts)
}

// documents splits a top-level list into YAML documents as the runtime's
// filter_results does: a list whose elements are all configs (or any list when a
// separator was set) is a stream; otherwise configs stay in the list.
func documents(v value.Value, opts Options) []value.Value {
	l, ok := v.(*value.List)
	if !ok {
		return []value.Value{v}
	}
	allConfigs := true
	for _, e := range l.Elems {
		if _, ok := value.AsDict(e); !ok {
			allConfigs = false
			break
		}
	}
	if allConfigs || opts.Sep != "" {
		var docs []value.Value
		for _, e := range l.Elems {
			docs = append(docs, documents(e, opts)...)
		}
		return docs
	}
	var elems []value.Value
	for _, e := range l.Elems {
		switch e.(type) {
		case nil, value.UndefinedType, *value.Function, *value.Builtin:
			continue
		case value.NoneType:
			if opts.DisableNone {
				continue
			}
		}
		elems = append(elems, e)
	}
	if len(elems) == 0 {
		return nil
	}
	return []value.Value{value.NewList(elems)}
}
