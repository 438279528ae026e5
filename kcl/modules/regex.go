package modules

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

// kclPattern is a compiled pattern: Go's RE2 engine when it accepts the
// pattern, else the backtracking engine (look-around, back-references): regexp2.
type kclPattern struct {
	re *regexp.Regexp
	bt *fancyRegex
}

func compileRegex(pattern string) (*kclPattern, error) {
	if re, err := regexp.Compile(unicodeClasses(pattern, false)); err == nil {
		return &kclPattern{re: re}, nil
	}
	bt, err := compileFancy(pattern)
	if err != nil {
		return nil, evalErr("invalid regular expression '%s': %v", pattern, err)
	}
	return &kclPattern{bt: bt}, nil
}

func regexErr(err error) error { return evalErr("regex: %v", err) }

// matches reports whether the pattern matches anywhere in s.
func (p *kclPattern) matches(s string) (bool, error) {
	if p.re != nil {
		return p.re.MatchString(s), nil
	}
	caps, err := p.bt.find([]rune(s), 0)
	if err != nil {
		return false, regexErr(err)
	}
	return caps != nil, nil
}

func init() {
	m := newModule("regex")
	strPair := func(fn string, args []value.Value, kwargs []value.KV) (string, *kclPattern, error) {
		s, ok1 := strArg(args, kwargs, 0, "string")
		p, ok2 := strArg(args, kwargs, 1, "pattern")
		if !ok1 {
			return "", nil, evalErr("%s() missing 2 required positional arguments: 'string' and 'pattern'", fn)
		}
		if !ok2 {
			return "", nil, evalErr("%s() missing the required positional argument: 'pattern'", fn)
		}
		re, err := compileRegex(p)
		return s, re, err
	}
	def(m, "match", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		s, re, err := strPair("match", args, kwargs)
		if err != nil {
			return nil, err
		}
		ok, err := re.matches(s)
		return value.Bool(ok), err
	})
	def(m, "search", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		s, re, err := strPair("search", args, kwargs)
		if err != nil {
			return nil, err
		}
		ok, err := re.matches(s)
		return value.Bool(ok), err
	})
	def(m, "compile", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		p, ok := strArg(args, kwargs, 0, "pattern")
		if !ok {
			return nil, evalErr("compile() missing the required positional argument: 'pattern'")
		}
		_, err := compileRegex(p)
		return value.Bool(err == nil), nil
	})
	def(m, "replace", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		s, re, err := strPair("replace", args, kwargs)
		if err != nil {
			return nil, err
		}
		repl, ok := strArg(args, kwargs, 2, "replace")
		if !ok {
			return nil, evalErr("replace() missing the required positional argument: 'replace'")
		}
		count, _ := intArg(args, kwargs, 3, "count")
		if re.bt != nil {
			in := []rune(s)
			limit := -1
			if count > 0 {
				limit = int(count)
			}
			all, err := re.bt.findAll(in, limit)
			if err != nil {
				return nil, regexErr(err)
			}
			var b strings.Builder
			last := 0
			for _, caps := range all {
				b.WriteString(string(in[last:caps[0]]))
				b.WriteString(re.bt.expand(repl, in, caps))
				last = caps[1]
			}
			b.WriteString(string(in[last:]))
			return value.Str(b.String()), nil
		}
		n := int64(0)
		return value.Str(re.re.ReplaceAllStringFunc(s, func(match string) string {
			n++
			if count > 0 && n > count {
				return match
			}
			// expand $1/${name} against this match
			sub := re.re.FindStringSubmatchIndex(match)
			if sub == nil {
				return repl
			}
			return string(re.re.ExpandString(nil, repl, match, sub))
		})), nil
	})
	def(m, "findall", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		s, re, err := strPair("findall", args, kwargs)
		if err != nil {
			return nil, err
		}
		var rows [][]string
		if re.bt != nil {
			in := []rune(s)
			all, err := re.bt.findAll(in, -1)
			if err != nil {
				return nil, regexErr(err)
			}
			for _, caps := range all {
				row := make([]string, len(caps)/2)
				for i := range row {
					row[i] = groupText(in, caps, i)
				}
				rows = append(rows, row)
			}
		} else {
			rows = re.re.FindAllStringSubmatch(s, -1)
		}
		var out []value.Value
		for _, sm := range rows {
			if len(sm) < 3 {
				out = append(out, value.Str(sm[0]))
				continue
			}
			row := make([]value.Value, 0, len(sm)-1)
			for _, g := range sm[1:] {
				row = append(row, value.Str(g))
			}
			out = append(out, value.NewList(row))
		}
		return value.NewList(out), nil
	})
	def(m, "split", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		s, re, err := strPair("split", args, kwargs)
		if err != nil {
			return nil, err
		}
		maxsplit, _ := intArg(args, kwargs, 2, "maxsplit")
		// locate returns the next match at or after pos (byte offsets)
		locate := func(pos int) ([]int, error) {
			if re.re != nil {
				loc := re.re.FindStringIndex(s[pos:])
				if loc == nil {
					return nil, nil
				}
				return []int{pos + loc[0], pos + loc[1]}, nil
			}
			in := []rune(s)
			caps, err := re.bt.find(in, utf8.RuneCountInString(s[:pos]))
			if err != nil || caps == nil {
				return nil, err
			}
			return []int{len(string(in[:caps[0]])), len(string(in[:caps[1]]))}, nil
		}
		var fields []value.Value
		pos := 0
		for {
			loc, err := locate(pos)
			if err != nil {
				return nil, regexErr(err)
			}
			if loc == nil {
				fields = append(fields, value.Str(s[pos:]))
				break
			}
			fields = append(fields, value.Str(s[pos:loc[0]]))
			if maxsplit > 0 && int64(len(fields)) >= maxsplit {
				break
			}
			next := loc[1]
			if loc[1] == loc[0] { // empty match: step one character to make progress
				if next >= len(s) {
					fields = append(fields, value.Str(""))
					break
				}
				_, w := utf8.DecodeRuneInString(s[next:])
				next += w
			}
			pos = next
		}
		return value.NewList(fields), nil
	})
}

