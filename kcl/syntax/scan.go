package syntax

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
)

// Scan returns the tokens of a file, comments included, ending with EOF. The
// stream has the shape the parser consumes: a NEWLINE for every line break
// (blank lines and lines inside brackets too), INDENT/DEDENT before the first
// token of a line whose indentation changes, and NEWLINE plus closing DEDENTs
// before EOF. On a lexical error the tokens are still returned with the first
// *Error.
func Scan(filename string, src []byte) ([]Token, error) {
	s := newScanner(filename, string(src), nil)
	toks := s.scanAll()
	s.errors = dedupErrors(s.errors)
	clampErrorColumns(src, s.errors)
	if len(s.errors) > 0 {
		return toks, s.errors[0]
	}
	return toks, nil
}

type indentLevel struct{ tabs, spaces int }

// cmp orders two indentation levels; mixing tabs and spaces inconsistently is
// an error, as in the official lexer.
func (a indentLevel) cmp(b indentLevel) (int, bool) {
	switch {
	case a.tabs < b.tabs:
		return -1, a.spaces <= b.spaces
	case a.tabs > b.tabs:
		return 1, a.spaces >= b.spaces
	case a.spaces < b.spaces:
		return -1, true
	case a.spaces > b.spaces:
		return 1, true
	}
	return 0, true
}

type scanner struct {
	file   string
	src    string // token texts are slices of it
	errors ErrorList

	pos       int // byte offset
	line      int
	lineStart int // byte offset of the current line

	colLine, colOff, colVal int // memo of col()

	newLine      bool // at the beginning of a line, indentation not yet decided
	tabs, spaces int
	indents      []indentLevel
	delims       []TokenKind

	toks []Token
}

// newScanner returns a scanner of src that appends its tokens to buf[:0],
// or to a new slice when buf is too small.
func newScanner(filename string, src string, buf []Token) *scanner {
	// About one token per 3-4 bytes in typical code, plus the final NEWLINE
	// and EOF; interpolations are scanned too, so keep the slack small.
	if n := len(src)/3 + 4; cap(buf) < n {
		buf = make([]Token, 0, n)
	}
	return &scanner{
		file: filename, src: src, line: 1, indents: []indentLevel{{}}, colVal: 1,
		toks: buf[:0],
	}
}

// col returns the 1-based rune column of a byte offset on the current line. It
// counts from the last answer when it can, so long lines stay linear.
func (s *scanner) col(off int) int {
	if s.colLine != s.lineStart || off < s.colOff {
		s.colLine, s.colOff, s.colVal = s.lineStart, s.lineStart, 1
	}
	s.colVal += utf8.RuneCountInString(s.src[s.colOff:off])
	s.colOff = off
	return s.colVal
}

func (s *scanner) errorAt(off int, msg string) {
	if len(s.errors) >= maxErrors {
		return
	}
	s.errors = append(s.errors, &Error{
		Pos:  Position{File: s.file, Line: s.line, Col: s.col(off), Offset: off},
		Kind: errkind.InvalidSyntax,
		Msg:  msg,
	})
}

func (s *scanner) peekAt(off int) rune {
	if off >= len(s.src) {
		return -1
	}
	c := s.src[off]
	if c < utf8.RuneSelf {
		return rune(c)
	}
	r, _ := utf8.DecodeRuneInString(s.src[off:])
	return r
}

func isIDStart(r rune) bool {
	return r == '_' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || (r >= utf8.RuneSelf && unicode.IsLetter(r))
}

func isIDContinue(r rune) bool {
	return isIDStart(r) || ('0' <= r && r <= '9') ||
		(r >= utf8.RuneSelf && (unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r) || unicode.Is(unicode.Pc, r)))
}

// isOtherWhitespace are the characters the official lexer skips besides space,
// tab and newline.
func isOtherWhitespace(r rune) bool {
	switch r {
	case '\v', '\f', '\r', 0x85, 0x200E, 0x200F, 0x2028, 0x2029:
		return true
	}
	return false
}

