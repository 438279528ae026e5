package syntax

// TokenKind classifies a token.
type TokenKind int

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
	Kind    TokenKind
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
	// Raw is true for r"..." strings; Long is true for triple-quoted strings.
	Raw  bool
	Long bool
	// Quote is the quote character of a STRING (' or ").
	Quote byte
	// Escaped is true for a `$name` identifier (a keyword used as a name).
	Escaped bool
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

// Keywords of KCL. An IDENT whose Text is one of them is a keyword unless escaped.
var keywords = map[string]bool{
	"True": true, "False": true, "None": true, "Undefined": true,
	"import": true, "as": true, "rule": true, "schema": true, "mixin": true, "protocol": true,
	"check": true, "for": true, "assert": true, "if": true, "elif": true, "else": true,
	"or": true, "and": true, "not": true, "in": true, "is": true, "lambda": true,
	"all": true, "any": true, "filter": true, "map": true, "type": true,
}

// IsKeyword reports whether s is a reserved word.
func IsKeyword(s string) bool { return keywords[s] }

// Keyword returns the keyword the token spells, or "" for names and other tokens.
func (t *Token) Keyword() string {
	if t.Kind == IDENT && !t.Escaped && keywords[t.Text] {
		return t.Text
	}
	return ""
}
