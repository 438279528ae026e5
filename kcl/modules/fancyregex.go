package modules

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/dlclark/regexp2"
)

// The patterns Go's RE2 engine refuses but the runtime's fancy_regex accepts
// (look-ahead (?=…)/(?!…), look-behind (?<=…)/(?<!…), back-references \1 and
// (?P=name)) run on regexp2, a backtracking engine, in its RE2 mode (`$` only
// at the end, (?P<name>…) groups). A match that runs past fancyTimeout fails
// with an error instead of hanging the run.

const fancyTimeout = 2 * time.Second

type fancyRegex struct {
	re *regexp2.Regexp
	// order maps a capture's number in the pattern (as Rust numbers them, left
	// to right) to regexp2's group number (.NET numbers named groups last).
	order []int
	names map[string]int // name -> capture number in the pattern
}

func compileFancy(pattern string) (*fancyRegex, error) {
	re, err := regexp2.Compile(unicodeClasses(fancySyntax(pattern), true), regexp2.RE2)
	if err != nil {
		return nil, err
	}
	re.MatchTimeout = fancyTimeout
	f := &fancyRegex{re: re, order: []int{0}, names: map[string]int{}}
	unnamed := 0
	for _, name := range captureNames(pattern) {
		if name == "" {
			unnamed++
			f.order = append(f.order, unnamed)
			continue
		}
		f.names[name] = len(f.order)
		f.order = append(f.order, re.GroupNumberFromName(name))
	}
	return f, nil
}

// fancySyntax rewrites what regexp2 spells otherwise: (?P=name) is \k<name>.
func fancySyntax(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '\\' && i+1 < len(p) {
			b.WriteString(p[i : i+2])
			i++
			continue
		}
		if strings.HasPrefix(p[i:], "(?P=") {
			if end := strings.IndexByte(p[i:], ')'); end > 0 {
				b.WriteString(`\k<` + p[i+4:i+end] + `>`)
				i += end
				continue
			}
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

// captureNames lists the capturing groups of a pattern left to right, "" for
// an unnamed one.
func captureNames(p string) []string {
	var out []string
	inClass := false
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\\':
			i++
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
			if i+1 < len(p) && p[i+1] == '^' {
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				i++
			}
		case c == '(':
			rest := p[i+1:]
			switch {
			case !strings.HasPrefix(rest, "?"):
				out = append(out, "")
			case strings.HasPrefix(rest, "?P<"), strings.HasPrefix(rest, "?<") && !strings.HasPrefix(rest, "?<=") && !strings.HasPrefix(rest, "?<!"):
				start := strings.IndexByte(rest, '<') + 1
				if end := strings.IndexByte(rest[start:], '>'); end >= 0 {
					out = append(out, rest[start:start+end])
				}
			}
		}
	}
	return out
}

// find returns the capture positions (rune offsets, -1 for a group that did
// not take part) of the leftmost match at or after from, or nil.
func (f *fancyRegex) find(in []rune, from int) ([]int, error) {
	if from > len(in) {
		return nil, nil
	}
	m, err := f.re.FindRunesMatchStartingAt(in, from)
	if err != nil {
		if strings.Contains(err.Error(), "timeout") {
			return nil, errors.New("match timeout: the pattern backtracks too much")
		}
		return nil, err
	}
	if m == nil {
		return nil, nil
	}
	caps := make([]int, 0, 2*len(f.order))
	for _, n := range f.order {
		g := m.GroupByNumber(n)
		if g == nil || len(g.Captures) == 0 {
			caps = append(caps, -1, -1)
			continue
		}
		caps = append(caps, g.Index, g.Index+g.Length)
	}
	return caps, nil
}

// findAll returns the capture positions of successive non-overlapping matches.
func (f *fancyRegex) findAll(in []rune, limit int) ([][]int, error) {
	var out [][]int
	pos := 0
	for pos <= len(in) && (limit < 0 || len(out) < limit) {
		caps, err := f.find(in, pos)
		if err != nil {
			return nil, err
		}
		if caps == nil {
			break
		}
		out = append(out, caps)
		if caps[1] == caps[0] {
			pos = caps[1] + 1
		} else {
			pos = caps[1]
		}
	}
	return out, nil
}

// groupText returns capture i of a match as text ("" when it did not take part).
func groupText(in []rune, caps []int, i int) string {
	if 2*i+1 >= len(caps) || caps[2*i] < 0 {
		return ""
	}
	return string(in[caps[2*i]:caps[2*i+1]])
}

// expand substitutes $1, ${1}, $name, ${name} and $$ in a replacement, as the
// regex crate's replace does.
func (f *fancyRegex) expand(repl string, in []rune, caps []int) string {
	var b strings.Builder
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		if c != '$' || i+1 >= len(repl) {
			b.WriteByte(c)
			continue
		}
		if repl[i+1] == '$' {
			b.WriteByte('$')
			i++
			continue
		}
		name := ""
		j := i + 1
		if repl[j] == '{' {
			end := strings.IndexByte(repl[j:], '}')
			if end < 0 {
				b.WriteByte(c)
				continue
			}
			name = repl[j+1 : j+end]
			j += end + 1
		} else {
			k := j
			for k < len(repl) && (repl[k] == '_' || repl[k] >= '0' && repl[k] <= '9' || repl[k] >= 'a' && repl[k] <= 'z' || repl[k] >= 'A' && repl[k] <= 'Z') {
				k++
			}
			name = repl[j:k]
			j = k
		}
		if name == "" {
			b.WriteByte(c)
			continue
		}
		if n, err := strconv.Atoi(name); err == nil {
			b.WriteString(groupText(in, caps, n))
		} else if idx, ok := f.names[name]; ok {
			b.WriteString(groupText(in, caps, idx))
		}
		i = j - 1
	}
	return b.String()
}
