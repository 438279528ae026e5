package output

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

// The official engine prints YAML by converting values to JSON and emitting them
// with serde_yaml (libyaml's emitter, unlimited width, unicode on). This file is a
// direct printer with the same observable rules: block style, sequences inside
// mappings not indented, flow `[]`/`{}` only for empty containers, and libyaml's
// scalar style selection.

// yamlOptions are the JSON-stage options applied while printing.
type yamlOptions struct {
	sortKeys      bool
	ignorePrivate bool
	ignoreNone    bool
}

// maxYAMLDepth bounds nesting in printed YAML: indentation grows with depth, so
// the text grows with its square; no real manifest comes near this.
const maxYAMLDepth = 1000

type yamlPrinter struct {
	depth    int
	tooDeep  bool
	b        []byte
	opts     yamlOptions
	limit    int64 // 0: none
	overflow bool
}

// full reports (and remembers) that the output passed its cap.
func (p *yamlPrinter) full() bool {
	if p.limit > 0 && int64(len(p.b)) > p.limit {
		p.overflow = true
	}
	return p.overflow
}

// EncodeYAML prints one YAML document for v as the runtime's
// to_yaml_string_with_options does; the text ends with a newline.
func EncodeYAML(v value.Value, sortKeys, ignorePrivate, ignoreNone bool) []byte {
	p := yamlPrinter{opts: yamlOptions{sortKeys, ignorePrivate, ignoreNone}}
	p.root(v)
	return p.b
}

func (p *yamlPrinter) root(v value.Value) {
	switch x := p.normalize(v).(type) {
	case *value.List:
		if p.seqLen(x) == 0 {
			p.b = append(p.b, "[]\n"...)
			return
		}
		p.sequence(x, 0, false)
	case *value.Dict:
		if p.mapLen(x) == 0 {
			p.b = append(p.b, "{}\n"...)
			return
		}
		p.mapping(x, 0, false)
	default:
		p.scalar(x, 2, false) // a root block literal is indented like a mapping value
		if p.b[len(p.b)-1] != '\n' {
			p.b = append(p.b, '\n')
		}
	}
}

// normalize maps values to the JSON data model: schemas to dicts, units to
// floats, non-finite floats and Undefined to null.
func (p *yamlPrinter) normalize(v value.Value) value.Value {
	switch x := v.(type) {
	case *value.Schema:
		return x.Config
	case value.Unit:
		return value.Float(x.Real)
	case nil, value.UndefinedType:
		return value.None
	}
	return v
}

// skip reports whether an element or entry value is left out of a container.
func (p *yamlPrinter) skip(v value.Value) bool {
	switch v.(type) {
	case nil, value.UndefinedType, *value.Function, *value.Builtin:
		return true
	case value.NoneType:
		return p.opts.ignoreNone
	}
	return false
}

func (p *yamlPrinter) seqLen(l *value.List) int {
	n := 0
	for _, e := range l.Elems {
		if !p.skip(e) {
			n++
		}
	}
	return n
}

func (p *yamlPrinter) entries(d *value.Dict) []value.Entry {
	if p.opts.sortKeys {
		return value.SortedEntries(d)
	}
	return d.Entries()
}

func (p *yamlPrinter) keep(e value.Entry) bool {
	if p.opts.ignorePrivate && strings.HasPrefix(e.Key, "_") {
		return false
	}
	return !p.skip(e.Value)
}

func (p *yamlPrinter) mapLen(d *value.Dict) int {
	n := 0
	for _, e := range d.Entries() {
		if p.keep(e) {
			n++
		}
	}
	return n
}

const spaces = "                                                                "

func (p *yamlPrinter) pad(n int) {
	for n > len(spaces) {
		p.b = append(p.b, spaces...)
		n -= len(spaces)
	}
	p.b = append(p.b, spaces[:n]...)
}

// mapping prints a non-empty block mapping whose keys sit at column indent; when
// inline the first key continues the current line (after "- ").
func (p *yamlPrinter) mapping(d *value.Dict, indent int, inline bool) {
	first := true
	for _, e := range p.entries(d) {
		if !p.keep(e) {
			continue
		}
		if p.full() {
			return
		}
		if !first || !inline {
			p.pad(indent)
		}
		first = false
		if simpleKey(e.Key) {
			p.scalarText(e.Key, indent, true)
			p.b = append(p.b, ':')
		} else {
			// libyaml writes long or multi-line keys as "? key" / ": value"
			p.b = append(p.b, "? "...)
			p.scalarText(e.Key, indent+2, false)
			if p.b[len(p.b)-1] != '\n' {
				p.b = append(p.b, '\n')
			}
			p.pad(indent)
			p.b = append(p.b, ':')
			// after an explicit ": " collections continue on the same line,
			// as after "- "
			p.node(e.Value, indent, false)
			continue
		}
		p.node(e.Value, indent, true)
	}
}

