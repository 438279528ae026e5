// Package output prints a program's top-level values exactly as `kcl run` does
// (YAML), and encodes values as JSON the way json.encode does.
package output

import (
	"bytes"
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

// Options mirror the output flags of `kcl run`.
type Options struct {
	SortKeys    bool // --sort_keys
	ShowHidden  bool // --show_hidden: keep _private names
	DisableNone bool // -n: drop None values
	// Sep separates documents of a top-level list; "" means "---".
	Sep string
}

// YAML prints v as `kcl run` does: v is the dict of a program's top-level names
// (or, with path selectors, any value; a list of configs prints as a stream of
// documents). The text ends with a newline.
func YAML(v value.Value, opts Options) ([]byte, error) {
	docs := plan(v, opts)
	sep := opts.Sep
	if sep == "" {
		sep = "---"
	}
	var out bytes.Buffer
	for i, d := range docs {
		if i > 0 {
			out.WriteString(sep)
			out.WriteByte('\n')
		}
		out.Write(EncodeYAML(d, opts.SortKeys, false, false))
	}
	return out.Bytes(), nil
}

// Program prints the result of a run: the manifests.yaml_stream output if the
// program called it (recorded on the thread), else YAML(v, opts).
func Program(t *value.Thread, v value.Value, opts Options) ([]byte, error) {
	if m := t.Manifests; m != nil {
		out := []byte(m.YAML)
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		return out, nil
	}
	return YAML(v, opts)
}

// plan is the runtime's filter_results: it drops hidden names, Undefined,
// functions and (with DisableNone) None, and splits a top-level list of configs
// into documents.
func plan(v value.Value, opts Options) []value.Value {
	switch x := v.(type) {
	case *value.List:
		allConfigs := true
		for _, e := range x.Elems {
			if _, ok := value.AsDict(e); !ok {
				allConfigs = false
				break
			}
		}
		var docs []value.Value
		if allConfigs || opts.Sep != "" {
			for _, e := range x.Elems {
				docs = append(docs, plan(e, opts)...)
			}
			return docs
		}
		var elems []value.Value
		for _, e := range x.Elems {
			if _, ok := value.AsDict(e); ok {
				sub := plan(e, opts)
				if len(sub) == 1 {
					elems = append(elems, sub[0])
				} else {
					docs = append(docs, sub...)
				}
			} else {
				elems = append(elems, e)
			}
		}
		if len(elems) > 0 {
			docs = append(docs, value.NewList(elems))
		}
		return docs
	case *value.Dict, *value.Schema:
		d, _ := value.AsDict(x)
		return planDict(d, opts)
	}
	return []value.Value{v}
}

func planDict(d *value.Dict, opts Options) []value.Value {
	result := value.NewDict(d.Len())
	docs := []value.Value{result}
	for _, e := range d.Entries() {
		key, v := e.Key, e.Value
		if _, isNone := v.(value.NoneType); isNone && opts.DisableNone {
			continue
		}
		if strings.HasPrefix(key, "_") && !opts.ShowHidden {
			continue
		}
		switch x := v.(type) {
		case nil, value.UndefinedType, *value.Function, *value.Builtin:
			continue
		case *value.Dict, *value.Schema:
			sub := plan(x, opts)
			result.Set(key, sub[0])
			docs = append(docs, sub[1:]...)
		case *value.List:
			elems := make([]value.Value, 0, len(x.Elems))
			for _, item := range x.Elems {
				switch y := item.(type) {
				case *value.Dict, *value.Schema:
					elems = append(elems, plan(y, opts)...)
				case value.NoneType:
					if !opts.DisableNone {
						elems = append(elems, y)
					}
				case nil, value.UndefinedType:
				default:
					sub := planDict(value.DictOf("$", item), opts)
					if w, ok := sub[0].(*value.Dict).Get("$"); ok {
						elems = append(elems, w)
					}
					docs = append(docs, sub[1:]...)
				}
			}
			result.Set(key, value.NewList(elems))
		default:
			result.Set(key, v)
		}
	}
	return docs
}
