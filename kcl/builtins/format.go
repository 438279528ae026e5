package builtins

import (
	"strconv"
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

// Format implements str.format: "{}", "{0}", "{name}", "{0[1]}", "{a.b}", specs
// after ":" and "{{"/"}}" escapes.
func Format(tmpl string, args []value.Value, kwargs []value.KV) (string, error) {
	var b strings.Builder
	auto := 0
	for i := 0; i < len(tmpl); {
		c := tmpl[i]
		switch {
		case c == '{' && i+1 < len(tmpl) && tmpl[i+1] == '{':
			b.WriteByte('{')
			i += 2
		case c == '}' && i+1 < len(tmpl) && tmpl[i+1] == '}':
			b.WriteByte('}')
			i += 2
		case c == '}':
			return "", evalErr("Single '}' encountered in format string")
		case c == '{':
			// find the closing brace, allowing one nested {...} in the spec
			depth, j := 0, i+1
			for ; j < len(tmpl); j++ {
				if tmpl[j] == '{' {
					depth++
				} else if tmpl[j] == '}' {
					if depth == 0 {
						break
					}
					depth--
				}
			}
			if j >= len(tmpl) {
				return "", evalErr("Single '{' encountered in format string")
			}
			field := tmpl[i+1 : j]
			i = j + 1
			name, spec, _ := strings.Cut(field, ":")
			name, _, _ = strings.Cut(name, "!")
			v, err := resolveField(name, args, kwargs, &auto)
			if err != nil {
				return "", err
			}
			s, err := value.FormatValue(v, spec)
			if err != nil {
				return "", err
			}
			b.WriteString(s)
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), nil
}

func resolveField(name string, args []value.Value, kwargs []value.KV, auto *int) (value.Value, error) {
	first := name
	rest := ""
	if k := strings.IndexAny(name, ".["); k >= 0 {
		first, rest = name[:k], name[k:]
	}
	var v value.Value
	switch n, err := strconv.Atoi(first); {
	case first == "":
		if *auto >= len(args) {
			return nil, evalErr("argument tuple index out of range")
		}
		v = args[*auto]
		*auto++
	case err == nil:
		if *auto != 0 {
			return nil, evalErr("cannot switch from automatic field numbering to manual field specification")
		}
		if n >= len(args) {
			return nil, evalErr("argument tuple index out of range")
		}
		v = args[n]
	default:
		found := false
		for _, kv := range kwargs {
			if kv.Key == first {
				v, found = kv.Value, true
			}
		}
		if !found {
			return nil, evalErr("keyword argument '%s' not found", first)
		}
	}
	for rest != "" {
		var key string
		if rest[0] == '.' {
			end := strings.IndexAny(rest[1:], ".[")
			if end < 0 {
				key, rest = rest[1:], ""
			} else {
				key, rest = rest[1:1+end], rest[1+end:]
			}
			if key == "" {
				return nil, evalErr("Empty attribute in format string")
			}
		} else {
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return nil, evalErr("Missing ']' in format string")
			}
			key, rest = rest[1:end], rest[end+1:]
			if idx, err := strconv.Atoi(key); err == nil {
				l, ok := v.(*value.List)
				if !ok || idx >= len(l.Elems) {
					return nil, evalErr("list index out of range: %d", idx)
				}
				v = l.Elems[idx]
				continue
			}
		}
		d, ok := value.AsDict(v)
		if !ok {
			return nil, evalErr("'%s' object has no attribute '%s'", v.Type(), key)
		}
		next, ok := d.Get(key)
		if !ok {
			return nil, evalErr("key '%s' not found", key)
		}
		v = next
	}
	return v, nil
}
