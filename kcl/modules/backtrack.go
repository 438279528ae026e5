package modules

import (
	"errors"
	"strconv"
	"strings"
	"unicode"
)

// A small backtracking regular-expression engine for the patterns RE2 refuses
// but the engine's fancy_regex accepts: look-ahead (?=…)/(?!…), look-behind
// (?<=…)/(?<!…) and back-references \1. Everything else compiles with Go's regexp.
// A step budget bounds catastrophic backtracking: a pattern that runs past it
// fails with an error instead of hanging the run.

const btMaxSteps = 2_000_000

var errBacktrackLimit = errors.New("regular expression backtracking limit exceeded")

type btKind uint8

const (
	btLit btKind = iota
	btAny
	btClass
	btBegin     // ^
	btEnd       // $
	btTextBegin // \A
	btTextEnd   // \z
	btWordB
	btNotWordB
	btGroup
	btConcat
	btAlt
	btRepeat
	btLook
	btBackref
	btEmpty
)

type btRange struct{ lo, hi rune }

type btNode struct {
	kind     btKind
	r        rune
	fold     bool
	dotAll   bool
	multi    bool
	ranges   []btRange
	classFns []func(rune) bool
	negate   bool
	index    int // capture group or back-reference
	subs     []*btNode
	min, max int // max -1: unbounded
	greedy   bool
	ahead    bool
}

type btRegex struct {
	root   *btNode
	groups int
	names  map[string]int
}

type btParser struct {
	src    []rune
	pos    int
	groups int
	names  map[string]int
	fold   bool
	multi  bool
	dotAll bool
}

func compileBacktrack(pattern string) (*btRegex, error) {
	p := &btParser{src: []rune(pattern), names: map[string]int{}}
	n, err := p.alt()
	if err != nil {
		return nil, err
	}
	if p.pos < len(p.src) {
		return nil, errors.New("unmatched ')'")
	}
	return &btRegex{root: n, groups: p.groups, names: p.names}, nil
}

func (p *btParser) more() bool { return p.pos < len(p.src) }
func (p *btParser) peek() rune { return p.src[p.pos] }

func (p *btParser) alt() (*btNode, error) {
	var alts []*btNode
	for {
		c, err := p.concat()
		if err != nil {
			return nil, err
		}
		alts = append(alts, c)
		if p.more() && p.peek() == '|' {
			p.pos++
			continue
		}
		break
	}
	if len(alts) == 1 {
		return alts[0], nil
	}
	return &btNode{kind: btAlt, subs: alts}, nil
}

func (p *btParser) concat() (*btNode, error) {
	var items []*btNode
	for p.more() && p.peek() != '|' && p.peek() != ')' {
		atom, err := p.atom()
		if err != nil {
			return nil, err
		}
		if atom == nil {
			continue
		}
		atom, err = p.quantifier(atom)
		if err != nil {
			return nil, err
		}
		items = append(items, atom)
	}
	if len(items) == 1 {
		return items[0], nil
	}
	return &btNode{kind: btConcat, subs: items}, nil
}

func (p *btParser) number() (int, bool) {
	start := p.pos
	for p.more() && p.peek() >= '0' && p.peek() <= '9' {
		p.pos++
	}
	if start == p.pos {
		return 0, false
	}
	n, err := strconv.Atoi(string(p.src[start:p.pos]))
	return n, err == nil
}

func (p *btParser) quantifier(atom *btNode) (*btNode, error) {
	if !p.more() {
		return atom, nil
	}
	min, max := -1, -1
	switch p.peek() {
	case '*':
		min, max = 0, -1
		p.pos++
	case '+':
		min, max = 1, -1
		p.pos++
	case '?':
		min, max = 0, 1
		p.pos++
	case '{':
		save := p.pos
		p.pos++
		lo, ok := p.number()
		if !ok {
			p.pos = save
			return atom, nil
		}
		hi := lo
		if p.more() && p.peek() == ',' {
			p.pos++
			if h, ok := p.number(); ok {
				hi = h
			} else {
				hi = -1
			}
		}
		if !p.more() || p.peek() != '}' {
			p.pos = save
			return atom, nil
		}
		p.pos++
		min, max = lo, hi
	default:
		return atom, nil
	}
	greedy := true
	if p.more() && p.peek() == '?' {
		greedy = false
		p.pos++
	} else if p.more() && p.peek() == '+' {
		p.pos++ // possessive: treated as greedy
	}
	return &btNode{kind: btRepeat, subs: []*btNode{atom}, min: min, max: max, greedy: greedy}, nil
}

