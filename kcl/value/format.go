package value

import (
	"math"
	"strconv"
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
)

// FormatSpec is a parsed Python-style format spec ("{:>08.2f}"), as the runtime
// implements it for str.format.
type FormatSpec struct {
	Fill      rune // 0: none
	Align     byte // '<' '>' '=' '^' or 0
	Sign      byte // '+' '-' ' ' or 0
	Alternate bool
	Width     int // -1: none
	Grouping  byte
	Precision int // -1: none
	Type      byte
}

func isAlign(r rune) bool { return r == '<' || r == '>' || r == '=' || r == '^' }

// ParseFormatSpec parses a spec; errors carry the runtime's messages.
func ParseFormatSpec(text string) (FormatSpec, error) {
	spec := FormatSpec{Width: -1, Precision: -1}
	s := text
	if len(s) >= 2 && s[0] == '!' {
		s = s[2:]
	}
	rs := []rune(s)
	switch {
	case len(rs) >= 2 && isAlign(rs[1]):
		spec.Fill, spec.Align = rs[0], byte(rs[1])
		s = string(rs[2:])
	case len(rs) >= 1 && isAlign(rs[0]):
		spec.Align = byte(rs[0])
		s = string(rs[1:])
	}
	if s != "" && (s[0] == '+' || s[0] == '-' || s[0] == ' ') {
		spec.Sign = s[0]
		s = s[1:]
	}
	if s != "" && s[0] == '#' {
		spec.Alternate = true
		s = s[1:]
	}
	zero := false
	if s != "" && s[0] == '0' {
		zero = true
		s = s[1:]
	}
	number := func() (int, bool, error) {
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == 0 {
			return 0, false, nil
		}
		n, err := strconv.Atoi(s[:i])
		if err != nil {
			return 0, false, Errorf(errkind.Evaluation, "Too many decimal digits in format string")
		}
		s = s[i:]
		return n, true, nil
	}
	if n, ok, err := number(); err != nil {
		return spec, err
	} else if ok {
		spec.Width = n
	}
	if s != "" && (s[0] == '_' || s[0] == ',') {
		spec.Grouping = s[0]
		s = s[1:]
	}
	if s != "" && s[0] == '.' {
		save := s
		s = s[1:]
		if n, ok, err := number(); err != nil {
			return spec, err
		} else if ok {
			spec.Precision = n
		} else {
			s = save
		}
	}
	if s != "" && strings.IndexByte("sbcdoxXeEfFgGn%", s[0]) >= 0 {
		spec.Type = s[0]
		s = s[1:]
	}
	if s != "" {
		return spec, Errorf(errkind.Evaluation, "Invalid format specifier")
	}
	if zero && spec.Fill == 0 {
		spec.Fill = '0'
		if spec.Align == 0 {
			spec.Align = '='
		}
	}
	return spec, nil
}

// FormatValue formats v with a spec as str.format does: ints and floats honour
// the spec, every other value prints as str() would.
func FormatValue(v Value, spec string) (string, error) {
	switch x := v.(type) {
	case Int:
		fs, err := ParseFormatSpec(spec)
		if err != nil {
			return "", err
		}
		return fs.formatInt(int64(x))
	case Float:
		fs, err := ParseFormatSpec(spec)
		if err != nil {
			return "", err
		}
		return fs.formatFloat(float64(x))
	}
	return v.String(), nil
}

func (fs FormatSpec) separatorInterval() int {
	switch fs.Type {
	case 'b', 'o', 'x', 'X':
		return 4
	}
	return 3
}

