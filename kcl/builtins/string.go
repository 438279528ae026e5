package builtins

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

// strMethods are the methods of str values, bound to their receiver on access.
var strMethods = map[string]*value.Builtin{}

func method(name string, fn func(s string, args []value.Value, kwargs []value.KV) (value.Value, error)) {
	strMethods[name] = value.NewBuiltin(name, func(t *value.Thread, b *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		s, ok := b.Recv.(value.Str)
		if !ok {
			return nil, evalErr("invalid self value in str_%s", name)
		}
		return fn(string(s), args, kwargs)
	})
}

// StrMethod returns s.name bound to s, as attribute access on a string does.
func StrMethod(s value.Str, name string) (value.Value, error) {
	m, ok := strMethods[name]
	if !ok {
		return nil, value.Errorf(errkind.Attribute, "str object attr '%s' not found", name)
	}
	return m.BindReceiver(s), nil
}

// HasStrMethod reports whether name is a str method.
func HasStrMethod(name string) bool {
	_, ok := strMethods[name]
	return ok
}

// sliceBounds is the runtime's adjust_indices over byte offsets.
func sliceBounds(args []value.Value, i int, n int) (int, int, bool) {
	start, end := 0, n
	if len(args) > i && !value.IsNoneOrUndefined(args[i]) {
		v, _ := asInt(args[i])
		start = int(v)
	}
	if len(args) > i+1 && !value.IsNoneOrUndefined(args[i+1]) {
		v, _ := asInt(args[i+1])
		end = int(v)
	}
	if end > n {
		end = n
	} else if end < 0 {
		end += n
		if end < 0 {
			end = 0
		}
	}
	if start < 0 {
		start += n
		if start < 0 {
			start = 0
		}
	}
	if start > end || start > n {
		return 0, 0, false
	}
	return start, end, true
}

func strArg(args []value.Value, kwargs []value.KV, i int, name string) (string, bool) {
	v, ok := optArg(args, kwargs, i, name)
	if !ok {
		return "", false
	}
	return asStr(v), true
}

// Rust's char classes, which the runtime's str methods use: Alphabetic is the
// letters, the letter numbers (Ⅻ) and Other_Alphabetic; Lowercase and
// Uppercase include Other_Lowercase (ª) and Other_Uppercase (Ⅻ).
func rustAlphabetic(r rune) bool {
	return unicode.IsLetter(r) || unicode.Is(unicode.Nl, r) || unicode.Is(unicode.Other_Alphabetic, r)
}
func rustLowercase(r rune) bool { return unicode.IsLower(r) || unicode.Is(unicode.Other_Lowercase, r) }
func rustUppercase(r rune) bool { return unicode.IsUpper(r) || unicode.Is(unicode.Other_Uppercase, r) }

func rustIsWhitespace(r rune) bool { return unicode.IsSpace(r) || r == 0x85 }

