package value

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// JSONOptions are json.encode's options.
type JSONOptions struct {
	SortKeys      bool
	Indent        int
	IgnorePrivate bool // drop keys starting with "_"
	IgnoreNone    bool
}

// CompactJSON encodes v on one line the way the runtime's to_json_string does
// (`{"a": 1, "b": [1, 2]}`: a space after ':' and ',').
func CompactJSON(v Value) string { return EncodeJSON(v, JSONOptions{}) }

// EncodeJSON encodes v as json.encode does. Undefined and functions are dropped
// from containers; None becomes null unless IgnoreNone.
func EncodeJSON(v Value, opts JSONOptions) string {
	e := jsonEncoder{opts: opts}
	if opts.Indent > 0 {
		e.indent = strings.Repeat(" ", opts.Indent)
	}
	e.value(v)
	return e.b.String()
}

type jsonEncoder struct {
	b      strings.Builder
	opts   JSONOptions
	indent string
	depth  int
}

func (e *jsonEncoder) newline() {
	if e.indent == "" {
		return
	}
	e.b.WriteByte('\n')
	for range e.depth {
		e.b.WriteString(e.indent)
	}
}

func (e *jsonEncoder) sep(first bool) {
	if !first {
		e.b.WriteByte(',')
	}
	if e.indent != "" {
		e.newline()
	} else if !first {
		e.b.WriteByte(' ')
	}
}

func skipInContainer(v Value, opts JSONOptions) bool {
	switch v.(type) {
	case nil, UndefinedType, *Function, *Builtin:
		return true
	case NoneType:
		return opts.IgnoreNone
	}
	return false
}

func (e *jsonEncoder) value(v Value) {
	if e.depth > MaxNesting {
		e.b.WriteString("null") // self-referencing data: stop rather than overflow
		return
	}
	switch v := v.(type) {
	case nil, NoneType, UndefinedType:
		e.b.WriteString("null")
	case Bool:
		if v {
			e.b.WriteString("true")
		} else {
			e.b.WriteString("false")
		}
	case Int:
		e.b.WriteString(strconv.FormatInt(int64(v), 10))
	case Float:
		e.b.WriteString(JSONFloat(float64(v)))
	case Unit:
		e.b.WriteString(JSONFloat(v.Real))
	case Str:
		WriteJSONString(&e.b, string(v))
	case *List:
		e.b.WriteByte('[')
		e.depth++
		first := true
		for _, x := range v.Elems {
			if skipInContainer(x, e.opts) {
				continue
			}
			e.sep(first)
			first = false
			e.value(x)
		}
		e.depth--
		if !first {
			e.newline()
		}
		e.b.WriteByte(']')
	case *Dict:
		e.dict(v)
	case *Schema:
		e.dict(v.Config)
	default:
		e.b.WriteString("null")
	}
}

func (e *jsonEncoder) dict(d *Dict) {
	entries := d.entries
	if e.opts.SortKeys {
		entries = SortedEntries(d)
	}
	e.b.WriteByte('{')
	e.depth++
	first := true
	for _, en := range entries {
		if e.opts.IgnorePrivate && strings.HasPrefix(en.Key, "_") {
			continue
		}
		if skipInContainer(en.Value, e.opts) {
			continue
		}
		e.sep(first)
		first = false
		WriteJSONString(&e.b, en.Key)
		e.b.WriteString(": ")
		e.value(en.Value)
	}
	e.depth--
	if !first {
		e.newline()
	}
	e.b.WriteByte('}')
}

// SortedEntries returns d's entries sorted by key (byte order), leaving d alone.
func SortedEntries(d *Dict) []Entry {
	s := append([]Entry(nil), d.entries...)
	sort.SliceStable(s, func(i, j int) bool { return s[i].Key < s[j].Key })
	return s
}

// JSONFloat formats a float as serde_json (ryu) does: 1.0, 0.1, 1e16, 1.5e-7; NaN
// and infinities are null.
func JSONFloat(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "null"
	}
	return RyuFloat(f)
}

// RyuFloat formats a finite float like Rust's ryu crate (also used for YAML
// floats): shortest digits, scientific only outside 1e-5 .. 1e16.
func RyuFloat(f float64) string {
	if f == 0 {
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	neg := f < 0
	digits, kk := shortestDigits(math.Abs(f))
	length := len(digits)
	k := kk - length
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	switch {
	case k >= 0 && kk <= 16:
		b.WriteString(digits)
		b.WriteString(strings.Repeat("0", k))
		b.WriteString(".0")
	case kk > 0 && kk <= 16:
		b.WriteString(digits[:kk])
		b.WriteByte('.')
		b.WriteString(digits[kk:])
	case kk > -5 && kk <= 0:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -kk))
		b.WriteString(digits)
	case length == 1:
		b.WriteString(digits)
		b.WriteByte('e')
		b.WriteString(strconv.Itoa(kk - 1))
	default:
		b.WriteString(digits[:1])
		b.WriteByte('.')
		b.WriteString(digits[1:])
		b.WriteByte('e')
		b.WriteString(strconv.Itoa(kk - 1))
	}
	return b.String()
}

// shortestDigits returns the shortest decimal digits that read back as f > 0
// and the position of the decimal point (f = 0.digits × 10^point). strconv
// gives the digits of Rust's ryu crate for every float (checked on millions
// of random ones, see TestShortestDigits); a last digit that differs from
// kcl run comes from the engine's re-read of its JSON (EngineFloat), not from
// the digits.
func shortestDigits(f float64) (digits string, point int) {
	s := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(s, "e")
	e, _ := strconv.Atoi(exp)
	return strings.Replace(mant, ".", "", 1), e + 1
}

// WriteJSONString writes s quoted and escaped as serde_json does (non-ASCII kept).
func WriteJSONString(b *strings.Builder, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b.WriteString(`\ufffd`)
			} else {
				b.WriteString(s[i : i+size])
			}
			i += size
			continue
		}
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if c < 0x20 {
				b.WriteString(`\u00`)
				b.WriteByte(hex[c>>4])
				b.WriteByte(hex[c&0xf])
			} else {
				b.WriteByte(c)
			}
		}
		i++
	}
	b.WriteByte('"')
}