func (p *btParser) atom() (*btNode, error) {
	c := p.peek()
	p.pos++
	switch c {
	case '.':
		return &btNode{kind: btAny, dotAll: p.dotAll}, nil
	case '^':
		return &btNode{kind: btBegin, multi: p.multi}, nil
	case '$':
		return &btNode{kind: btEnd, multi: p.multi}, nil
	case '[':
		return p.class()
	case '(':
		return p.group()
	case '\\':
		return p.escape(false)
	}
	return &btNode{kind: btLit, r: c, fold: p.fold}, nil
}

func (p *btParser) group() (*btNode, error) {
	capture, name := true, ""
	var look *btNode
	if p.more() && p.peek() == '?' {
		p.pos++
		if !p.more() {
			return nil, errors.New("unexpected end of pattern")
		}
		switch {
		case p.peek() == ':':
			p.pos++
			capture = false
		case p.peek() == '=' || p.peek() == '!':
			look = &btNode{kind: btLook, ahead: true, negate: p.peek() == '!'}
			p.pos++
		case p.peek() == '<' && p.pos+1 < len(p.src) && (p.src[p.pos+1] == '=' || p.src[p.pos+1] == '!'):
			look = &btNode{kind: btLook, ahead: false, negate: p.src[p.pos+1] == '!'}
			p.pos += 2
		case p.peek() == 'P' || p.peek() == '<':
			if p.peek() == 'P' {
				p.pos++
			}
			p.pos++ // '<'
			end := p.pos
			for end < len(p.src) && p.src[end] != '>' {
				end++
			}
			if end >= len(p.src) {
				return nil, errors.New("unterminated group name")
			}
			name = string(p.src[p.pos:end])
			p.pos = end + 1
		default:
			// inline flags (?imsx) or (?i:...)
			on := true
			for p.more() && p.peek() != ')' && p.peek() != ':' {
				switch p.peek() {
				case '-':
					on = false
				case 'i':
					p.fold = on
				case 'm':
					p.multi = on
				case 's':
					p.dotAll = on
				case 'x', 'U', 'u':
				default:
					return nil, errors.New("unknown group flag")
				}
				p.pos++
			}
			if !p.more() {
				return nil, errors.New("unexpected end of pattern")
			}
			if p.peek() == ')' {
				p.pos++
				return nil, nil
			}
			p.pos++
			capture = false
		}
	}
	index := 0
	if capture && look == nil {
		p.groups++
		index = p.groups
		if name != "" {
			p.names[name] = index
		}
	}
	saveFold, saveMulti, saveDot := p.fold, p.multi, p.dotAll
	inner, err := p.alt()
	p.fold, p.multi, p.dotAll = saveFold, saveMulti, saveDot
	if err != nil {
		return nil, err
	}
	if !p.more() || p.peek() != ')' {
		return nil, errors.New("missing ')'")
	}
	p.pos++
	if look != nil {
		look.subs = []*btNode{inner}
		return look, nil
	}
	if !capture {
		return inner, nil
	}
	return &btNode{kind: btGroup, index: index, subs: []*btNode{inner}}, nil
}

func isWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

func perlClass(c rune) (func(rune) bool, bool) {
	switch c {
	case 'd':
		return unicode.IsDigit, true
	case 'w':
		return isWordRune, true
	case 's':
		return unicode.IsSpace, true
	}
	return nil, false
}