// emit appends a token spanning src[start:s.pos]; the token must not contain a
// line break (multi-line tokens use emitSpan).
func (s *scanner) emit(kind TokenKind, start int) *Token {
	col := s.col(start)
	endCol := s.col(s.pos) // counts the token's runes once: col remembers where it stopped
	s.toks = append(s.toks, Token{
		Kind: kind, Start: start, End: s.pos,
		Line: s.line, Col: col, EndLine: s.line, EndCol: endCol,
		Text: s.src[start:s.pos],
	})
	return &s.toks[len(s.toks)-1]
}

// emitZero appends an empty token (INDENT, DEDENT, NEWLINE at EOF) at off.
func (s *scanner) emitZero(kind TokenKind, off int) *Token {
	col := s.col(off)
	s.toks = append(s.toks, Token{Kind: kind, Start: off, End: off, Line: s.line, Col: col, EndLine: s.line, EndCol: col})
	return &s.toks[len(s.toks)-1]
}

func (s *scanner) scanAll() []Token {
	for s.pos < len(s.src) {
		s.next()
	}
	// The official engine places the end of input on the line of the last
	// character, even when that character is a line break.
	if n := len(s.src); n > 0 && s.src[n-1] == '\n' {
		start := strings.LastIndexByte(s.src[:n-1], '\n') + 1
		s.line--
		s.lineStart = start
	}
	if !s.newLine {
		s.newLine = true
		s.emitZero(NEWLINE, s.pos)
	}
	for len(s.indents) > 1 {
		s.indents = s.indents[:len(s.indents)-1]
		s.emitZero(DEDENT, s.pos)
	}
	s.emitZero(EOF, s.pos)
	return s.toks
}

// indentation decides INDENT/DEDENT tokens before the first real token of a line.
func (s *scanner) indentation(off int) {
	level := indentLevel{s.tabs, s.spaces}
	s.tabs, s.spaces = 0, 0
	cur := s.indents[len(s.indents)-1]
	order, ok := level.cmp(cur)
	if !ok {
		s.errorAt(off, "inconsistent use of tabs and spaces in indentation")
		return
	}
	switch {
	case order > 0:
		s.indents = append(s.indents, level)
		s.emitZero(INDENT, off)
	case order < 0:
		var popped []indentLevel
		ndedent := 0
		for {
			if order < 0 {
				popped = append(popped, s.indents[len(s.indents)-1])
				s.indents = s.indents[:len(s.indents)-1]
				if len(s.indents) == 0 {
					s.errorAt(off, "mismatched indent level")
					s.indents = append(s.indents, indentLevel{})
				}
				ndedent++
			} else if order == 0 {
				break
			} else {
				// Between two levels: keep the deeper level and report the gap.
				diff := level.spaces - cur.spaces
				s.indents = append(s.indents, popped[len(popped)-1])
				ndedent--
				for i := 0; i < ndedent; i++ {
					s.emitZero(DEDENT, off)
				}
				s.emitZero(DEDENT, off).Misaligned = diff
				return
			}
			cur = s.indents[len(s.indents)-1]
			order, ok = level.cmp(cur)
			if !ok {
				s.errorAt(off, "inconsistent use of tabs and spaces in indentation")
				break
			}
		}
		for i := 0; i < ndedent; i++ {
			s.emitZero(DEDENT, off)
		}
	}
}

