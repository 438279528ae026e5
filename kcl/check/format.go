package check

import (
	"strconv"
	"strings"
)

func rustDebugString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func rustDebugList(items []string) string {
	out := ""
	for i, s := range items {
		if i > 0 {
			out += ", "
		}
		out += rustDebugString(s)
	}
	return out
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// rustFloat prints a float as Rust's Display does (80.0 is "80").
func rustFloat(f float64) string {
	return strconv.FormatFloat(f, 'f', -1, 64)
}