// escape parses the text after a backslash; inClass limits it to characters.
func (p *btParser) escape(inClass bool) (*btNode, error) {
	if !p.more() {
		return nil, errors.New("trailing backslash")
	}
	c := p.peek()
	p.pos++
	if fn, ok := perlClass(unicode.ToLower(c)); ok {
		return &btNode{kind: btClass, classFns: []func(rune) bool{fn}, negate: unicode.IsUpper(c)}, nil
	}
	if !inClass {
		switch c {
		case 'b':
			return &btNode{kind: btWordB}, nil
		case 'B':
			return &btNode{kind: btNotWordB}, nil
		case 'A':
			return &btNode{kind: btTextBegin}, nil
		case 'z', 'Z':
			return &btNode{kind: btTextEnd}, nil
		case 'k':
			if p.more() && p.peek() == '<' {
				end := p.pos + 1
				for end < len(p.src) && p.src[end] != '>' {
					end++
				}
				name := string(p.src[p.pos+1 : min(end, len(p.src))])
				p.pos = end + 1
				if idx, ok := p.names[name]; ok {
					return &btNode{kind: btBackref, index: idx, fold: p.fold}, nil
				}
				return nil, errors.New("unknown group name " + name)
			}
		}
		if c >= '1' && c <= '9' {
			p.pos--
			n, _ := p.number()
			return &btNode{kind: btBackref, index: n, fold: p.fold}, nil
		}
	}
	if c == 'p' || c == 'P' {
		name := ""
		if p.more() && p.peek() == '{' {
			end := p.pos + 1
			for end < len(p.src) && p.src[end] != '}' {
				end++
			}
			name = string(p.src[p.pos+1 : min(end, len(p.src))])
			p.pos = end + 1
		} else if p.more() {
			name = string(p.peek())
			p.pos++
		}
		tab, ok := unicode.Categories[name]
		if !ok {
			tab, ok = unicode.Scripts[name]
		}
		if !ok {
			return nil, errors.New("unknown Unicode class " + name)
		}
		return &btNode{kind: btClass, classFns: []func(rune) bool{func(r rune) bool { return unicode.Is(tab, r) }}, negate: c == 'P'}, nil
	}
	r := c
	switch c {
	case 'n':
		r = '\n'
	case 't':
		r = '\t'
	case 'r':
		r = '\r'
	case 'f':
		r = '\f'
	case 'v':
		r = '\v'
	case 'a':
		r = '\a'
	case '0':
		r = 0
	case 'x':
		var hex string
		if p.more() && p.peek() == '{' {
			end := p.pos + 1
			for end < len(p.src) && p.src[end] != '}' {
				end++
			}
			hex = string(p.src[p.pos+1 : min(end, len(p.src))])
			p.pos = end + 1
		} else if p.pos+2 <= len(p.src) {
			hex = string(p.src[p.pos : p.pos+2])
			p.pos += 2
		}
		v, err := strconv.ParseUint(hex, 16, 32)
		if err != nil {
			return nil, errors.New("invalid hex escape")
		}
		r = rune(v)
	}
	return &btNode{kind: btLit, r: r, fold: p.fold}, nil
}

var posixClasses = map[string]func(rune) bool{
	"alpha": unicode.IsLetter, "digit": unicode.IsDigit, "alnum": func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) },
	"space": unicode.IsSpace, "upper": unicode.IsUpper, "lower": unicode.IsLower, "punct": unicode.IsPunct,
	"word": isWordRune, "xdigit": func(r rune) bool { return strings.ContainsRune("0123456789abcdefABCDEF", r) },
}