func (s *scanner) next() {
	start := s.pos
	c := s.peekAt(start)

	if start == 0 && c == 0xFEFF { // a byte order mark is ignored, as by the official engine
		s.pos = len("\ufeff")
		return
	}

	// The official engine reads sources with CRLF line ends normalized to LF;
	// skip the CR here so offsets stay those of the original bytes.
	if c == '\r' && s.peekAt(start+1) == '\n' {
		s.pos++
		return
	}

	if s.newLine {
		switch {
		case c == '#' || c == '\n':
			s.tabs, s.spaces = 0, 0
		case c == '\t':
			s.tabs++
		case c == ' ':
			s.spaces++
		default:
			s.newLine = false
			mark := len(s.toks)
			s.indentation(start)
			if made := len(s.toks); made > mark {
				// A line whose first character makes no token (a line
				// continuation, ';', an unknown character, other whitespace)
				// loses the INDENT/DEDENTs of its indentation, as in the
				// official lexer; the levels stay as they were changed.
				defer func() {
					if len(s.toks) == made {
						s.toks = s.toks[:mark]
					}
				}()
			}
		}
	}

	switch {
	case c == '#':
		end := start
		for end < len(s.src) && s.src[end] != '\n' {
			end++
		}
		if end > start && s.src[end-1] == '\r' {
			end--
		}
		s.pos = end
		s.emit(COMMENT, start)
		return
	case c == '\n':
		s.pos++
		nl := s.emit(NEWLINE, start)
		// A line break ends at the start of the next line, except at the end
		// of input (see scanAll).
		if s.pos < len(s.src) {
			nl.EndLine, nl.EndCol = nl.Line+1, 1
		}
		s.line++
		s.lineStart = s.pos
		s.newLine = true
		return
	case c == ' ' || c == '\t':
		s.pos++
		return
	case isOtherWhitespace(c):
		s.pos += utf8.RuneLen(c)
		return
	case c == '"' || c == '\'':
		s.scanString(start, false)
		return
	case (c == 'r' || c == 'R') && (s.peekAt(start+1) == '"' || s.peekAt(start+1) == '\''):
		s.scanString(start, true)
		return
	case c == '$' && isIDStart(s.peekAt(start+1)):
		s.pos++
		s.scanIdent(start, true)
		return
	case isIDStart(c):
		s.scanIdent(start, false)
		return
	case '0' <= c && c <= '9':
		s.scanNumber(start)
		return
	case c == '\\':
		switch s.peekAt(start + 1) {
		case '\n':
			s.pos += 2
			s.line++
			s.lineStart = s.pos
		case '\r':
			if s.peekAt(start+2) != '\n' {
				s.pos++
				s.errorAt(start, "unexpected character after line continuation character")
				return
			}
			s.pos += 3
			s.line++
			s.lineStart = s.pos
		case -1:
			s.pos++
		default:
			s.pos++
			s.errorAt(start, "unexpected character after line continuation character")
		}
		return
	}
	s.scanOperator(start, c)
}

// The operator tables are switches and arrays rather than maps: the scanner
// looks up every operator token, and a map lookup costs more than the rest of
// the token.

// multiCharOp returns the three- or two-character operator at the start of
// rest and its length (0 when there is none); the longer one wins.
func multiCharOp(rest string) (TokenKind, int) {
	if len(rest) >= 3 {
		switch rest[:3] {
		case "**=":
			return STARSTAREQ, 3
		case "//=":
			return SLASHSLASHEQ, 3
		case "<<=":
			return LTLTEQ, 3
		case ">>=":
			return GTGTEQ, 3
		case "...":
			return DOTDOTDOT, 3
		}
	}
	if len(rest) >= 2 {
		switch rest[:2] {
		case "==":
			return EQEQ, 2
		case "!=":
			return NEQ, 2
		case "<=":
			return LTEQ, 2
		case ">=":
			return GTEQ, 2
		case "<<":
			return LTLT, 2
		case ">>":
			return GTGT, 2
		case "+=":
			return PLUSEQ, 2
		case "-=":
			return MINUSEQ, 2
		case "*=":
			return STAREQ, 2
		case "/=":
			return SLASHEQ, 2
		case "%=":
			return PERCENTEQ, 2
		case "^=":
			return CARETEQ, 2
		case "&=":
			return AMPEQ, 2
		case "|=":
			return PIPEEQ, 2
		case "**":
			return STARSTAR, 2
		case "//":
			return SLASHSLASH, 2
		}
	}
	return ILLEGAL, 0
}

// oneCharOps maps a byte to its one-character token; ILLEGAL for the others.
var oneCharOps = [utf8.RuneSelf]TokenKind{
	'+': PLUS, '-': MINUS, '*': STAR, '/': SLASH, '%': PERCENT, '^': CARET, '&': AMP, '|': PIPE,
	'~': TILDE, '!': BANG, '<': LT, '>': GT, '=': EQ, '@': AT, '.': DOT, ',': COMMA, ':': COLON,
	';': SEMI, '$': DOLLAR, '?': QUESTION, '(': LPAREN, ')': RPAREN, '[': LBRACKET, ']': RBRACKET,
	'{': LBRACE, '}': RBRACE,
}

