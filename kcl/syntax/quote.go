package syntax

import (
	"fmt"
	"strings"
)

// QuoteString returns a double-quoted KCL string literal whose value is s, for
// tools that rewrite a literal in place (the image-policy resolver). Backslash,
// quote and control characters are escaped and "${" becomes "\${" so that the
// value is never interpolated. KCL cannot spell a value holding "${" with no
// "}" after it in a quoted literal; QuoteString returns an error for those.
func QuoteString(s string) (string, error) {
	// Interpolations run from "${" to the next "}", so the last "${" decides.
	if i := strings.LastIndex(s, "${"); i >= 0 && !strings.Contains(s[i:], "}") {
		return "", fmt.Errorf("string %q has an unclosed ${ that KCL would read as interpolation", s)
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			b.WriteString(`\\`)
		case c == '"':
			b.WriteString(`\"`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '$' && i+1 < len(s) && s[i+1] == '{':
			b.WriteString(`\$`)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String(), nil
}