func (p *btParser) class() (*btNode, error) {
	n := &btNode{kind: btClass, fold: p.fold}
	if p.more() && p.peek() == '^' {
		n.negate = true
		p.pos++
	}
	first := true
	for {
		if !p.more() {
			return nil, errors.New("missing ']'")
		}
		c := p.peek()
		if c == ']' && !first {
			p.pos++
			return n, nil
		}
		first = false
		if c == '[' && p.pos+1 < len(p.src) && p.src[p.pos+1] == ':' {
			end := strings.Index(string(p.src[p.pos:]), ":]")
			if end > 0 {
				name := string(p.src[p.pos+2 : p.pos+end])
				neg := strings.HasPrefix(name, "^")
				fn, ok := posixClasses[strings.TrimPrefix(name, "^")]
				if !ok {
					return nil, errors.New("unknown POSIX class " + name)
				}
				if neg {
					f := fn
					fn = func(r rune) bool { return !f(r) }
				}
				n.classFns = append(n.classFns, fn)
				p.pos += end + 2
				continue
			}
		}
		var lo rune
		p.pos++
		if c == '\\' {
			e, err := p.escape(true)
			if err != nil {
				return nil, err
			}
			if e.kind == btClass {
				fns := e.classFns
				if e.negate {
					f := fns[0]
					fns = []func(rune) bool{func(r rune) bool { return !f(r) }}
				}
				n.classFns = append(n.classFns, fns...)
				continue
			}
			lo = e.r
		} else {
			lo = c
		}
		hi := lo
		if p.pos+1 < len(p.src) && p.peek() == '-' && p.src[p.pos+1] != ']' {
			p.pos++
			h := p.peek()
			p.pos++
			if h == '\\' {
				e, err := p.escape(true)
				if err != nil {
					return nil, err
				}
				h = e.r
			}
			hi = h
		}
		n.ranges = append(n.ranges, btRange{lo, hi})
	}
}

type btMatcher struct {
	in    []rune
	caps  []int
	steps int
	err   error
}

func (n *btNode) classMatch(r rune) bool {
	in := false
	for _, rg := range n.ranges {
		if r >= rg.lo && r <= rg.hi {
			in = true
			break
		}
		if n.fold {
			for _, f := range []rune{unicode.ToLower(r), unicode.ToUpper(r)} {
				if f >= rg.lo && f <= rg.hi {
					in = true
				}
			}
		}
	}
	if !in {
		for _, fn := range n.classFns {
			if fn(r) {
				in = true
				break
			}
		}
	}
	return in != n.negate
}

func (m *btMatcher) wordAt(i int) bool { return i >= 0 && i < len(m.in) && isWordRune(m.in[i]) }