// unicodeClasses spells \d, \w and \s (and, outside a class, \D, \W, \S) as
// the Unicode classes the runtime's regex crate means by them; Go's regexp and
// regexp2's RE2 mode read them as ASCII, so that regex.match("é", "^\w$") was
// false. fancy selects regexp2's spelling of a code point.
func unicodeClasses(p string, fancy bool) string {
	cp := func(hex string) string {
		if fancy {
			return `\u` + strings.Repeat("0", 4-len(hex)) + hex
		}
		return `\x{` + hex + `}`
	}
	word := `\p{L}\p{Nl}\p{M}\p{Nd}\p{Pc}` + cp("200C") + cp("200D")
	space := `\t\n\v\f\r` + cp("85") + `\p{Z}`
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '\\' && i+1 < len(p) {
			e := p[i+1]
			i++
			switch {
			case e == 'd':
				b.WriteString(`\p{Nd}`)
			case e == 'w' && inClass:
				b.WriteString(word)
			case e == 's' && inClass:
				b.WriteString(space)
			case e == 'w':
				b.WriteString("[" + word + "]")
			case e == 's':
				b.WriteString("[" + space + "]")
			case e == 'D' && !inClass:
				b.WriteString(`\P{Nd}`)
			case e == 'W' && !inClass:
				b.WriteString("[^" + word + "]")
			case e == 'S' && !inClass:
				b.WriteString("[^" + space + "]")
			default:
				b.WriteByte('\\')
				b.WriteByte(e)
			}
			continue
		}
		switch {
		case !inClass && c == '[':
			inClass = true
			b.WriteByte(c)
			if i+1 < len(p) && p[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				b.WriteByte(']')
				i++
			}
			continue
		case inClass && c == ']':
			inClass = false
		}
		b.WriteByte(c)
	}
	return b.String()
}