// simpleKey mirrors libyaml's check: keys longer than 128 bytes or spanning lines
// are written in the explicit "? " form.
func simpleKey(k string) bool {
	return len(k) <= 128 && !strings.ContainsAny(k, "\n\r") && !strings.Contains(k, "\u0085") &&
		!strings.Contains(k, "\u2028") && !strings.Contains(k, "\u2029")
}

// sequence prints a non-empty block sequence with its "-" at column indent.
func (p *yamlPrinter) sequence(l *value.List, indent int, inline bool) {
	first := true
	for _, e := range l.Elems {
		if p.skip(e) {
			continue
		}
		if p.full() {
			return
		}
		if !first || !inline {
			p.pad(indent)
		}
		first = false
		p.b = append(p.b, '-')
		p.node(e, indent, false)
	}
}

// node prints a value after a ":" or "-" indicator of a container at indent.
func (p *yamlPrinter) node(v value.Value, indent int, inMapping bool) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxYAMLDepth {
		p.tooDeep, p.overflow = true, true
		return
	}
	switch x := p.normalize(v).(type) {
	case *value.Dict:
		if p.mapLen(x) == 0 {
			p.b = append(p.b, " {}\n"...)
			return
		}
		if inMapping {
			p.b = append(p.b, '\n')
			p.mapping(x, indent+2, false)
		} else {
			p.b = append(p.b, ' ')
			p.mapping(x, indent+2, true)
		}
	case *value.List:
		if p.seqLen(x) == 0 {
			p.b = append(p.b, " []\n"...)
			return
		}
		if inMapping {
			p.b = append(p.b, '\n')
			p.sequence(x, indent, false) // sequences in mappings are not indented
		} else {
			p.b = append(p.b, ' ')
			p.sequence(x, indent+2, true)
		}
	default:
		p.b = append(p.b, ' ')
		p.scalar(x, indent+2, false)
		if p.b[len(p.b)-1] != '\n' {
			p.b = append(p.b, '\n')
		}
	}
}

// scalar prints a scalar; indent is where block-literal lines start.
func (p *yamlPrinter) scalar(v value.Value, indent int, key bool) {
	switch x := v.(type) {
	case value.NoneType:
		p.b = append(p.b, "null"...)
	case value.Bool:
		if x {
			p.b = append(p.b, "true"...)
		} else {
			p.b = append(p.b, "false"...)
		}
	case value.Int:
		p.b = strconv.AppendInt(p.b, int64(x), 10)
	case value.Float:
		// the engine re-reads its JSON text before printing YAML
		p.b = append(p.b, value.JSONFloat(value.EngineFloat(float64(x)))...)
	case value.Str:
		p.scalarText(string(x), indent, key)
	default:
		p.b = append(p.b, "null"...)
	}
}

type scalarStyle uint8

const (
	stylePlain scalarStyle = iota
	styleSingle
	styleDouble
	styleLiteral
)

// scalarText prints a string in the style serde_yaml + libyaml choose.
func (p *yamlPrinter) scalarText(s string, indent int, key bool) {
	switch chooseStyle(s, key) {
	case stylePlain:
		p.b = append(p.b, s...)
	case styleSingle:
		p.singleQuoted(s, indent)
	case styleDouble:
		p.b = appendDoubleQuoted(p.b, s)
	case styleLiteral:
		p.literal(s, indent)
	}
}

// plainSafe reports strings made only of letters, digits and "-._/", which
// libyaml always allows plain; most manifest strings are like this.
func plainSafe(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '/') {
			return false
		}
	}
	return s != ""
}

func chooseStyle(s string, key bool) scalarStyle {
	if plainSafe(s) {
		if ambiguousString(s) {
			return styleSingle
		}
		return stylePlain
	}
	var want scalarStyle
	switch {
	case strings.Contains(s, "\n"):
		want = styleLiteral
	case ambiguousString(s):
		want = styleSingle
	default:
		want = stylePlain
	}
	a := analyzeScalar(s)
	if key && a.multiline {
		return styleDouble
	}
	if want == stylePlain && !a.blockPlainAllowed {
		want = styleSingle
	}
	if want == styleSingle && !a.singleQuotedAllowed {
		want = styleDouble
	}
	if want == styleLiteral && (!a.blockAllowed || key) {
		want = styleDouble
	}
	return want
}

