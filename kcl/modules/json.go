package modules

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

// DecodeJSON parses one JSON document into values: objects keep their key order,
// integers that fit in 64 bits stay ints, other numbers become floats.
func DecodeJSON(src []byte) (value.Value, error) {
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.UseNumber()
	v, err := decodeJSONValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing characters after the JSON value")
	}
	return v, nil
}

func decodeJSONValue(dec *json.Decoder) (value.Value, error) {
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			return nil, errors.New("EOF while parsing a value")
		}
		return nil, err
	}
	switch x := tok.(type) {
	case json.Delim:
		switch x {
		case '{':
			d := value.NewDict(4)
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := decodeJSONValue(dec)
				if err != nil {
					return nil, err
				}
				d.Set(k, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return d, nil
		case '[':
			var elems []value.Value
			for dec.More() {
				v, err := decodeJSONValue(dec)
				if err != nil {
					return nil, err
				}
				elems = append(elems, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return value.NewList(elems), nil
		}
		return nil, fmt.Errorf("unexpected %v", x)
	case string:
		return value.Str(x), nil
	case bool:
		return value.Bool(x), nil
	case nil:
		return value.None, nil
	case json.Number:
		if _, err := value.ParseJSONNumber(string(x)); err != nil && err.Error() == "number out of range" {
			return nil, err // 1e400: serde_json refuses it, see serdeError
		}
		return jsonNumber(string(x)), nil
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
}

// jsonNumber reads a number as the engine's serde_json does.
func jsonNumber(s string) value.Value {
	if v, err := value.ParseJSONNumber(s); err == nil {
		return v
	}
	f, _ := strconv.ParseFloat(s, 64)
	return value.Float(f)
}

func jsonOptions(args []value.Value, kwargs []value.KV, index int) value.JSONOptions {
	var o value.JSONOptions
	if b, ok := boolArg(args, kwargs, index, "sort_keys"); ok {
		o.SortKeys = b
	}
	if n, ok := intArg(args, kwargs, index+1, "indent"); ok {
		o.Indent = int(n)
	}
	if b, ok := boolArg(args, kwargs, index+2, "ignore_private"); ok {
		o.IgnorePrivate = b
	}
	if b, ok := boolArg(args, kwargs, index+3, "ignore_none"); ok {
		o.IgnoreNone = b
	}
	return o
}

func init() {
	m := newModule("json")
	def(m, "encode", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		v, ok := arg(args, kwargs, 0, "data")
		if !ok {
			return nil, missing("encode", "value")
		}
		return value.Str(value.EncodeJSON(v, jsonOptions(args, kwargs, 1))), nil
	})
	def(m, "decode", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		s, ok := strArg(args, kwargs, 0, "value")
		if !ok {
			return nil, missing("decode", "value")
		}
		v, err := DecodeJSON([]byte(s))
		if err != nil {
			msg := err.Error()
			if m := serdeError(s); m != "" {
				msg = m
			}
			return nil, &value.Error{Kind: errkind.Evaluation, Msg: msg, Err: err}
		}
		return v, nil
	})
	def(m, "validate", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		s, ok := strArg(args, kwargs, 0, "value")
		if !ok {
			return nil, missing("validate", "value")
		}
		_, err := DecodeJSON([]byte(s))
		return value.Bool(err == nil), nil
	})
	def(m, "dump_to_file", func(t *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		data, name, err := dumpArgs(t, "json.dump_to_file", "dump_to_file", args, kwargs)
		if err != nil {
			return nil, err
		}
		if err := t.Host.WriteFile(name, []byte(value.EncodeJSON(data, jsonOptions(args, kwargs, 2)))); err != nil {
			return nil, evalErr("Unable to write file '%s': %s", name, rustIOError(err))
		}
		return value.Undefined, nil
	})
	def(m, "merge", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		src, ok1 := arg(args, kwargs, 0, "src")
		patch, ok2 := arg(args, kwargs, 1, "patch")
		if !ok1 || !ok2 {
			return nil, evalErr("merge() missing required positional arguments: 'src' and 'patch'")
		}
		return jsonMerge(src, patch), nil
	})
}

// jsonMerge is RFC 7386 merge patch over values.
func jsonMerge(src, patch value.Value) value.Value {
	pd, ok := value.AsDict(patch)
	if !ok {
		return value.DeepCopy(patch)
	}
	var result *value.Dict
	if sd, ok := value.AsDict(src); ok {
		result, _ = value.AsDict(value.DeepCopy(sd))
	} else {
		result = value.NewDict(pd.Len())
	}
	for _, e := range pd.Entries() {
		switch {
		case value.IsNoneOrUndefined(e.Value):
			result.Delete(e.Key)
		case isConfig(e.Value):
			old, ok := result.Get(e.Key)
			if !ok {
				old = value.NewDict(0)
			}
			result.Set(e.Key, jsonMerge(old, e.Value))
		default:
			result.Set(e.Key, value.DeepCopy(e.Value))
		}
	}
	return result
}

func isConfig(v value.Value) bool {
	_, ok := value.AsDict(v)
	return ok
}

// dumpArgs reads the data and file name of json's and yaml's dumps, or
// refuses the write when the run has no Host (the controller's case).
func dumpArgs(t *value.Thread, qualified, fn string, args []value.Value, kwargs []value.KV) (value.Value, string, error) {
	if t == nil || t.Host == nil {
		return nil, "", evalErr("%s() is not allowed: programs cannot write files", qualified)
	}
	data, ok1 := arg(args, kwargs, 0, "data")
	_, ok2 := arg(args, kwargs, 1, "filename")
	if !ok1 || !ok2 {
		return nil, "", evalErr("%s() missing 2 required positional arguments: 'data' and 'filename'", fn)
	}
	name, _ := hostArg(args, kwargs, 1, "filename")
	return data, name, nil
}
