package syntax

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
)

// The parser follows the official engine's recursive-descent parser closely,
// including its error recovery, so that the first error of a broken file is
// the one `kcl run` prints. Statements do not consume their NEWLINE; blocks
// and brackets skip NEWLINE/INDENT/DEDENT tokens where the official parser does.

const (
	maxNesting = 3000 // about 1000 nested brackets; deeper input ends with a syntax error, not a stack overflow
	maxErrors  = 1000 // parsing stops after this many errors
)

type bailout struct{}

type parser struct {
	file       string
	src        []byte
	toks       []Token
	idx        int
	tok        *Token // current token, pointing into toks
	prev       *Token
	comments   []*Comment
	errors     ErrorList
	lineStarts []int
	depth      int
	eofBumps   int
	scanned    int // tokens the scanner wrote into toks, comments included
}

func newParser(filename string, src []byte) *parser {
	p := &parser{file: filename, src: src}
	s := newScanner(filename, string(src), getTokens())
	raw := s.scanAll()
	p.scanned = len(raw)
	p.errors = append(p.errors, s.errors...)
	p.toks = p.splitComments(raw)
	p.lineStarts = lineStarts(src)
	p.tok, p.prev = &p.toks[0], &p.toks[0]
	return p
}

func newSubParser(parent *parser, toks []Token) *parser {
	p := &parser{file: parent.file, src: parent.src, lineStarts: parent.lineStarts, depth: parent.depth}
	p.toks = p.splitComments(toks)
	p.tok, p.prev = &p.toks[0], &p.toks[0]
	return p
}

// splitComments moves comments out of the token stream and makes sure a
// NEWLINE precedes EOF.
func (p *parser) splitComments(raw []Token) []Token {
	// Filter in place: the parser owns the scanner's slice, and every write goes
	// to a slot already read. Tokens are large, so they are not copied while
	// no comment has been dropped yet.
	toks := raw[:0]
	for i := range raw {
		t := &raw[i]
		switch t.Kind {
		case EOF:
			eof := *t // the NEWLINE may take its slot
			if i == 0 || raw[i-1].Kind != NEWLINE {
				nl := eof
				nl.Kind = NEWLINE
				toks = append(toks, nl)
			}
			return append(toks, eof)
		case COMMENT:
			c := &Comment{Text: t.Text}
			c.SetSpan(t.Pos(p.file), t.EndPos(p.file))
			p.comments = append(p.comments, c)
			continue
		}
		if len(toks) == i {
			toks = toks[:i+1]
		} else {
			toks = append(toks, *t)
		}
	}
	return toks
}

// lineStarts returns the byte offset of each line's start.
func lineStarts(src []byte) []int {
	starts := make([]int, 1, bytes.Count(src, []byte{'\n'})+1)
	for off := 0; ; {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			return starts
		}
		off += i + 1
		starts = append(starts, off)
	}
}

// posAt converts an absolute byte offset into a position.
func (p *parser) posAt(off int) Position {
	if off >= len(p.src) && off > 0 && p.src[len(p.src)-1] == '\n' {
		// The end of input sits on the last line (see scanAll).
		pos := p.posAt(len(p.src) - 1)
		pos.Col++
		pos.Offset = len(p.src)
		return pos
	}
	// The line is the last one starting at or before off.
	line, _ := slices.BinarySearch(p.lineStarts, off+1)
	line = max(line-1, 0)
	start := p.lineStarts[line]
	if off > len(p.src) {
		off = len(p.src)
	}
	col := 1 + utf8.RuneCount(p.src[start:off])
	return Position{File: p.file, Line: line + 1, Col: col, Offset: off}
}

// ---- token helpers ----

func (p *parser) bump() {
	p.prev = p.tok
	if p.idx+1 < len(p.toks) {
		p.idx++
		p.tok = &p.toks[p.idx]
		return
	}
	p.eofBumps++
	if p.eofBumps > 10000 {
		panic(bailout{})
	}
}

func (p *parser) peek() *Token {
	if p.idx+1 < len(p.toks) {
		return &p.toks[p.idx+1]
	}
	return &p.toks[len(p.toks)-1]
}

func (p *parser) peekN(n int) (Token, bool) {
	if p.idx+n < len(p.toks) {
		return p.toks[p.idx+n], true
	}
	return Token{}, false
}