// ambiguousString is serde_yaml's rule for strings that must be quoted because
// some YAML parser could read them as another type.
func ambiguousString(s string) bool {
	if s == "" {
		return true
	}
	c := s[0]
	if c >= '0' && c <= '9' || c == '-' || c == '.' || c == '+' {
		return true
	}
	if len(s) > 5 {
		return false
	}
	var buf [5]byte
	for i := 0; i < len(s); i++ {
		b := s[i]
		if b >= 'A' && b <= 'Z' {
			b += 'a' - 'A'
		}
		buf[i] = b
	}
	switch string(buf[:len(s)]) {
	case "true", "false", "null", "~", "y", "yes", "n", "no", "on", "off", "nil", "nan":
		return true
	}
	return false
}

type scalarAnalysis struct {
	multiline, blockPlainAllowed, singleQuotedAllowed, blockAllowed bool
}

func isBreakAt(s string, i int) (bool, int) {
	switch {
	case s[i] == '\n' || s[i] == '\r':
		return true, 1
	case strings.HasPrefix(s[i:], "\u0085"):
		return true, 2
	case strings.HasPrefix(s[i:], "\u2028"), strings.HasPrefix(s[i:], "\u2029"):
		return true, 3
	}
	return false, 0
}

// isPrintable is libyaml's IS_PRINTABLE on the UTF-8 sequence starting at i.
func isPrintable(s string, i int) bool {
	c := s[i]
	next := func(k int) byte {
		if i+k < len(s) {
			return s[i+k]
		}
		return 0
	}
	switch {
	case c == 0x0A || c >= 0x20 && c <= 0x7E:
		return true
	case c == 0xC2:
		return next(1) >= 0xA0
	case c > 0xC2 && c < 0xED:
		return true
	case c == 0xED:
		return next(1) < 0xA0
	case c == 0xEE:
		return true
	case c == 0xEF:
		if next(1) == 0xBB && next(2) == 0xBF {
			return false
		}
		return !(next(1) == 0xBF && (next(2) == 0xBE || next(2) == 0xBF))
	case c >= 0xF0 && c <= 0xF4:
		return true
	}
	return false
}

func isBlankZ(s string, i int) bool {
	if i >= len(s) {
		return true
	}
	if s[i] == ' ' || s[i] == '\t' {
		return true
	}
	br, _ := isBreakAt(s, i)
	return br
}

func width(s string, i int) int {
	_, n := utf8.DecodeRuneInString(s[i:])
	return n
}

// analyzeScalar is libyaml's yaml_emitter_analyze_scalar for block context.
func analyzeScalar(s string) scalarAnalysis {
	if s == "" {
		return scalarAnalysis{blockPlainAllowed: true, singleQuotedAllowed: true}
	}
	var blockIndicators, lineBreaks, special bool
	var leadingSpace, leadingBreak, trailingSpace, trailingBreak, breakSpace, spaceBreak bool
	var previousSpace, previousBreak bool
	if strings.HasPrefix(s, "---") || strings.HasPrefix(s, "...") {
		blockIndicators = true
	}
	precededByWhitespace := true
	followedByWhitespace := isBlankZ(s, width(s, 0))
	for i := 0; i < len(s); {
		c := s[i]
		w := width(s, i)
		if i == 0 {
			switch c {
			case '#', ',', '[', ']', '{', '}', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
				blockIndicators = true
			case '?', ':':
				if followedByWhitespace {
					blockIndicators = true
				}
			case '-':
				if followedByWhitespace {
					blockIndicators = true
				}
			}
		} else {
			switch c {
			case ':':
				if followedByWhitespace {
					blockIndicators = true
				}
			case '#':
				if precededByWhitespace {
					blockIndicators = true
				}
			}
		}
		if !isPrintable(s, i) {
			special = true
		}
		isBreak, _ := isBreakAt(s, i)
		if isBreak {
			lineBreaks = true
		}
		switch {
		case c == ' ':
			if i == 0 {
				leadingSpace = true
			}
			if i+w == len(s) {
				trailingSpace = true
			}
			if previousBreak {
				breakSpace = true
			}
			previousSpace, previousBreak = true, false
		case isBreak:
			if i == 0 {
				leadingBreak = true
			}
			if i+w == len(s) {
				trailingBreak = true
			}
			if previousSpace {
				spaceBreak = true
			}
			previousSpace, previousBreak = false, true
		default:
			previousSpace, previousBreak = false, false
		}
		precededByWhitespace = isBlankZ(s, i)
		i += w
		if i < len(s) {
			followedByWhitespace = isBlankZ(s, i+width(s, i))
		}
	}
	a := scalarAnalysis{multiline: lineBreaks, blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: true}
	if leadingSpace || leadingBreak || trailingSpace || trailingBreak {
		a.blockPlainAllowed = false
	}
	if trailingSpace {
		a.blockAllowed = false
	}
	if breakSpace {
		a.blockPlainAllowed = false
		a.singleQuotedAllowed = false
	}
	if spaceBreak || special {
		a.blockPlainAllowed, a.singleQuotedAllowed, a.blockAllowed = false, false, false
	}
	if lineBreaks || blockIndicators {
		a.blockPlainAllowed = false
	}
	return a
}