func init() {
	method("lower", func(s string, _ []value.Value, _ []value.KV) (value.Value, error) {
		return value.Str(lowerText(s)), nil
	})
	method("upper", func(s string, _ []value.Value, _ []value.KV) (value.Value, error) {
		return value.Str(upperText(s)), nil
	})
	method("capitalize", func(s string, _ []value.Value, _ []value.KV) (value.Value, error) {
		if s == "" {
			return value.Str(""), nil
		}
		r, n := utf8.DecodeRuneInString(s)
		return value.Str(upperText(string(r)) + lowerText(s[n:])), nil
	})
	method("chars", func(s string, _ []value.Value, _ []value.KV) (value.Value, error) {
		vs, err := Iterate(value.Str(s))
		return iterResult{vs, err}.toList()
	})
	method("count", func(s string, args []value.Value, _ []value.KV) (value.Value, error) {
		if len(args) == 0 {
			return nil, evalErr("count() takes at least 1 argument (0 given)")
		}
		sub := asStr(args[0])
		a, b, ok := sliceBounds(args, 1, len(s))
		if !ok {
			return value.Int(0), nil
		}
		if sub == "" {
			return value.Int(utf8.RuneCountInString(s[a:b]) + 1), nil
		}
		return value.Int(strings.Count(s[a:b], sub)), nil
	})
	method("startswith", func(s string, args []value.Value, _ []value.KV) (value.Value, error) {
		if len(args) == 0 {
			return nil, evalErr("startswith() takes at least 1 argument (0 given)")
		}
		a, b, ok := sliceBounds(args, 1, len(s))
		return value.Bool(ok && strings.HasPrefix(s[a:b], asStr(args[0]))), nil
	})
	method("endswith", func(s string, args []value.Value, _ []value.KV) (value.Value, error) {
		if len(args) == 0 {
			return nil, evalErr("endswith() takes at least 1 argument (0 given)")
		}
		a, b, ok := sliceBounds(args, 1, len(s))
		return value.Bool(ok && strings.HasSuffix(s[a:b], asStr(args[0]))), nil
	})
	finder := func(name string, last, must bool) {
		method(name, func(s string, args []value.Value, _ []value.KV) (value.Value, error) {
			if len(args) == 0 {
				return nil, evalErr("%s() takes at least 1 argument (0 given)", name)
			}
			sub := asStr(args[0])
			a, b, ok := sliceBounds(args, 1, len(s))
			idx := -1
			if ok {
				if last {
					idx = strings.LastIndex(s[a:b], sub)
				} else {
					idx = strings.Index(s[a:b], sub)
				}
				if idx >= 0 {
					idx += a
				}
			}
			if idx < 0 && must {
				return nil, evalErr("substring not found")
			}
			return value.Int(idx), nil
		})
	}
	finder("find", false, false)
	finder("rfind", true, false)
	finder("index", false, true)
	finder("rindex", true, true)
	method("isalnum", func(s string, _ []value.Value, _ []value.KV) (value.Value, error) {
		return value.Bool(s != "" && all(s, func(r rune) bool { return rustAlphabetic(r) || unicode.IsNumber(r) })), nil
	})
	method("isalpha", func(s string, _ []value.Value, _ []value.KV) (value.Value, error) {
		return value.Bool(s != "" && all(s, rustAlphabetic)), nil
	})
	method("isdigit", func(s string, _ []value.Value, _ []value.KV) (value.Value, error) {
		return value.Bool(s != "" && all(s, func(r rune) bool {
			return r >= '0' && r <= '9' || r == 0x2070 || r == 0xB9 || r == 0xB2 || r == 0xB3 || r >= 0x2074 && r <= 0x2079
		})), nil
	})
	method("isnumeric", func(s string, _ []value.Value, _ []value.KV) (value.Value, error) {
		return value.Bool(s != "" && all(s, unicode.IsNumber)), nil
	})
	method("islower", func(s string, _ []value.Value, _ []value.KV) (value.Value, error) {
		return value.Bool(isCase(s, rustLowercase, rustUppercase)), nil
	})
	method("isupper", func(s string, _ []value.Value, _ []value.KV) (value.Value, error) {
		return value.Bool(isCase(s, rustUppercase, rustLowercase)), nil
	})
	method("isspace", func(s string, _ []value.Value, _ []value.KV) (value.Value, error) {
		return value.Bool(s != "" && all(s, func(r rune) bool {
			return unicode.Is(unicode.Zs, r) || r >= 0x09 && r <= 0x0D || r == 0x1C || r == 0x1D || r == 0x1E || r == 0x1F || r == 0x85 || r == 0x2028 || r == 0x2029
		})), nil
	})
	method("istitle", func(s string, _ []value.Value, _ []value.KV) (value.Value, error) {
		if s == "" {
			return value.False, nil
		}
		cased, prevCased := false, false
		for _, c := range s {
			switch {
			case rustUppercase(c) || unicode.IsTitle(c):
				if prevCased {
					return value.False, nil
				}
				prevCased, cased = true, true
			case rustLowercase(c):
				if !prevCased {
					return value.False, nil
				}
				prevCased, cased = true, true
			default:
				prevCased = false
			}
		}
		return value.Bool(cased), nil
	})
	method("join", func(s string, args []value.Value, kwargs []value.KV) (value.Value, error) {
		x, ok := arg(args, kwargs, 0, "iter")
		if !ok {
			return nil, evalErr("join() takes exactly one argument (0 given)")
		}
		items, err := Iterate(x)
		if err != nil {
			return nil, err
		}
		parts := make([]string, len(items))
		for i, it := range items {
			parts[i] = it.String()
		}
		return value.Str(strings.Join(parts, s)), nil
	})
	strip := func(name string, fn func(string, func(rune) bool) string) {
		method(name, func(s string, args []value.Value, kwargs []value.KV) (value.Value, error) {
			if chars, ok := strArg(args, kwargs, 0, "chars"); ok {
				return value.Str(fn(s, func(r rune) bool { return strings.ContainsRune(chars, r) })), nil
			}
			return value.Str(fn(s, rustIsWhitespace)), nil
		})
	}
	strip("strip", strings.TrimFunc)
	strip("lstrip", strings.TrimLeftFunc)
	strip("rstrip", strings.TrimRightFunc)
	method("replace", func(s string, args []value.Value, kwargs []value.KV) (value.Value, error) {
		old, _ := arg(args, kwargs, 0, "old")
		new, _ := arg(args, kwargs, 1, "new")
		if old == nil || new == nil {
			return nil, evalErr("replace() takes at least 2 arguments")
		}
		n := -1
		if c, ok := optArg(args, kwargs, 2, "count"); ok {
			v, _ := asInt(c)
			if v >= 0 {
				n = int(v)
			}
		}
		return value.Str(strings.Replace(s, asStr(old), asStr(new), n)), nil
	})
	method("removeprefix", func(s string, args []value.Value, kwargs []value.KV) (value.Value, error) {
		p, _ := strArg(args, kwargs, 0, "prefix")
		return value.Str(strings.TrimPrefix(s, p)), nil
	})
	method("removesuffix", func(s string, args []value.Value, kwargs []value.KV) (value.Value, error) {
		p, _ := strArg(args, kwargs, 0, "suffix")
		return value.Str(strings.TrimSuffix(s, p)), nil
	})
	method("split", func(s string, args []value.Value, kwargs []value.KV) (value.Value, error) {
		return split(s, args, kwargs, false)
	})
	method("rsplit", func(s string, args []value.Value, kwargs []value.KV) (value.Value, error) {
		return split(s, args, kwargs, true)
	})
	method("splitlines", func(s string, args []value.Value, kwargs []value.KV) (value.Value, error) {
		keep := false
		if k, ok := optArg(args, kwargs, 0, "keepends"); ok {
			keep = k.Truth()
		}
		var out []value.Value
		last := 0
		for i := 0; i < len(s); i++ {
			var endLen, adv int
			switch s[i] {
			case '\n':
				endLen, adv = 1, 1
			case '\r':
				if i+1 < len(s) && s[i+1] == '\n' {
					endLen, adv = 2, 2
				} else {
					endLen, adv = 1, 1
				}
			default:
				continue
			}
			end := i
			if keep {
				end = i + endLen
			}
			out = append(out, value.Str(s[last:end]))
			last = i + adv
			i += adv - 1
		}
		if last != len(s) {
			out = append(out, value.Str(s[last:]))
		}
		return value.NewList(out), nil
	})
	method("title", func(s string, _ []value.Value, _ []value.KV) (value.Value, error) {
		var b strings.Builder
		prevCased := false
		for _, c := range s {
			switch {
			case rustLowercase(c):
				if !prevCased {
					b.WriteString(titleRune(c))
				} else {
					b.WriteRune(c)
				}
				prevCased = true
			case rustUppercase(c) || unicode.IsTitle(c):
				if prevCased {
					b.WriteString(lowerText(string(c)))
				} else {
					b.WriteRune(c)
				}
				prevCased = true
			default:
				prevCased = false
				b.WriteRune(c)
			}
		}
		return value.Str(b.String()), nil
	})
	method("format", func(s string, args []value.Value, kwargs []value.KV) (value.Value, error) {
		out, err := Format(s, args, kwargs)
		if err != nil {
			return nil, err
		}
		return value.Str(out), nil
	})
}