// match tries n at pos and calls k with the end position of each way it matches.
func (m *btMatcher) match(n *btNode, pos int, k func(int) bool) bool {
	m.steps++
	if m.steps > btMaxSteps {
		m.err = errBacktrackLimit
		return false
	}
	if m.err != nil {
		return false
	}
	switch n.kind {
	case btEmpty:
		return k(pos)
	case btLit:
		if pos < len(m.in) && (m.in[pos] == n.r || n.fold && unicode.ToLower(m.in[pos]) == unicode.ToLower(n.r)) {
			return k(pos + 1)
		}
		return false
	case btAny:
		if pos < len(m.in) && (n.dotAll || m.in[pos] != '\n') {
			return k(pos + 1)
		}
		return false
	case btClass:
		if pos < len(m.in) && n.classMatch(m.in[pos]) {
			return k(pos + 1)
		}
		return false
	case btBegin:
		if pos == 0 || n.multi && m.in[pos-1] == '\n' {
			return k(pos)
		}
		return false
	case btEnd:
		if pos == len(m.in) || n.multi && m.in[pos] == '\n' {
			return k(pos)
		}
		return false
	case btTextBegin:
		return pos == 0 && k(pos)
	case btTextEnd:
		return pos == len(m.in) && k(pos)
	case btWordB, btNotWordB:
		at := m.wordAt(pos-1) != m.wordAt(pos)
		if at == (n.kind == btWordB) {
			return k(pos)
		}
		return false
	case btGroup:
		oldS, oldE := m.caps[2*n.index], m.caps[2*n.index+1]
		if m.match(n.subs[0], pos, func(end int) bool {
			ps, pe := m.caps[2*n.index], m.caps[2*n.index+1]
			m.caps[2*n.index], m.caps[2*n.index+1] = pos, end
			if k(end) {
				return true
			}
			m.caps[2*n.index], m.caps[2*n.index+1] = ps, pe
			return false
		}) {
			return true
		}
		m.caps[2*n.index], m.caps[2*n.index+1] = oldS, oldE
		return false
	case btConcat:
		var step func(i, p int) bool
		step = func(i, p int) bool {
			if i == len(n.subs) {
				return k(p)
			}
			return m.match(n.subs[i], p, func(e int) bool { return step(i+1, e) })
		}
		return step(0, pos)
	case btAlt:
		for _, s := range n.subs {
			if m.match(s, pos, k) {
				return true
			}
		}
		return false
	case btRepeat:
		var rep func(count, p int) bool
		rep = func(count, p int) bool {
			tryMore := func() bool {
				if n.max >= 0 && count >= n.max {
					return false
				}
				return m.match(n.subs[0], p, func(e int) bool {
					if e == p && count >= n.min {
						return false // an empty iteration cannot make progress
					}
					return rep(count+1, e)
				})
			}
			if n.greedy {
				if tryMore() {
					return true
				}
				return count >= n.min && k(p)
			}
			if count >= n.min && k(p) {
				return true
			}
			return tryMore()
		}
		return rep(0, pos)
	case btLook:
		saved := append([]int(nil), m.caps...)
		var found bool
		if n.ahead {
			found = m.match(n.subs[0], pos, func(int) bool { return true })
		} else {
			for start := pos; start >= 0 && !found; start-- {
				found = m.match(n.subs[0], start, func(e int) bool { return e == pos })
			}
		}
		if n.negate {
			copy(m.caps, saved)
			if found {
				return false
			}
			return k(pos)
		}
		if !found {
			copy(m.caps, saved)
			return false
		}
		return k(pos)
	case btBackref:
		s, e := m.caps[2*n.index], m.caps[2*n.index+1]
		if s < 0 {
			return false
		}
		l := e - s
		if pos+l > len(m.in) {
			return false
		}
		for i := 0; i < l; i++ {
			a, b := m.in[s+i], m.in[pos+i]
			if a != b && !(n.fold && strings.EqualFold(string(a), string(b))) {
				return false
			}
		}
		return k(pos + l)
	}
	return false
}

// find returns the capture positions (rune offsets) of the leftmost match at or
// after from, or nil.
func (re *btRegex) find(in []rune, from int) ([]int, error) {
	m := &btMatcher{in: in, caps: make([]int, 2*(re.groups+1))}
	for start := from; start <= len(in); start++ {
		for i := range m.caps {
			m.caps[i] = -1
		}
		var end int
		if m.match(re.root, start, func(e int) bool { end = e; return true }) {
			m.caps[0], m.caps[1] = start, end
			return append([]int(nil), m.caps...), nil
		}
		if m.err != nil {
			return nil, m.err
		}
	}
	return nil, nil
}

// findAll returns the capture positions of successive non-overlapping matches.
func (re *btRegex) findAll(in []rune, limit int) ([][]int, error) {
	var out [][]int
	pos := 0
	for pos <= len(in) && (limit < 0 || len(out) < limit) {
		caps, err := re.find(in, pos)
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

// group returns capture i of a match as text ("" when it did not take part).
func btGroupText(in []rune, caps []int, i int) string {
	if 2*i+1 >= len(caps) || caps[2*i] < 0 {
		return ""
	}
	return string(in[caps[2*i]:caps[2*i+1]])
}

// expand substitutes $1, ${1}, $name, ${name} and $$ in a replacement.
func (re *btRegex) expand(repl string, in []rune, caps []int) string {
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
			b.WriteString(btGroupText(in, caps, n))
		} else if idx, ok := re.names[name]; ok {
			b.WriteString(btGroupText(in, caps, idx))
		}
		i = j - 1
	}
	return b.String()
}
