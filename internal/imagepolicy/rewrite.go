package imagepolicy

import (
	"fmt"
	"sort"
	"strings"
)

// Rewrite returns src with the literals of subs (all of one file) replaced. Only the
// bytes of each literal change; the literal keeps its quote character.
func Rewrite(src []byte, subs []Substitution) ([]byte, error) {
	sorted := append([]Substitution(nil), subs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Start < sorted[j].Start })
	var b strings.Builder
	b.Grow(len(src))
	last := 0
	for _, s := range sorted {
		if s.Start < last || s.End > len(src) || s.Start >= s.End {
			return nil, fmt.Errorf("%s: substitution span %d..%d out of order or out of range", s.Location(), s.Start, s.End)
		}
		b.Write(src[last:s.Start])
		b.WriteString(quote(s.New, src[s.Start:s.End]))
		last = s.End
	}
	b.Write(src[last:])
	return []byte(b.String()), nil
}

// quote writes v as a one-line KCL string literal with the quote character of the
// literal it replaces. Values are image references (checked by referenceChars), so only
// the quote and backslash need escaping; `$` cannot occur.
func quote(v string, old []byte) string {
	q := byte('"')
	for _, c := range old {
		if c == '"' || c == '\'' {
			q = c
			break
		}
	}
	var b strings.Builder
	b.WriteByte(q)
	for i := 0; i < len(v); i++ {
		if v[i] == q || v[i] == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(v[i])
	}
	b.WriteByte(q)
	return b.String()
}
