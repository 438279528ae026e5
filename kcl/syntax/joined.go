package syntax

import "strings"

// parseJoinedString splits a string literal with `${...}` interpolation into
// literal parts and FormattedValue parts, the way the official parser does:
// an interpolation ends at the first `}`, `\${` is kept literally (without the
// backslash), raw strings are never interpolated, and `${x:#json}` carries the
// comment-like format spec "#json".
func (p *parser) parseJoinedString(s *StringLit, t *Token) *JoinedString {
	if t.Raw || !strings.Contains(s.Value, "${") {
		return nil
	}
	quote := 1
	if s.IsLongString {
		quote = 3
	}
	js := &JoinedString{IsLongString: s.IsLongString, RawValue: s.RawValue}
	data := s.Value
	rawData := s.RawValue
	if len(rawData) < quote {
		return nil
	}
	rawData = rawData[:len(rawData)-quote]
	dataOff, rawOff := 0, quote
	addLit := func(raw, value string) {
		l := &StringLit{RawValue: raw, Value: value}
		l.SetSpan(t.Pos(p.file), t.EndPos(p.file))
		js.Values = append(js.Values, l)
	}
	for rawOff < len(rawData) && dataOff < len(data) {
		ri := strings.Index(rawData[rawOff:], "${")
		di := strings.Index(data[dataOff:], "${")
		if ri < 0 || di < 0 {
			addLit(rawData[rawOff:], data[dataOff:])
			break
		}
		rj := strings.IndexByte(rawData[rawOff+ri:], '}')
		dj := strings.IndexByte(data[dataOff+di:], '}')
		if rj < 0 || dj < 0 {
			// The official parser reports it at the token after the string.
			p.errorAt(p.tok.Pos(p.file), "invalid joined string")
			addLit(rawData[rawOff:], data[dataOff:])
			break
		}
		rawLo, rawHi := rawOff+ri, rawOff+ri+rj+1
		dataLo, dataHi := dataOff+di, dataOff+di+dj+1
		s0 := data[dataOff:dataLo]
		s0Raw := rawData[rawOff:rawLo]
		if strings.HasSuffix(s0Raw, `\`) {
			addLit(rawData[rawOff:rawHi], strings.ReplaceAll(data[dataOff:dataHi], `\$`, "$"))
		} else {
			if s0 != "" {
				addLit(s0Raw, s0)
			}
			js.Values = append(js.Values, p.parseInterpolation(rawData[rawLo:rawHi], t.Start+rawLo))
		}
		dataOff, rawOff = dataHi, rawHi
	}
	return js
}

// parseInterpolation parses `${expr}` or `${expr:#spec}` found at byte offset
// off of the file.
func (p *parser) parseInterpolation(src string, off int) Expr {
	inner := src[2 : len(src)-1]
	lo := p.posAt(off + 2)
	hi := p.posAt(off + 2 + len(inner))
	fv := &FormattedValue{}
	fv.SetSpan(lo, hi)
	if inner == "" {
		p.errorAt(p.posAt(off), "invalid string interpolation expression: ''")
	}
	s := newScanner(p.file, inner, nil)
	toks := s.scanAll()
	shift := func(pos Position) Position {
		if pos.Line == 1 {
			pos.Col += lo.Col - 1
		}
		pos.Line += lo.Line - 1
		pos.Offset += off + 2
		return pos
	}
	for i := range toks {
		t := &toks[i]
		a := shift(t.Pos(p.file))
		b := shift(t.EndPos(p.file))
		t.Line, t.Col, t.Start = a.Line, a.Col, a.Offset
		t.EndLine, t.EndCol, t.End = b.Line, b.Col, b.Offset
	}
	for _, e := range s.errors {
		e.Pos = shift(e.Pos)
		p.errors = append(p.errors, e)
	}
	sub := newSubParser(p, toks)
	// The spec after ':' is lexed as a comment by the official engine; keep it.
	var spec *Comment
	if len(sub.comments) > 0 {
		spec = sub.comments[len(sub.comments)-1]
	}
	defer func() { p.errors = append(p.errors, sub.errors...) }()
	fv.Value = sub.parseExpr()
	if sub.tok.Kind == COLON {
		sub.bump()
		if spec != nil && spec.Pos().Offset >= sub.prev.End {
			fv.FormatSpec = spec.Text
		} else {
			sub.errorAt(sub.tok.Pos(p.file), "invalid joined string spec without #")
			sub.bump()
		}
	}
	sub.skipNewlines()
	if inner != "" && sub.tok.Kind != EOF {
		sub.errorAt(lo, "invalid string interpolation expression: '"+inner+"'")
	}
	return fv
}