func (p *parser) isKw(kw string) bool { return p.tok.isKeyword(kw) }

func (p *parser) startPos() Position { return p.tok.Pos(p.file) }
func (p *parser) endPos() Position   { return p.prev.EndPos(p.file) }

func (p *parser) skipNewlines() {
	for p.tok.Kind == NEWLINE {
		p.bump()
	}
}

func (p *parser) cleanAllIndentations() {
	for p.tok.Kind == INDENT {
		p.bump()
	}
	for p.tok.Kind == DEDENT {
		p.bump()
	}
}

func (p *parser) cleanAllDedent() {
	for p.tok.Kind == DEDENT {
		p.bump()
	}
}

func (p *parser) isDedent() bool { return p.tok.Kind == DEDENT && p.tok.Misaligned == 0 }
func (p *parser) isIndent() bool { return p.tok.Kind == INDENT }

// validateDedent reports a dedent to a column between two indentation levels.
func (p *parser) validateDedent() {
	if p.tok.Kind == DEDENT && p.tok.Misaligned != 0 {
		n := p.tok.Misaligned
		unit := "spaces"
		if n == 1 {
			unit = "space"
		}
		p.errorAt(p.tok.Pos(p.file), fmt.Sprintf("invalid indentation with %d %s, try to align indents by adding or removing spaces", n, unit))
		p.bump()
	}
}

func (p *parser) errorAt(pos Position, msg string) {
	if len(p.errors) >= maxErrors {
		panic(bailout{})
	}
	p.errors = append(p.errors, &Error{Pos: pos, Kind: errkind.InvalidSyntax, Msg: msg})
}

// tokenString is how the official engine names a token in messages: literals
// by their value, everything else by its kind.
func tokenString(t *Token) string {
	switch t.Kind {
	case STRING:
		return t.Value
	case INT:
		return t.Value + t.Suffix
	case FLOAT:
		return t.Value
	case BANG:
		return "not"
	}
	return t.Kind.String()
}

func (p *parser) tokenError(expected []string, got *Token) {
	quoted := make([]string, len(expected))
	for i, e := range expected {
		quoted[i] = strconv.Quote(e)
	}
	p.errorAt(got.Pos(p.file), fmt.Sprintf("expected one of [%s] got %s", strings.Join(quoted, ", "), tokenString(got)))
}

func (p *parser) bumpToken(k TokenKind) {
	if p.tok.Kind != k || (k == DEDENT && p.tok.Misaligned != 0) {
		p.tokenError([]string{k.String()}, p.tok)
	}
	p.bump()
}

func (p *parser) bumpKeyword(kw string) {
	if !p.isKw(kw) {
		p.tokenError([]string{kw}, p.tok)
	}
	p.bump()
}

// mark/drop guarantee progress in loops: when nothing was consumed since
// mark, the current token is reported and skipped.
func (p *parser) mark() int { return p.idx }

func (p *parser) drop(m int) bool {
	if m == p.idx {
		p.errorAt(p.tok.Pos(p.file), "expected expression, got "+tokenString(p.tok))
		p.bump()
		return true
	}
	return false
}

func (p *parser) enter() {
	p.depth++
	if p.depth > maxNesting {
		p.errorAt(p.tok.Pos(p.file), "expression nested too deeply")
		panic(bailout{})
	}
}

func (p *parser) leave() { p.depth-- }

// ---- module ----

func (p *parser) parseModule() (m *Module) {
	m = &Module{Filename: p.file}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(bailout); !ok {
				panic(r)
			}
		}
		m.Comments = p.comments
		m.SetSpan(Position{File: p.file, Line: 1, Col: 1}, p.posAt(len(p.src)))
	}()
	m.Doc = p.parseDoc()
	for {
		if p.tok.Kind == EOF {
			break
		}
		if s := p.parseStmt(); s != nil {
			m.Body = append(m.Body, s)
		} else {
			p.bump()
		}
	}
	return m
}

// parseDoc reads a triple-quoted docstring; the Name holds its source text.
func (p *parser) parseDoc() *Name {
	if p.tok.Kind != STRING || !p.tok.Long {
		return nil
	}
	t := p.tok
	p.parseStrExpr()
	p.skipNewlines()
	n := &Name{Value: t.Text}
	n.SetSpan(t.Pos(p.file), t.EndPos(p.file))
	return n
}
