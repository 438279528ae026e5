package modules

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

// strftime formats t with chrono's common specifiers.
func strftime(t time.Time, format string) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 >= len(format) {
			b.WriteByte(c)
			continue
		}
		i++
		switch format[i] {
		case 'Y':
			b.WriteString(strconv.Itoa(t.Year()))
		case 'C':
			b.WriteString(pad2(t.Year() / 100))
		case 'y':
			b.WriteString(pad2(t.Year() % 100))
		case 'm':
			b.WriteString(pad2(int(t.Month())))
		case 'b', 'h':
			b.WriteString(t.Month().String()[:3])
		case 'B':
			b.WriteString(t.Month().String())
		case 'd':
			b.WriteString(pad2(t.Day()))
		case 'e':
			b.WriteString(strings.Replace(pad2(t.Day()), "0", " ", 1))
		case 'a':
			b.WriteString(t.Weekday().String()[:3])
		case 'A':
			b.WriteString(t.Weekday().String())
		case 'w':
			b.WriteString(strconv.Itoa(int(t.Weekday())))
		case 'u':
			w := int(t.Weekday())
			if w == 0 {
				w = 7
			}
			b.WriteString(strconv.Itoa(w))
		case 'j':
			b.WriteString(leftPad(strconv.Itoa(t.YearDay()), 3))
		case 'H':
			b.WriteString(pad2(t.Hour()))
		case 'I':
			h := t.Hour() % 12
			if h == 0 {
				h = 12
			}
			b.WriteString(pad2(h))
		case 'p':
			if t.Hour() < 12 {
				b.WriteString("AM")
			} else {
				b.WriteString("PM")
			}
		case 'M':
			b.WriteString(pad2(t.Minute()))
		case 'S':
			b.WriteString(pad2(t.Second()))
		case 'f':
			b.WriteString(leftPad(strconv.Itoa(t.Nanosecond()), 9))
		case 's':
			b.WriteString(strconv.FormatInt(t.Unix(), 10))
		case 'z':
			b.WriteString(t.Format("-0700"))
		case 'Z':
			b.WriteString(t.Format("MST"))
		case 'D':
			b.WriteString(strftime(t, "%m/%d/%y"))
		case 'F':
			b.WriteString(strftime(t, "%Y-%m-%d"))
		case 'T':
			b.WriteString(strftime(t, "%H:%M:%S"))
		case 'R':
			b.WriteString(strftime(t, "%H:%M"))
		case 'c':
			b.WriteString(strftime(t, "%a %b %e %H:%M:%S %Y"))
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case '%':
			b.WriteByte('%')
		default:
			b.WriteByte('%')
			b.WriteByte(format[i])
		}
	}
	return b.String()
}

func pad2(n int) string { return leftPad(strconv.Itoa(n), 2) }

func leftPad(s string, n int) string {
	for len(s) < n {
		s = "0" + s
	}
	return s
}

// strptimeLayout converts a strftime format into a Go layout when every
// specifier has an exact Go equivalent.
func strptimeLayout(format string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		if i+1 >= len(format) {
			return "", false
		}
		i++
		switch format[i] {
		case 'Y':
			b.WriteString("2006")
		case 'y':
			b.WriteString("06")
		case 'm':
			b.WriteString("01")
		case 'b', 'h':
			b.WriteString("Jan")
		case 'B':
			b.WriteString("January")
		case 'd':
			b.WriteString("02")
		case 'e':
			b.WriteString("_2")
		case 'a':
			b.WriteString("Mon")
		case 'A':
			b.WriteString("Monday")
		case 'j':
			b.WriteString("002")
		case 'H':
			b.WriteString("15")
		case 'I':
			b.WriteString("03")
		case 'p':
			b.WriteString("PM")
		case 'M':
			b.WriteString("04")
		case 'S':
			b.WriteString("05")
		case 'z':
			b.WriteString("-0700")
		case 'Z':
			b.WriteString("MST")
		case 'F':
			b.WriteString("2006-01-02")
		case 'T':
			b.WriteString("15:04:05")
		case '%':
			b.WriteString("%")
		default:
			return "", false
		}
	}
	return b.String(), true
}

var iso8601Duration = regexp.MustCompile(`^P(?:\d+(?:\.\d+)?Y)?(?:\d+(?:\.\d+)?M)?(?:\d+(?:\.\d+)?W)?(?:\d+(?:\.\d+)?D)?(?:T(?:\d+(?:\.\d+)?H)?(?:\d+(?:\.\d+)?M)?(?:\d+(?:\.\d+)?S)?)?$`)

func init() {
	m := newModule("datetime")
	def(m, "today", func(_ *value.Thread, _ *value.Builtin, _ []value.Value, _ []value.KV) (value.Value, error) {
		now := time.Now()
		return value.Str(strftime(now, "%Y-%m-%d %H:%M:%S") + "." + strconv.FormatInt(now.Unix(), 10)), nil
	})
	def(m, "now", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		format, ok := strArg(args, kwargs, 0, "format")
		if !ok {
			format = "%a %b %d %H:%M:%S %Y"
		}
		return value.Str(strftime(time.Now(), format)), nil
	})
	def(m, "ticks", func(_ *value.Thread, _ *value.Builtin, _ []value.Value, _ []value.KV) (value.Value, error) {
		return value.Float(float64(time.Now().Unix())), nil
	})
	def(m, "date", func(_ *value.Thread, _ *value.Builtin, _ []value.Value, _ []value.KV) (value.Value, error) {
		return value.Str(strftime(time.Now(), "%Y-%m-%d %H:%M:%S")), nil
	})
	def(m, "validate", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		date, ok := strArg(args, kwargs, 0, "date")
		if !ok {
			return nil, evalErr("validate() takes 2 positional arguments (0 given)")
		}
		format, ok := strArg(args, kwargs, 1, "format")
		if !ok {
			return nil, evalErr("validate() takes 2 positional arguments (1 given)")
		}
		layout, ok := strptimeLayout(format)
		if !ok {
			return value.False, nil
		}
		_, err := time.Parse(layout, date)
		return value.Bool(err == nil), nil
	})
	def(m, "is_rfc3339", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		date, ok := strArg(args, kwargs, 0, "date")
		if !ok {
			return nil, missing("is_rfc3339", "date")
		}
		_, err := time.Parse(time.RFC3339Nano, date)
		return value.Bool(err == nil), nil
	})
	def(m, "is_iso8601", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		date, ok := strArg(args, kwargs, 0, "date")
		if !ok {
			return nil, missing("is_iso8601", "date")
		}
		if _, err := time.Parse(time.RFC3339Nano, date); err == nil {
			return value.True, nil
		}
		// P alone, or a T with nothing after it, is not a duration
		valid := date != "P" && !strings.HasSuffix(date, "T") && iso8601Duration.MatchString(date)
		return value.Bool(valid), nil
	})
}