var closeOf = [...]TokenKind{LPAREN: RPAREN, LBRACKET: RBRACKET, LBRACE: RBRACE}

func (s *scanner) scanOperator(start int, c rune) {
	if k, n := multiCharOp(s.src[start:]); n > 0 {
		s.pos += n
		s.emit(k, start)
		return
	}
	if c < utf8.RuneSelf {
		if k := oneCharOps[c]; k != ILLEGAL {
			s.pos++
			switch k {
			case SEMI:
				s.errorAt(start, "the semicolon ';' here is unnecessary, please remove it")
				return
			case BANG:
				s.errorAt(start, "invalid token '!', consider using 'not '")
			case LPAREN, LBRACKET, LBRACE:
				s.delims = append(s.delims, k)
			case RPAREN, RBRACKET, RBRACE:
				k = s.closeDelim(start, k)
			case GT:
				// The official lexer merges a '-' token right before '>' into '->',
				// even with blanks between, starting the arrow one byte before '>'.
				if n := len(s.toks); n > 0 && s.toks[n-1].Kind == MINUS {
					s.toks = s.toks[:n-1]
					s.emit(ARROW, start-1)
					return
				}
			}
			s.emit(k, start)
			return
		}
	}
	_, size := utf8.DecodeRuneInString(s.src[start:]) // 1 for an invalid byte
	s.pos += max(1, size)
	s.errorAt(start, "unknown start of token")
}

// closeDelim pops the innermost open bracket. A mismatched closer is reported
// and, as in the official lexer, becomes the closer the open bracket expects.
func (s *scanner) closeDelim(start int, k TokenKind) TokenKind {
	var msg string
	switch k {
	case RPAREN:
		msg = "error nesting on close paren"
	case RBRACE:
		msg = "error nesting on close brace"
	default:
		msg = "mismatched closing delimiter"
	}
	if len(s.delims) == 0 {
		s.errorAt(start, msg)
		return k
	}
	open := s.delims[len(s.delims)-1]
	s.delims = s.delims[:len(s.delims)-1]
	if closeOf[open] != k {
		s.errorAt(start, msg)
		return closeOf[open]
	}
	return k
}

func (s *scanner) scanIdent(start int, escaped bool) {
	for s.pos < len(s.src) {
		if c := s.src[s.pos]; c < utf8.RuneSelf {
			// ASCII, the common case, without decoding a rune.
			if c != '_' && !('a' <= c && c <= 'z') && !('A' <= c && c <= 'Z') && !('0' <= c && c <= '9') {
				break
			}
			s.pos++
			continue
		}
		r := s.peekAt(s.pos)
		if !isIDContinue(r) {
			break
		}
		s.pos += utf8.RuneLen(r)
	}
	t := s.emit(IDENT, start)
	t.Escaped = escaped
	t.Value = t.Text
	if escaped {
		t.Value = t.Text[1:]
	}
}

func (s *scanner) eatDigits(hex bool) bool {
	has := false
	for s.pos < len(s.src) {
		c := s.src[s.pos]
		switch {
		case c == '_':
		case '0' <= c && c <= '9', hex && (('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')):
			has = true
		default:
			return has
		}
		s.pos++
	}
	return has
}

func (s *scanner) eatExponent() bool {
	if c := s.peekAt(s.pos); c == '-' || c == '+' {
		s.pos++
	}
	return s.eatDigits(false)
}