type iterResult struct {
	vs  []value.Value
	err error
}

func (r iterResult) toList() (value.Value, error) {
	if r.err != nil {
		return nil, r.err
	}
	return value.NewList(append([]value.Value(nil), r.vs...)), nil
}

func all(s string, f func(rune) bool) bool {
	for _, r := range s {
		if !f(r) {
			return false
		}
	}
	return true
}

func isCase(s string, is, opposite func(rune) bool) bool {
	cased := false
	for _, c := range s {
		if opposite(c) {
			return false
		}
		if !cased && is(c) {
			cased = true
		}
	}
	return cased
}

func isASCIISpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func split(s string, args []value.Value, kwargs []value.KV, right bool) (value.Value, error) {
	maxsplit := int64(-1)
	if m, ok := optArg(args, kwargs, 1, "maxsplit"); ok {
		maxsplit, _ = asInt(m)
	}
	var parts []string
	if sep, ok := strArg(args, kwargs, 0, "sep"); ok {
		switch {
		case sep == "":
			parts = splitEmpty(s, maxsplit, right)
		case maxsplit < 0:
			parts = strings.Split(s, sep)
		case !right:
			parts = strings.SplitN(s, sep, int(maxsplit)+1)
		default:
			// rsplitn: split from the right
			rest := s
			for n := int64(0); n < maxsplit; n++ {
				i := strings.LastIndex(rest, sep)
				if i < 0 {
					break
				}
				parts = append(parts, rest[i+len(sep):])
				rest = rest[:i]
			}
			parts = append(parts, rest)
			for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
				parts[i], parts[j] = parts[j], parts[i]
			}
		}
	} else if !right {
		last, count := 0, maxsplit
		for i := 0; i < len(s); i++ {
			if !isASCIISpace(s[i]) {
				continue
			}
			if last == i {
				last++
				continue
			}
			if count == 0 {
				break
			}
			parts = append(parts, s[last:i])
			last = i + 1
			count--
		}
		if last != len(s) {
			parts = append(parts, s[last:])
		}
	} else {
		hay, count := s, maxsplit
		for {
			i := strings.LastIndexFunc(hay, func(r rune) bool { return r < 0x80 && isASCIISpace(byte(r)) })
			if i < 0 {
				break
			}
			if i+1 != len(hay) {
				if count == 0 {
					break
				}
				parts = append(parts, hay[i+1:])
				count--
			}
			hay = hay[:i]
		}
		if hay != "" {
			parts = append(parts, hay)
		}
		for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
			parts[i], parts[j] = parts[j], parts[i]
		}
	}
	out := make([]value.Value, len(parts))
	for i, p := range parts {
		out[i] = value.Str(p)
	}
	return value.NewList(out), nil
}

// splitEmpty is Rust's split("") family: the empty pattern matches before every
// character and at the end, so "abc" splits into "", "a", "b", "c", "".
func splitEmpty(s string, maxsplit int64, right bool) []string {
	var bounds []int
	for i := range s {
		bounds = append(bounds, i)
	}
	bounds = append(bounds, len(s))
	var parts []string
	if !right {
		prev := 0
		for _, m := range bounds {
			if maxsplit >= 0 && int64(len(parts)) >= maxsplit {
				break
			}
			parts = append(parts, s[prev:m])
			prev = m
		}
		return append(parts, s[prev:])
	}
	next := len(s)
	for i := len(bounds) - 1; i >= 0; i-- {
		if maxsplit >= 0 && int64(len(parts)) >= maxsplit {
			break
		}
		parts = append(parts, s[bounds[i]:next])
		next = bounds[i]
	}
	parts = append(parts, s[:next])
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return parts
}
