// Package syntax is the front end of the KCL engine: tokens, scanner, AST and
// a parser that follows the official engine (kcl-lang/kcl 0.12) closely enough
// that valid programs get the same tree shape and broken ones get the same first
// error (kind, message, line:col).
//
// # Parsing
//
// ParseFile returns a *Module; on failure the error is a *Error with Pos, Kind
// (always errkind.InvalidSyntax today, code E1001, as the official engine prints) and
// Msg. ParseFileAll returns every error. Node positions are 1-based lines and
// rune columns, as `kcl run` prints them; Position.Offset is the byte offset.
//
// A few shapes follow the official AST rather than intuition:
//   - `a.b.c` is one *Identifier with three Names, not nested selectors;
//     selectors only appear after calls, subscripts and parentheses.
//   - `$name` escapes a keyword; Names hold the name without `$`.
//   - `not a == b` is `(not a) == b` and `-2 ** 2` is `(-2) ** 2`: unary
//     operators bind tighter than every binary operator.
//   - Strings with `${...}` are *JoinedString with *StringLit and
//     *FormattedValue parts; `${x:#json}` has FormatSpec "#json". Raw strings
//     are never interpolated. Triple-quoted values are not dedented (0.12.1).
//   - An index signature key written `[str]: T` has a *BasicType key.
//
// Walk visits every node of a tree in source order (starlark-go style).
//
// # Tokens for source rewriting
//
// Scan returns every token of a file, comments included, with exact byte
// offsets (Start, End; src[Start:End] == Text) and 1-based Line/Col. A STRING
// token carries the decoded Value, its Quote, and Raw/Long flags. A COMMENT
// token's Text starts with '#' and runs to the end of the line.
//
// The image-policy resolver finds markers like
//
//	image = "ghcr.io/org/app:v1.2.3" # {"$imagepolicy": "flux-system:app"}
//
// by looking for a STRING token followed directly by a COMMENT token on the
// same line (TrailingComment does this), checking that the comment's JSON
// parses, and replacing src[tok.Start:tok.End] with a new literal made by
// QuoteString. Because the offsets are exact, the rest of the file is left
// byte for byte. A STRING whose Value contains "${" (and is not Raw) is an
// interpolated string, not a plain literal.
//
// # Errors
//
// ParseFile returns the first syntax error; its Rest field holds the following
// ones, which the official engine prints too (each as `error[E1001]:
// InvalidSyntax`, ` --> file:line:col`, the source line and the message).
// Columns at the end of a line are already clamped the way the official engine
// prints them. (*Error).Render prints the whole list exactly as `kcl run` does,
// caret rules included (no caret at column 1; tabs take no width).
package syntax

// TrailingComment returns the comment that directly follows toks[i] on the
// same line (nothing but spaces between them), if any.
func TrailingComment(toks []Token, i int) (Token, bool) {
	if i < 0 || i+1 >= len(toks) {
		return Token{}, false
	}
	t, c := toks[i], toks[i+1]
	if c.Kind != COMMENT || c.Line != t.EndLine {
		return Token{}, false
	}
	return c, true
}