// scanNumber follows the official lexer: 0b/0o/0x prefixes, a leading 0
// followed by digits is octal, `1.` and `1.5e3` are floats, and any
// identifier characters right after an int form its unit suffix.
func (s *scanner) scanNumber(start int) {
	s.pos++
	base := 10
	isFloat := false
	emptyInt, emptyExp := false, false
	if s.src[start] == '0' {
		switch c := s.peekAt(s.pos); {
		case c == 'b':
			base = 2
			s.pos++
			emptyInt = !s.eatDigits(false)
		case c == 'o' || ('0' <= c && c <= '9'):
			base = 8
			s.pos++
			// Like the official lexer: the first digit after 0 is taken as the
			// base marker, so `07` and `00` have no digits but `017` is 0o17.
			emptyInt = !s.eatDigits(false)
		case c == 'x':
			base = 16
			s.pos++
			emptyInt = !s.eatDigits(true)
		case c == '_' || c == '.' || c == 'e' || c == 'E':
			s.eatDigits(false)
		default:
			goto suffix
		}
		if emptyInt {
			goto suffix
		}
	} else {
		s.eatDigits(false)
	}
	switch c := s.peekAt(s.pos); {
	case c == '.' && s.peekAt(s.pos+1) != '.' && !isIDStart(s.peekAt(s.pos+1)):
		s.pos++
		isFloat = true
		if d := s.peekAt(s.pos); '0' <= d && d <= '9' {
			s.eatDigits(false)
			if e := s.peekAt(s.pos); e == 'e' || e == 'E' {
				s.pos++
				emptyExp = !s.eatExponent()
			}
		}
	case c == 'e' || c == 'E':
		s.pos++
		isFloat = true
		emptyExp = !s.eatExponent()
	}
suffix:
	numEnd := s.pos
	if isIDStart(s.peekAt(s.pos)) {
		for s.pos < len(s.src) && isIDContinue(s.peekAt(s.pos)) {
			s.pos += utf8.RuneLen(s.peekAt(s.pos))
		}
	}
	kind := INT
	if isFloat {
		kind = FLOAT
	}
	t := s.emit(kind, start)
	t.Value = s.src[start:numEnd]
	switch {
	case emptyInt:
		s.errorAt(start, "no valid digits found for number")
		t.Value = "0"
		return
	case isFloat && emptyExp:
		s.errorAt(start, "expected at least one digit in exponent")
		t.Value = "0"
		return
	case isFloat && strings.Contains(t.Value, "_"):
		// The official lexer takes the digits with '_' but its float parse
		// does not: `1_000.5` is a syntax error, `1_000` an int.
		s.errorAt(start, `expected one of ["float"] got `+t.Value)
		t.Value = "0"
		return
	case isFloat && base != 10:
		names := map[int]string{2: "binary", 8: "octal", 16: "hexadecimal"}
		s.errorAt(start, names[base]+" float literal is not supported")
		t.Value = "0"
		return
	}
	if !isFloat && base != 10 {
		digits := s.src[start+2 : numEnd]
		for i, r := range digits {
			if r != '_' && !isDigitOf(r, base) {
				lo := start + 2 + i
				s.errorAt(lo, "invalid digit for a base "+strconv.Itoa(base)+" literal, start: "+strconv.Itoa(lo)+", stop: "+strconv.Itoa(lo+utf8.RuneLen(r)))
				t.Value = "0"
				break
			}
		}
	}
	if numEnd < s.pos {
		t.Suffix = s.src[numEnd:s.pos]
		if isFloat {
			// The official lexer drops a suffix after a float.
			t.Suffix = ""
		} else if !IsNumberSuffix(t.Suffix) && t.Suffix != "i" {
			s.errorAt(start, "invalid int binary suffix")
			t.Suffix = ""
		}
	}
}

func isDigitOf(r rune, base int) bool {
	v, err := strconv.ParseInt(string(r), base, 64)
	return err == nil && v >= 0
}

