package modules

import (
	"fmt"

	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

// serdeError is the message serde_json (the runtime's JSON reader) gives for
// malformed text, e.g. "key must be a string at line 1 column 2"; "" when it
// finds nothing wrong. It is only consulted after DecodeJSON failed, to word
// the error as kcl run does.
func serdeError(text string) (msg string) {
	p := &serdeParser{s: text}
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(serdeFail)
			if !ok {
				panic(r)
			}
			msg = string(e)
		}
	}()
	p.value(0)
	p.ws()
	if p.i < len(p.s) {
		p.fail("trailing characters", p.i)
	}
	return ""
}

type serdeFail string

type serdeParser struct {
	s string
	i int
}

// fail reports code at byte offset at (len(s) for the end of input), with
// serde_json's 1-based line and column of that byte (the last byte at EOF).
func (p *serdeParser) fail(code string, at int) {
	line, col := 1, 0
	end := at
	if end >= len(p.s) {
		end = len(p.s) - 1
	}
	for k := 0; k <= end && k < len(p.s); k++ {
		if p.s[k] == '\n' {
			line, col = line+1, 0
		} else {
			col++
		}
	}
	panic(serdeFail(fmt.Sprintf("%s at line %d column %d", code, line, col)))
}

func (p *serdeParser) peek() (byte, bool) {
	if p.i < len(p.s) {
		return p.s[p.i], true
	}
	return 0, false
}

func (p *serdeParser) ws() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

func (p *serdeParser) value(depth int) {
	if depth > 128 {
		p.fail("recursion limit exceeded", p.i)
	}
	p.ws()
	c, ok := p.peek()
	if !ok {
		p.fail("EOF while parsing a value", p.i)
	}
	switch {
	case c == 'n':
		p.ident("null")
	case c == 't':
		p.ident("true")
	case c == 'f':
		p.ident("false")
	case c == '-' || c >= '0' && c <= '9':
		p.number()
	case c == '"':
		p.str()
	case c == '[':
		p.i++
		p.ws()
		if c, ok := p.peek(); ok && c == ']' {
			p.i++
			return
		} else if !ok {
			p.fail("EOF while parsing a list", p.i)
		}
		for {
			p.value(depth + 1)
			p.ws()
			c, ok := p.peek()
			switch {
			case !ok:
				p.fail("EOF while parsing a list", p.i)
			case c == ']':
				p.i++
				return
			case c == ',':
				p.i++
				p.ws()
				if c, ok := p.peek(); ok && c == ']' {
					p.fail("trailing comma", p.i)
				}
			default:
				p.fail("expected `,` or `]`", p.i)
			}
		}
	case c == '{':
		p.i++
		p.ws()
		c, ok := p.peek()
		if ok && c == '}' {
			p.i++
			return
		}
		for {
			switch {
			case !ok:
				p.fail("EOF while parsing an object", p.i)
			case c != '"':
				p.fail("key must be a string", p.i)
			}
			p.str()
			p.ws()
			if c, ok := p.peek(); !ok {
				p.fail("EOF while parsing an object", p.i)
			} else if c != ':' {
				p.fail("expected `:`", p.i)
			}
			p.i++
			p.value(depth + 1)
			p.ws()
			c, ok = p.peek()
			switch {
			case !ok:
				p.fail("EOF while parsing an object", p.i)
			case c == '}':
				p.i++
				return
			case c == ',':
				p.i++
				p.ws()
				c, ok = p.peek()
				if ok && c == '}' {
					p.fail("trailing comma", p.i)
				}
				if !ok {
					p.fail("EOF while parsing a value", p.i)
				}
			default:
				p.fail("expected `,` or `}`", p.i)
			}
		}
	default:
		p.fail("expected value", p.i)
	}
}

func (p *serdeParser) ident(word string) {
	for k := 0; k < len(word); k++ {
		if p.i >= len(p.s) {
			p.fail("EOF while parsing a value", p.i)
		}
		if p.s[p.i] != word[k] {
			p.fail("expected ident", p.i)
		}
		p.i++
	}
}

func (p *serdeParser) digits() {
	c, ok := p.peek()
	if !ok {
		p.fail("EOF while parsing a value", p.i)
	}
	if c < '0' || c > '9' {
		p.fail("invalid number", p.i)
	}
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
}

func (p *serdeParser) number() {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	if c, ok := p.peek(); ok && c == '0' {
		p.i++
		if c, ok := p.peek(); ok && c >= '0' && c <= '9' {
			p.fail("invalid number", p.i)
		}
	} else {
		p.digits()
	}
	if c, ok := p.peek(); ok && c == '.' {
		p.i++
		p.digits()
	}
	if c, ok := p.peek(); ok && (c == 'e' || c == 'E') {
		p.i++
		if c, ok := p.peek(); ok && (c == '+' || c == '-') {
			p.i++
		}
		p.digits()
	}
	if _, err := value.ParseJSONNumber(p.s[start:p.i]); err != nil && err.Error() == "number out of range" {
		p.fail("number out of range", p.i-1)
	}
}

func (p *serdeParser) str() {
	p.i++ // the opening quote
	for {
		if p.i >= len(p.s) {
			p.fail("EOF while parsing a string", p.i)
		}
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return
		case c < 0x20:
			p.fail("control character (\\u0000-\\u001F) found while parsing a string", p.i)
		case c == '\\':
			p.i++
			if p.i >= len(p.s) {
				p.fail("EOF while parsing a string", p.i)
			}
			switch p.s[p.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				// serde_json reads the four digits first, then reports a bad
				// one at the last of them
				if p.i+4 >= len(p.s) {
					p.fail("EOF while parsing a string", len(p.s))
				}
				for _, h := range []byte(p.s[p.i+1 : p.i+5]) {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						p.fail("invalid escape", p.i+4)
					}
				}
				p.i += 4
			default:
				p.fail("invalid escape", p.i)
			}
		}
		p.i++
	}
}
