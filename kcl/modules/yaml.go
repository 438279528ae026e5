package modules

import (
	"bytes"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	"github.com/kcl-lang/flux-kcl-controller/kcl/output"
	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

// maxYAMLAliasExpansion bounds alias expansion (billion-laughs documents).
const maxYAMLAliasExpansion = 1_000_000

// DecodeYAMLStream parses every document of a YAML stream. Scalars are typed
// the way the official engine (serde_yaml) types them: only true/false (three
// spellings) are booleans, ints may be 0x/0o/0b, "0123" stays a string,
// infinities and NaN become None.
func DecodeYAMLStream(src []byte) ([]value.Value, error) {
	dec := yaml.NewDecoder(bytes.NewReader(src))
	var docs []value.Value
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, errors.New(strings.TrimPrefix(err.Error(), "yaml: "))
		}
		budget := maxYAMLAliasExpansion
		v, err := yamlNode(&n, &budget)
		if err != nil {
			return nil, err
		}
		docs = append(docs, v)
	}
	return docs, nil
}

// DecodeYAML parses a single-document YAML text; an empty text is None.
func DecodeYAML(src []byte) (value.Value, error) {
	docs, err := DecodeYAMLStream(src)
	if err != nil {
		return nil, err
	}
	switch len(docs) {
	case 0:
		return value.None, nil
	case 1:
		return docs[0], nil
	}
	return nil, errors.New("deserializing from YAML containing more than one document is not supported")
}

func yamlNode(n *yaml.Node, budget *int) (value.Value, error) {
	*budget--
	if *budget < 0 {
		return nil, errors.New("the YAML document expands to too many nodes")
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return value.None, nil
		}
		return yamlNode(n.Content[0], budget)
	case yaml.AliasNode:
		return yamlNode(n.Alias, budget)
	case yaml.MappingNode:
		d := value.NewDict(len(n.Content) / 2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			for k.Kind == yaml.AliasNode {
				k = k.Alias
			}
			if k.Kind != yaml.ScalarNode {
				return nil, errors.New("invalid type: map or sequence key, expected a string key")
			}
			v, err := yamlNode(n.Content[i+1], budget)
			if err != nil {
				return nil, err
			}
			d.Set(k.Value, v)
		}
		return d, nil
	case yaml.SequenceNode:
		elems := make([]value.Value, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := yamlNode(c, budget)
			if err != nil {
				return nil, err
			}
			elems = append(elems, v)
		}
		return value.NewList(elems), nil
	case yaml.ScalarNode:
		return yamlScalar(n), nil
	}
	return value.None, nil
}

func yamlScalar(n *yaml.Node) value.Value {
	s := n.Value
	switch n.Tag {
	case "!!str", "!!binary":
		if n.Style != 0 || n.Tag == "!!str" && isExplicitTag(n) {
			return value.Str(s)
		}
	case "!!null":
		if isExplicitTag(n) {
			return value.None
		}
	}
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return value.Str(s)
	}
	return resolvePlainScalar(s)
}

func isExplicitTag(n *yaml.Node) bool { return n.Style&yaml.TaggedStyle != 0 }

// resolvePlainScalar applies serde_yaml's untagged scalar rules.
func resolvePlainScalar(s string) value.Value {
	switch s {
	case "", "~", "null", "Null", "NULL":
		return value.None
	case "true", "True", "TRUE":
		return value.True
	case "false", "False", "FALSE":
		return value.False
	}
	if v, ok := yamlInt(s); ok {
		return v
	}
	if !digitsButNotNumber(s) {
		if f, ok := yamlFloat(s); ok {
			if math.IsInf(f, 0) || math.IsNaN(f) {
				return value.None // JSON has no such numbers
			}
			// serde_yaml hands the number to the engine through JSON text
			return value.Float(value.EngineFloat(f))
		}
	}
	return value.Str(s)
}

