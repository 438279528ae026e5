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
	docs := documents(v, opts)
	if opts.MaxBytes > 0 {
		var least int64
		for _, d := range docs {
			if least += p.atLeast(d, opts.MaxBytes-least, 0); least > opts.MaxBytes {
				return nil, fmt.Errorf("%w: more than %d bytes", ErrOutputTooLarge, opts.MaxBytes)
			}
		}
	}
	for i, d := range docs {
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
	switch v.(type) {
	case *value.List, *value.Dict, *value.Schema:
	default:
		p.b = append(p.b, '\n') // kcl run ends a lone scalar document with an empty line
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

// documents splits a top-level list into YAML documents as kcl run 0.12.1
// does: lists are flattened recursively, every config or scalar element is a
// document of its own, Undefined and functions are dropped (None too with -n).
func documents(v value.Value, opts Options) []value.Value {
	l, ok := v.(*value.List)
	if !ok {
		return []value.Value{v}
	}
	var docs []value.Value
	for _, e := range l.Elems {
		switch x := e.(type) {
		case nil, value.UndefinedType, *value.Function, *value.Builtin, *value.Module:
			continue
		case value.NoneType:
			if opts.DisableNone {
				continue
			}
			docs = append(docs, x)
		case *value.List:
			docs = append(docs, documents(x, opts)...)
		default:
			docs = append(docs, x)
		}
	}
	return docs
}