func (fs FormatSpec) group(s string) string {
	if fs.Grouping == 0 {
		return s
	}
	intPart, frac, hasFrac := strings.Cut(s, ".")
	interval := fs.separatorInterval()
	var b strings.Builder
	remaining := len(intPart)
	for _, c := range intPart {
		b.WriteRune(c)
		remaining--
		if remaining%interval == 0 && remaining > 0 {
			b.WriteByte(fs.Grouping)
		}
	}
	if hasFrac {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}

func (fs FormatSpec) signText(negative bool) string {
	if negative {
		return "-"
	}
	switch fs.Sign {
	case '+':
		return "+"
	case ' ':
		return " "
	}
	return ""
}

func (fs FormatSpec) align(mag, sign string) string {
	fill := " "
	if fs.Fill != 0 {
		fill = string(fs.Fill)
	}
	need := 0
	if fs.Width >= 0 {
		need = max(0, fs.Width-len(mag)-len(sign))
	}
	pad := func(n int) string { return strings.Repeat(fill, n) }
	switch fs.Align {
	case '<':
		return sign + mag + pad(need)
	case '=':
		return sign + pad(need) + mag
	case '^':
		l := need / 2
		return pad(l) + sign + mag + pad(need-l)
	}
	return pad(need) + sign + mag
}

func (fs FormatSpec) formatInt(n int64) (string, error) {
	mag := uint64(n)
	if n < 0 {
		mag = uint64(-n)
	}
	prefix := ""
	if fs.Alternate {
		switch fs.Type {
		case 'b':
			prefix = "0b"
		case 'o':
			prefix = "0o"
		case 'x', 'X':
			prefix = "0x"
		}
	}
	var s string
	switch fs.Type {
	case 'b':
		s = strconv.FormatUint(mag, 2)
	case 'o':
		s = strconv.FormatUint(mag, 8)
	case 'x':
		s = strconv.FormatUint(mag, 16)
	case 'X':
		s = strings.ToUpper(strconv.FormatUint(mag, 16))
	case 'd', 'n', 0:
		s = strconv.FormatUint(mag, 10)
		if n == math.MinInt64 {
			// the runtime's magnitude -n wraps to itself and keeps its sign:
			// "{}".format(-9223372036854775808) is "--9223372036854775808"
			s = "-" + s
		}
	case 's', 'c', 'g', 'G':
		return "", Errorf(errkind.Evaluation, "Unknown format code '%c' for object of type 'int'", fs.Type)
	default: // f F e E %
		// 0.12.1 puts the int's sign before the whole formatted float, which
		// has its own: "{:.2f}".format(-7) is "--7.00", "{:+.2f}".format(7) "++7.00".
		f, err := fs.formatFloat(float64(n))
		return fs.signText(n < 0) + f, err
	}
	return fs.align(prefix+fs.group(s), fs.signText(n < 0)), nil
}

func trimRedundant(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

func caseText(s string, upper bool) string {
	if upper {
		return strings.ToUpper(s)
	}
	return s
}

func nonFinite(m float64, upper bool) (string, bool) {
	switch {
	case math.IsNaN(m):
		return caseText("nan", upper), true
	case math.IsInf(m, 0):
		return caseText("inf", upper), true
	}
	return "", false
}

// pyExponent rewrites Go's exponent form to Python's (e+05, e-07, e+100).
func pyExponent(s string, upper bool) string {
	mant, exp, ok := strings.Cut(s, "e")
	if !ok {
		return s
	}
	e := "e"
	if upper {
		e = "E"
	}
	sign := exp[0]
	digits := strings.TrimLeft(exp[1:], "0")
	for len(digits) < 2 {
		digits = "0" + digits
	}
	return mant + e + string(sign) + digits
}

func (fs FormatSpec) formatFloat(num float64) (string, error) {
	precision := fs.Precision
	if precision < 0 {
		precision = 6
	}
	m := math.Abs(num)
	upper := fs.Type == 'F' || fs.Type == 'E' || fs.Type == 'G'
	var s string
	switch fs.Type {
	case 'f', 'F':
		if t, ok := nonFinite(m, upper); ok {
			s = t
		} else {
			s = strconv.FormatFloat(m, 'f', precision, 64)
		}
	case 'e', 'E':
		if t, ok := nonFinite(m, upper); ok {
			s = t
		} else {
			s = pyExponent(strconv.FormatFloat(m, 'e', precision, 64), upper)
		}
	case 'g', 'G':
		if precision == 0 {
			precision = 1
		}
		if t, ok := nonFinite(m, upper); ok {
			s = t
			break
		}
		r := strconv.FormatFloat(m, 'e', precision-1, 64)
		base, expText, _ := strings.Cut(r, "e")
		exp, _ := strconv.Atoi(expText)
		if exp < -4 || exp >= precision {
			if len(base) > precision+1 {
				base = base[:precision+1]
			}
			s = pyExponent(trimRedundant(base)+"e"+expText, upper)
		} else {
			s = trimRedundant(strconv.FormatFloat(m, 'f', precision-1-exp, 64))
		}
	case '%':
		if math.IsNaN(m) {
			s = "nan%"
		} else if math.IsInf(m, 0) {
			s = "inf%"
		} else {
			s = strconv.FormatFloat(m*100, 'f', precision, 64) + "%"
		}
	case 0:
		if t, ok := nonFinite(m, false); ok {
			s = t
		} else {
			s = pyFloatRepr(m)
		}
	case 'n':
		return "", Errorf(errkind.Evaluation, "Format code 'n' for object of type 'float' not implemented yet")
	default:
		return "", Errorf(errkind.Evaluation, "Unknown format code '%c' for object of type 'float'", fs.Type)
	}
	s = fs.group(s)
	return fs.align(s, fs.signText(math.Signbit(num) && !math.IsNaN(num))), nil
}

// pyFloatRepr is the runtime's float_to_string: 3.0, 0.25, 1e+16, 1.5e-07.
func pyFloatRepr(v float64) string {
	e := strconv.FormatFloat(v, 'e', -1, 64)
	mant, expText, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expText)
	if exp < 16 && exp > -5 {
		if math.Abs(v-math.Round(v)) < 2.220446049250313e-16 {
			return strconv.FormatFloat(v, 'f', 1, 64)
		}
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return pyExponent(mant+"e"+expText, false)
}