// scanString scans a quoted literal, possibly raw and/or triple quoted, and
// decodes its value.
func (s *scanner) scanString(start int, raw bool) {
	quotePos := start
	if raw {
		quotePos++
	}
	quote := s.src[quotePos]
	s.pos = quotePos + 1
	long := false
	if s.peekAt(s.pos) == rune(quote) && s.peekAt(s.pos+1) == rune(quote) {
		long = true
		s.pos += 2
	}
	startLine, startCol := s.line, s.col(start)
	terminated := false
	// The loop mirrors the official lexer's arms: an escaped backslash or quote
	// is skipped without the end-of-line check, so `"a\"` runs on past the
	// line break until a quote or the end of a later line.
	for s.pos < len(s.src) {
		c := s.src[s.pos]
		s.pos++
		if c == '\n' {
			s.line++
			s.lineStart = s.pos
		}
		if c == '\\' && s.pos < len(s.src) && (s.src[s.pos] == '\\' || s.src[s.pos] == quote) {
			s.pos++
			continue
		}
		if c == quote {
			if !long {
				terminated = true
				break
			}
			if s.peekAt(s.pos) == rune(quote) && s.peekAt(s.pos+1) == rune(quote) {
				s.pos += 2
				terminated = true
				break
			}
			continue
		}
		if !long && (s.pos >= len(s.src) || s.src[s.pos] == '\n' || s.src[s.pos] == '\r') {
			break
		}
	}
	if !terminated {
		// The official lexer reports an unterminated triple-quoted string as a
		// plain one.
		long = false
	}
	text := s.src[start:s.pos]
	s.toks = append(s.toks, Token{
		Kind: STRING, Start: start, End: s.pos,
		Line: startLine, Col: startCol, EndLine: s.line, EndCol: s.col(s.pos),
		Text: text, Raw: raw, Long: long, Quote: quote,
	})
	t := &s.toks[len(s.toks)-1]
	if !terminated {
		s.errors = append(s.errors, &Error{
			Pos:  Position{File: s.file, Line: startLine, Col: startCol + boolInt(raw), Offset: quotePos},
			Kind: errkind.InvalidSyntax, Msg: "unterminated string",
		})
	}
	open := quotePos + 1
	closeLen := 1
	if long {
		open += 2
		closeLen = 3
	}
	end := s.pos
	if terminated {
		end -= closeLen
	}
	// Decoding errors are reported where the content starts.
	contentPos := Position{File: s.file, Line: startLine, Col: startCol + (open - start), Offset: open}
	if end < open {
		s.errors = append(s.errors, &Error{Pos: contentPos, Kind: errkind.InvalidSyntax, Msg: "invalid string syntax"})
		return
	}
	v, ok := decodeString(s.src[open:end], quote, long, raw)
	if !ok {
		s.errors = append(s.errors, &Error{Pos: contentPos, Kind: errkind.InvalidSyntax, Msg: "invalid string syntax"})
		return
	}
	t.Value = v
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// decodeString processes escapes like the official engine: unknown escapes keep
// their backslash, `\` before a newline joins lines, raw strings keep every
// backslash.
func decodeString(content string, quote byte, long, raw bool) (string, bool) {
	if strings.Contains(content, "\r\n") {
		content = strings.ReplaceAll(content, "\r\n", "\n")
	}
	if !strings.ContainsRune(content, '\\') {
		if !long && strings.ContainsRune(content, '\n') {
			return "", false
		}
		return content, true
	}
	var b strings.Builder
	b.Grow(len(content))
	for i := 0; i < len(content); {
		c := content[i]
		if c != '\\' {
			if c == '\n' && !long {
				return "", false
			}
			b.WriteByte(c)
			i++
			continue
		}
		i++
		if i >= len(content) {
			return "", false
		}
		n := content[i]
		if raw {
			// Raw strings keep the backslash and the escaped character.
			b.WriteByte('\\')
			b.WriteByte(n)
			i++
			continue
		}
		i++
		switch n {
		case quote, '\\', '\'', '"':
			b.WriteByte(n)
		case '\n':
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'f':
			b.WriteByte(12)
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte(11)
		case '0', '1', '2', '3', '4', '5', '6', '7':
			v := int(n - '0')
			for k := 0; k < 2 && i < len(content) && content[i] >= '0' && content[i] <= '7'; k++ {
				v = v*8 + int(content[i]-'0')
				i++
			}
			b.WriteRune(rune(v))
		case 'x', 'u', 'U':
			width := 2
			switch n {
			case 'u':
				width = 4
			case 'U':
				width = 8
			}
			if i+width > len(content) {
				return "", false
			}
			v, err := strconv.ParseUint(content[i:i+width], 16, 32)
			if err != nil {
				return "", false
			}
			i += width
			r := rune(v)
			if r >= 0xD800 && r <= 0xDFFF {
				r = utf8.RuneError
			} else if r > unicode.MaxRune {
				return "", false
			}
			b.WriteRune(r)
		default:
			b.WriteByte('\\')
			b.WriteByte(n)
		}
	}
	return b.String(), true
}
