package compiler

import (
	"regexp"
	"strings"
)

const redacted = "[redacted]"

// redactor removes secret-derived argument values from text that may reach logs,
// conditions or events (engine error messages can quote argument values).
type redactor struct {
	long  []string         // replaced wherever they occur
	short []*regexp.Regexp // too short to replace blindly: whole words only
}

// minBlindRedaction is the length from which a value is replaced wherever it
// appears; shorter values would mangle unrelated words.
const minBlindRedaction = 4

func newRedactor(secrets []string) *redactor {
	r := &redactor{}
	for _, s := range secrets {
		s = strings.TrimSpace(s)
		switch {
		case s == "":
		case len(s) >= minBlindRedaction:
			r.long = append(r.long, s)
		default:
			r.short = append(r.short, regexp.MustCompile(`(^|[^\w])`+regexp.QuoteMeta(s)+`($|[^\w])`))
		}
	}
	// Longest first, so a secret containing another is removed whole.
	for i := 1; i < len(r.long); i++ {
		for j := i; j > 0 && len(r.long[j]) > len(r.long[j-1]); j-- {
			r.long[j], r.long[j-1] = r.long[j-1], r.long[j]
		}
	}
	return r
}

func (r *redactor) redact(text string) string {
	for _, s := range r.long {
		text = strings.ReplaceAll(text, s, redacted)
	}
	for _, re := range r.short {
		text = re.ReplaceAllString(text, "${1}"+redacted+"${2}")
	}
	return text
}