func digitsButNotNumber(s string) bool {
	s = strings.TrimLeft(s, "+-")
	if len(s) <= 1 || s[0] != '0' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func yamlInt(s string) (value.Value, bool) {
	neg := false
	body := s
	if strings.HasPrefix(body, "+") {
		body = body[1:]
	} else if strings.HasPrefix(body, "-") {
		neg, body = true, body[1:]
	}
	if body == "" || body[0] == '+' || body[0] == '-' {
		return nil, false
	}
	base := 10
	switch {
	case strings.HasPrefix(body, "0x"):
		base, body = 16, body[2:]
	case strings.HasPrefix(body, "0o"):
		base, body = 8, body[2:]
	case strings.HasPrefix(body, "0b"):
		base, body = 2, body[2:]
	default:
		if digitsButNotNumber(body) {
			return nil, false
		}
	}
	if body == "" || body[0] == '+' || body[0] == '-' || strings.Contains(body, "_") {
		return nil, false
	}
	u, err := strconv.ParseUint(body, base, 64)
	if err != nil {
		return nil, false
	}
	if neg {
		if u > 1<<63 {
			return nil, false
		}
		return value.Int(-int64(u)), true
	}
	if u > math.MaxInt64 {
		return value.Float(float64(u)), true
	}
	return value.Int(int64(u)), true
}

func yamlFloat(s string) (float64, bool) {
	body := s
	if strings.HasPrefix(body, "+") {
		body = body[1:]
		if strings.HasPrefix(body, "+") || strings.HasPrefix(body, "-") {
			return 0, false
		}
	}
	switch body {
	case ".inf", ".Inf", ".INF":
		return math.Inf(1), true
	}
	switch s {
	case "-.inf", "-.Inf", "-.INF":
		return math.Inf(-1), true
	case ".nan", ".NaN", ".NAN":
		return math.NaN(), true
	}
	l := strings.ToLower(strings.TrimLeft(body, "-"))
	if l == "inf" || l == "infinity" || l == "nan" || strings.ContainsAny(body, "_xXpP") {
		return 0, false // Rust parses these but serde_yaml then rejects non-finite
	}
	f, err := strconv.ParseFloat(body, 64)
	if err != nil {
		return 0, false
	}
	return f, true
}

func yamlEncodeOptions(args []value.Value, kwargs []value.KV, index int) (sortKeys, ignorePrivate, ignoreNone bool) {
	sortKeys, _ = boolArg(args, kwargs, index, "sort_keys")
	ignorePrivate, _ = boolArg(args, kwargs, index+1, "ignore_private")
	ignoreNone, _ = boolArg(args, kwargs, index+2, "ignore_none")
	return
}

func yamlErr(err error) *value.Error {
	return &value.Error{Kind: errkind.Evaluation, Msg: err.Error(), Err: err}
}

func init() {
	m := newModule("yaml")
	def(m, "encode", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		v, ok := arg(args, kwargs, 0, "data")
		if !ok {
			return nil, missing("encode", "data")
		}
		sk, ip, in := yamlEncodeOptions(args, kwargs, 1)
		return value.Str(output.EncodeYAML(v, sk, ip, in)), nil
	})
	def(m, "encode_all", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		v, ok := arg(args, kwargs, 0, "data")
		if !ok {
			return nil, missing("encode_all", "data")
		}
		l, ok := v.(*value.List)
		if !ok {
			return nil, evalErr("encode_all() expects a list, got %s", v.Type())
		}
		sk, ip, in := yamlEncodeOptions(args, kwargs, 1)
		parts := make([]string, len(l.Elems))
		for i, e := range l.Elems {
			parts[i] = string(output.EncodeYAML(e, sk, ip, in))
		}
		return value.Str(strings.Join(parts, "\n---\n")), nil
	})
	def(m, "decode", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		s, ok := strArg(args, kwargs, 0, "value")
		if !ok {
			return nil, missing("decode", "value")
		}
		v, err := DecodeYAML([]byte(s))
		if err != nil {
			return nil, yamlErr(err)
		}
		return v, nil
	})
	def(m, "decode_all", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		s, ok := strArg(args, kwargs, 0, "value")
		if !ok {
			return nil, missing("decode_all", "value")
		}
		docs, err := DecodeYAMLStream([]byte(s))
		if err != nil {
			return nil, yamlErr(err)
		}
		return value.NewList(docs), nil
	})
	def(m, "validate", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		s, ok := strArg(args, kwargs, 0, "value")
		if !ok {
			return nil, missing("validate", "value")
		}
		_, err := DecodeYAMLStream([]byte(s))
		return value.Bool(err == nil), nil
	})
	def(m, "dump_to_file", func(t *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		data, name, err := dumpArgs(t, "yaml.dump_to_file", "dump_to_file", args, kwargs)
		if err != nil {
			return nil, err
		}
		sk, ip, in := yamlEncodeOptions(args, kwargs, 2)
		if err := t.Host.WriteFile(name, output.EncodeYAML(data, sk, ip, in)); err != nil {
			return nil, evalErr("Unable to write file '%s': %s", name, rustIOError(err))
		}
		return value.Undefined, nil
	})
	def(m, "dump_all_to_file", func(t *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		data, name, err := dumpArgs(t, "yaml.dump_all_to_file", "dump_all_to_file", args, kwargs)
		if err != nil {
			return nil, err
		}
		l, ok := data.(*value.List)
		if !ok {
			return nil, evalErr("invalid list value")
		}
		sk, ip, in := yamlEncodeOptions(args, kwargs, 2)
		docs := make([]string, len(l.Elems))
		for i, e := range l.Elems {
			docs[i] = string(output.EncodeYAML(e, sk, ip, in))
		}
		// 0.12.1 words this one failure in Rust's debug form.
		if err := t.Host.WriteFile(name, []byte(strings.Join(docs, "\n---\n"))); err != nil {
			return nil, evalErr("Unable to write file: %s", rustIODebug(err))
		}
		return value.Undefined, nil
	})

	mf := newModule("manifests")
	def(mf, "yaml_stream", func(t *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		sortKeys, ignorePrivate, ignoreNone, sep := false, false, false, "---"
		if o, ok := arg(args, kwargs, 1, "opts"); ok && !value.IsNoneOrUndefined(o) {
			od, isDict := value.AsDict(o)
			if !isDict {
				return nil, evalErr("Invalid options arguments in yaml_stream(): expect config, got %s", o.Type())
			}
			ignorePrivate = true
			if v, ok := od.Get("sort_keys"); ok {
				sortKeys = v.Truth()
			}
			if v, ok := od.Get("ignore_private"); ok {
				ignorePrivate = v.Truth()
			}
			if v, ok := od.Get("ignore_none"); ok {
				ignoreNone = v.Truth()
			}
			if v, ok := od.Get("sep"); ok {
				sep = v.String()
			}
		}
		v, ok := arg(args, kwargs, 0, "values")
		if !ok {
			return nil, evalErr("yaml_stream() missing 1 required positional argument: 'values'")
		}
		l, ok := v.(*value.List)
		if !ok {
			return nil, evalErr("yaml_stream() expects a list of values, got %s", v.Type())
		}
		opts := output.Options{SortKeys: sortKeys, ShowHidden: !ignorePrivate, DisableNone: ignoreNone, Sep: sep}
		if t != nil {
			opts.MaxBytes = t.MaxOutputBytes
		}
		if plainConfigs(l.Elems) {
			var planned value.Value = l.Elems[0]
			if len(l.Elems) > 1 {
				planned = value.NewList(l.Elems)
			}
			out, err := output.YAML(planned, opts)
			if err != nil {
				return nil, &value.Error{Kind: errkind.Limit, Msg: err.Error(), Err: err}
			}
			if t != nil {
				t.Manifests = &value.ManifestsOutput{
					YAML: string(out), Planned: planned,
					SortKeys: sortKeys, ShowHidden: !ignorePrivate, DisableNone: ignoreNone, Sep: sep,
				}
			}
			return value.Undefined, nil
		}
		parts := make([]string, len(l.Elems))
		for i, e := range l.Elems {
			parts[i] = strings.TrimSuffix(string(output.EncodeYAML(e, sortKeys, ignorePrivate, ignoreNone)), "\n")
		}
		text := strings.Join(parts, "\n"+sep+"\n")
		var planned value.Value
		// kcl run reads the stream back and plans it like any result: nested
		// lists stream their elements, a lone scalar ends with an empty line
		if docs, err := DecodeYAMLStream([]byte(text)); err == nil {
			switch len(docs) {
			case 0:
				planned = value.None
			case 1:
				planned = docs[0]
			default:
				planned = value.NewList(docs)
			}
			out, err := output.YAML(planned, opts)
			if err != nil {
				return nil, &value.Error{Kind: errkind.Limit, Msg: err.Error(), Err: err}
			}
			text = string(out) // the whole printed output, final newline included
		}
		if t != nil {
			t.Manifests = &value.ManifestsOutput{
				YAML: text, Planned: planned,
				SortKeys: sortKeys, ShowHidden: !ignorePrivate, DisableNone: ignoreNone, Sep: sep,
			}
		}
		return value.Undefined, nil
	})
}