// literal prints a block literal: "|" with indentation and chomping hints, then
// each non-empty line at indent.
func (p *yamlPrinter) literal(s string, indent int) {
	p.b = append(p.b, '|')
	if br, _ := isBreakAt(s, 0); br || s[0] == ' ' {
		p.b = append(p.b, '2')
	}
	// chomping: "-" without a final break, "+" with two or more (or only one)
	lastStart := len(s) - 1
	for lastStart > 0 && s[lastStart]&0xC0 == 0x80 {
		lastStart--
	}
	if br, _ := isBreakAt(s, lastStart); !br {
		p.b = append(p.b, '-')
	} else if lastStart == 0 {
		p.b = append(p.b, '+')
	} else {
		prev := lastStart - 1
		for prev > 0 && s[prev]&0xC0 == 0x80 {
			prev--
		}
		if br, _ := isBreakAt(s, prev); br {
			p.b = append(p.b, '+')
		}
	}
	p.b = append(p.b, '\n')
	breaks := true
	for i := 0; i < len(s); {
		if br, n := isBreakAt(s, i); br {
			if s[i] == '\n' {
				p.b = append(p.b, '\n')
			} else {
				p.b = append(p.b, s[i:i+n]...) // libyaml copies other breaks as they are
			}
			i += n
			breaks = true
			continue
		}
		if breaks {
			p.pad(indent)
		}
		w := width(s, i)
		p.b = append(p.b, s[i:i+w]...)
		i += w
		breaks = false
	}
}

// singleQuoted writes s in single quotes. Line separators (U+2028/2029, the only
// breaks that reach this style) are copied and, as libyaml does, the text after
// them and the closing quote are indented.
func (p *yamlPrinter) singleQuoted(s string, indent int) {
	p.b = append(p.b, '\'')
	breaks := false
	for i := 0; i < len(s); {
		if br, n := isBreakAt(s, i); br {
			p.b = append(p.b, s[i:i+n]...)
			i += n
			breaks = true
			continue
		}
		if breaks {
			p.pad(indent)
			breaks = false
		}
		if s[i] == '\'' {
			p.b = append(p.b, '\'')
		}
		p.b = append(p.b, s[i])
		i++
	}
	if breaks {
		p.pad(indent)
	}
	p.b = append(p.b, '\'')
}

// appendDoubleQuoted writes s with libyaml's double-quoted escapes.
func appendDoubleQuoted(b []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		r, w := utf8.DecodeRuneInString(s[i:])
		br, _ := isBreakAt(s, i)
		if !isPrintable(s, i) || r == 0xFEFF || br || c == '"' || c == '\\' {
			b = append(b, '\\')
			switch r {
			case 0:
				b = append(b, '0')
			case 0x07:
				b = append(b, 'a')
			case 0x08:
				b = append(b, 'b')
			case 0x09:
				b = append(b, 't')
			case 0x0A:
				b = append(b, 'n')
			case 0x0B:
				b = append(b, 'v')
			case 0x0C:
				b = append(b, 'f')
			case 0x0D:
				b = append(b, 'r')
			case 0x1B:
				b = append(b, 'e')
			case '"':
				b = append(b, '"')
			case '\\':
				b = append(b, '\\')
			case 0x85:
				b = append(b, 'N')
			case 0xA0:
				b = append(b, '_')
			case 0x2028:
				b = append(b, 'L')
			case 0x2029:
				b = append(b, 'P')
			default:
				switch {
				case r <= 0xFF:
					b = append(b, 'x', hex[r>>4&0xF], hex[r&0xF])
				case r <= 0xFFFF:
					b = append(b, 'u', hex[r>>12&0xF], hex[r>>8&0xF], hex[r>>4&0xF], hex[r&0xF])
				default:
					b = append(b, 'U')
					for shift := 28; shift >= 0; shift -= 4 {
						b = append(b, hex[r>>uint(shift)&0xF])
					}
				}
			}
			i += w
			continue
		}
		b = append(b, s[i:i+w]...)
		i += w
	}
	return append(b, '"')
}
