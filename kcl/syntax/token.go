package syntax

// TokenKind classifies a token. It is a byte so that it packs with the
// token's flags (see Token).
type TokenKind uint8

const (
	ILLEGAL TokenKind = iota
	EOF
	NEWLINE
	INDENT
	DEDENT
	COMMENT // `# ...` up to the end of the line, '#' included

	IDENT  // name, keyword-looking names included (see Token.Keyword); `$name` too
	INT    // 1, 0x1f, 0o17, 0b1, 1_000, 1Gi (suffix in Token.Suffix)
	FLOAT  // 1.0, 1e3, .5
	STRING // any string literal; Token.Value holds the decoded value

	// Operators and delimiters.
	PLUS         // +
	MINUS        // -
	STAR         // *
	SLASH        // /
	PERCENT      // %
	STARSTAR     // **
	SLASHSLASH   // //
	CARET        // ^
	AMP          // &
	PIPE         // |
	LTLT         // <<
	GTGT         // >>
	TILDE        // ~
	BANG         // ! (invalid on its own; `not` is the keyword)
	PLUSEQ       // +=
	MINUSEQ      // -=
	STAREQ       // *=
	SLASHEQ      // /=
	PERCENTEQ    // %=
	STARSTAREQ   // **=
	SLASHSLASHEQ // //=
	CARETEQ      // ^=
	AMPEQ        // &=
	PIPEEQ       // |=
	LTLTEQ       // <<=
	GTGTEQ       // >>=
	EQEQ         // ==
	NEQ          // !=
	LT           // <
	LTEQ         // <=
	GT           // >
	GTEQ         // >=
	EQ           // =
	AT           // @
	DOT          // .
	DOTDOTDOT    // ...
	COMMA        // ,
	COLON        // :
	SEMI         // ; (rejected by the parser like the official engine)
	DOLLAR       // $ (alone)
	QUESTION     // ?
	ARROW        // ->
	LPAREN       // (
	RPAREN       // )
	LBRACKET     // [
	RBRACKET     // ]
	LBRACE       // {
	RBRACE       // }
)

var tokenNames = [...]string{
	ILLEGAL: "illegal", EOF: "eof", NEWLINE: "newline", INDENT: "indent", DEDENT: "dedent",
	COMMENT: "comment", IDENT: "identifier", INT: "literal", FLOAT: "literal", STRING: "literal",
	PLUS: "+", MINUS: "-", STAR: "*", SLASH: "/", PERCENT: "%", STARSTAR: "**", SLASHSLASH: "//",
	CARET: "^", AMP: "&", PIPE: "|", LTLT: "<<", GTGT: ">>", TILDE: "~", BANG: "!",
	PLUSEQ: "+=", MINUSEQ: "-=", STAREQ: "*=", SLASHEQ: "/=", PERCENTEQ: "%=", STARSTAREQ: "**=",
	SLASHSLASHEQ: "//=", CARETEQ: "^=", AMPEQ: "&=", PIPEEQ: "|=", LTLTEQ: "<<=", GTGTEQ: ">>=",
	EQEQ: "==", NEQ: "!=", LT: "<", LTEQ: "<=", GT: ">", GTEQ: ">=", EQ: "=", AT: "@", DOT: ".",
	DOTDOTDOT: "...", COMMA: ",", COLON: ":", SEMI: ";", DOLLAR: "$", QUESTION: "?", ARROW: "->",
	LPAREN: "(", RPAREN: ")", LBRACKET: "[", RBRACKET: "]", LBRACE: "{", RBRACE: "}",
}

// String is the token's name as the official engine prints it in
// "expected ... got ..." messages.
func (k TokenKind) String() string {
	if int(k) < len(tokenNames) && tokenNames[k] != "" {
		return tokenNames[k]
	}
	return "?"
}

// Token is one lexical token with its exact extent in the source.
//
// Start and End are byte offsets (End exclusive), so src[Start:End] is the token's
// text. Line/Col and EndLine/EndCol are 1-based; columns count runes. As in the
// official engine, a NEWLINE ends at column 1 of the next line, and tokens at
// the end of input sit on the last line.
type Token struct {
	Kind TokenKind
	// The byte-sized fields follow Kind and share one word with it: a file has
	// a token for every 3-4 bytes, so the token's size decides the scanner's memory.

	// Raw is true for r"..." strings; Long is true for triple-quoted strings.
	Raw  bool
	Long bool
	// Quote is the quote character of a STRING (' or ").
	Quote byte
	// Escaped is true for a `$name` identifier (a keyword used as a name).
	Escaped bool

	Start   int
	End     int
	Line    int
	Col     int
	EndLine int
	EndCol  int
	// Text is the source text of the token (src[Start:End]); empty for INDENT,
	// DEDENT, EOF and the NEWLINE synthesized at the end of input.
	Text string
	// Value is the decoded value of a STRING (escapes processed, quotes and prefix
	// removed; triple-quoted strings are not yet dedented), the name of an IDENT
	// without a leading `$`, and the digits of an INT/FLOAT without the suffix.
	Value string
	// Suffix is the unit suffix of an INT such as "Gi".
	Suffix string
	// Misaligned is, for a DEDENT, how many columns the line sits right of the
	// enclosing block's indentation (0 when aligned); the parser reports it.
	Misaligned int
}

// Pos is the position where the token starts.
func (t *Token) Pos(file string) Position {
	return Position{File: file, Line: t.Line, Col: t.Col, Offset: t.Start}
}

// EndPos is the position just after the token.
func (t *Token) EndPos(file string) Position {
	return Position{File: file, Line: t.EndLine, Col: t.EndCol, Offset: t.End}
}

// IsKeyword reports whether s is a reserved word of KCL. An IDENT that spells
// one is a keyword unless escaped. A switch is cheaper than a map here: the
// parser asks for every identifier, often several times.
func IsKeyword(s string) bool {
	switch s {
	case "True", "False", "None", "Undefined",
		"import", "as", "rule", "schema", "mixin", "protocol",
		"check", "for", "assert", "if", "elif", "else",
		"or", "and", "not", "in", "is", "lambda",
		"all", "any", "filter", "map", "type":
		return true
	}
	return false
}

// Keyword returns the keyword the token spells, or "" for names and other tokens.
func (t *Token) Keyword() string {
	if t.Kind == IDENT && !t.Escaped && IsKeyword(t.Text) {
		return t.Text
	}
	return ""
}

// isKeyword reports whether the token is the keyword kw; it is Keyword() == kw
// without the keyword lookup, for a kw that is a keyword.
func (t *Token) isKeyword(kw string) bool {
	return t.Kind == IDENT && !t.Escaped && t.Text == kw
}
