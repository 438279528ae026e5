package modules

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

// A Handlebars subset, as template.execute of 0.12.1 (handlebars-rust) offers it:
// {{path}} (HTML-escaped), {{{path}}} and {{&path}} (verbatim), {{#if}}/{{#unless}}/
// {{#each}}/{{#with}} blocks with {{else}}, comments, "~" whitespace control, the
// standalone-line rule for block tags, and raw blocks {{{{raw}}}}…{{{{/raw}}}}.
// raw is handlebars-rust's helper that renders its block: inline ({{raw x}}) it
// has no block and prints nothing. A name with arguments that is no helper fails
// with handlebars-rust's HelperNotFound, as does a block of such a name.

type tplToken struct {
	text      string // literal text, or the tag body
	tag       bool
	triple    bool
	rawBlock  bool // {{{{name}}}} or {{{{/name}}}}: its body is text, its leading whitespace dropped
	line, col int  // where the tag starts (1-based, in characters), for handlebars-rust's errors
	off       int  // where the tag starts (in bytes)
	bodyOff   int  // where text starts (in bytes), for syntax errors
	unclosed  bool // a tag the template ends in: its text runs to the end
	end       int  // an unclosed tag's end: the template's length, trailing whitespace included
	trimLeft  bool
	trimRight bool
}

func tplLex(tmpl string) ([]tplToken, error) {
	var toks []tplToken
	src := tmpl
	for len(src) > 0 {
		i := strings.Index(src, "{{")
		if i < 0 {
			toks = append(toks, tplToken{text: src})
			break
		}
		if i > 0 {
			toks = append(toks, tplToken{text: src[:i]})
		}
		src = src[i:]
		off := len(tmpl) - len(src)
		line, col := tplPos(tmpl, off)
		if strings.HasPrefix(src, "{{{{") {
			j := strings.Index(src, "}}}}")
			if b := strings.IndexByte(src[4:], '}'); j < 0 || b+4 < j {
				// the opening tag ends before its four braces: pest wants more of the block's expression there
				if b < 0 {
					b = len(src) - 4
				}
				return nil, tplInvalidSyntax(off+4+b, "identifier", "helper_parameter", "block_param", "trailing_tilde_to_omit_whitespace")
			}
			inner := strings.TrimSpace(src[4:j])
			name, _, _ := strings.Cut(inner, " ")
			k, endLen := -1, 0
			for from := j + 4; ; {
				e := strings.Index(src[from:], "{{{{/")
				if e < 0 {
					return nil, tplInvalidSyntax(len(tmpl), "escape", "raw_block_end")
				}
				e += from
				rest := strings.TrimLeft(src[e+5:], " \t\r\n")
				if !strings.HasPrefix(rest, name) {
					from = e + 5
					continue
				}
				after := strings.TrimLeft(rest[len(name):], " \t\r\n")
				if !strings.HasPrefix(after, "}}}}") {
					return nil, tplInvalidSyntax(len(tmpl)-len(after), "trailing_tilde_to_omit_whitespace")
				}
				k, endLen = e, len(src)-e-len(after)+4
				break
			}
			toks = append(toks, tplToken{tag: true, rawBlock: true, text: "#" + inner, line: line, col: col, off: off, bodyOff: off + 4 + strings.Index(src[4:j], inner) - 1},
				tplToken{text: src[j+4 : k]},
				tplToken{tag: true, rawBlock: true, text: "/" + name})
			src = src[k+endLen:]
			continue
		}
		triple := strings.HasPrefix(src, "{{{")
		open, close := "{{", "}}"
		if triple {
			open, close = "{{{", "}}}"
		}
		body := src[len(open):]
		if strings.HasPrefix(body, "!--") {
			close = "--}}"
		}
		t := tplToken{tag: true, triple: triple, line: line, col: col, off: off, bodyOff: off + len(open)}
		if j := tplCloseIndex(body, close); j >= 0 {
			t.text, src = body[:j], body[j+len(close):]
		} else {
			t.text, t.unclosed, t.end, src = body, true, len(tmpl), ""
		}
		if strings.HasPrefix(t.text, "~") {
			t.trimLeft, t.text = true, t.text[1:]
			t.bodyOff++
		}
		if strings.HasSuffix(t.text, "~") && !t.unclosed {
			t.trimRight, t.text = true, t.text[:len(t.text)-1]
		}
		t.bodyOff += len(t.text) - len(strings.TrimLeft(t.text, " \t\r\n"))
		t.text = strings.TrimSpace(t.text)
		toks = append(toks, t)
	}
	return toks, nil
}

// tplCloseIndex finds a tag's close: outside string literals and an object literal's braces,
// so {{eq a "}}"}} and {{eq d {}}} end where handlebars-rust's grammar ends them. A comment
// ends at the first close.
func tplCloseIndex(body, close string) int {
	if strings.HasPrefix(body, "!") {
		return strings.Index(body, close)
	}
	depth := 0
	var quote byte
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '{':
			depth++
		case c == '}' && depth > 0:
			depth--
		case depth == 0 && strings.HasPrefix(body[i:], close):
			return i
		}
	}
	return -1
}

func tplPos(tmpl string, off int) (line, col int) {
	before := tmpl[:off]
	nl := strings.LastIndexByte(before, '\n')
	return strings.Count(before, "\n") + 1, utf8.RuneCountInString(before[nl+1:]) + 1
}

// helperNotFound is handlebars-rust's error for a helper call or block of an unknown name.
func helperNotFound(t *tplToken, name string) error {
	return evalErr("render template failed: RenderError { template_name: Some(\"template\"), line_no: Some(%d), column_no: Some(%d), reason: HelperNotFound(%q), unimplemented: false }", t.line, t.col, name)
}

// tplHelpers are handlebars-rust's built-in helpers; a call of any other name fails.
// Beyond if/unless/each/with/raw/log, this subset prints nothing for them.
var tplHelpers = map[string]bool{"if": true, "unless": true, "each": true, "with": true, "raw": true, "log": true,
	"lookup": true, "len": true, "eq": true, "ne": true, "gt": true, "gte": true, "lt": true, "lte": true,
	"and": true, "or": true, "not": true}

func isStandaloneKind(t tplToken) bool {
	if !t.tag || t.triple {
		return false
	}
	return strings.HasPrefix(t.text, "#") || strings.HasPrefix(t.text, "/") || strings.HasPrefix(t.text, "!") ||
		t.text == "else" || strings.HasPrefix(t.text, "^")
}

// applyWhitespaceRules trims text around "~" tags and standalone block tags.
// Standalone decisions are taken on the original texts, then applied, so two
// block tags sharing one line break between them both see their lines.
func applyWhitespaceRules(toks []tplToken) {
	from := make([]int, len(toks)) // cut text before this offset
	to := make([]int, len(toks))   // cut text from this offset
	for i := range toks {
		to[i] = len(toks[i].text)
	}
	for i, t := range toks {
		if !isStandaloneKind(t) {
			continue
		}
		prevOK, prevCut := true, -1
		if i > 0 {
			if toks[i-1].tag {
				prevOK = false
			} else {
				p := toks[i-1].text
				nl := strings.LastIndexByte(p, '\n')
				if strings.Trim(p[nl+1:], " \t") != "" || (nl < 0 && i-1 > 0) {
					prevOK = false
				}
				prevCut = nl + 1
			}
		}
		// handlebars-rust wants a line break after a standalone tag: the end of the template is none
		nextOK, nextCut := false, 0
		if i+1 < len(toks) && !toks[i+1].tag {
			n := toks[i+1].text
			if nl := strings.IndexByte(n, '\n'); nl >= 0 && strings.Trim(strings.TrimSuffix(n[:nl], "\r"), " \t") == "" {
				nextOK, nextCut = true, nl+1
			}
		}
		if prevOK && nextOK {
			if prevCut >= 0 {
				to[i-1] = min(to[i-1], prevCut)
			}
			if i+1 < len(toks) {
				from[i+1] = max(from[i+1], nextCut)
			}
		}
	}
	for i := range toks {
		if !toks[i].tag {
			if from[i] >= to[i] {
				toks[i].text = ""
			} else {
				toks[i].text = toks[i].text[from[i]:to[i]]
			}
		}
	}
	for i, t := range toks {
		// handlebars-rust's grammar skips the whitespace after a raw block's opening tag.
		if t.rawBlock && strings.HasPrefix(t.text, "#") && i+1 < len(toks) && !toks[i+1].tag {
			toks[i+1].text = strings.TrimLeft(toks[i+1].text, " \t\r\n")
		}
		if !t.tag {
			continue
		}
		if t.trimLeft && i > 0 && !toks[i-1].tag {
			toks[i-1].text = strings.TrimRight(toks[i-1].text, " \t\r\n")
		}
		if t.trimRight && i+1 < len(toks) && !toks[i+1].tag {
			toks[i+1].text = strings.TrimLeft(toks[i+1].text, " \t\r\n")
		}
	}
}

type tplNode struct {
	text    string
	expr    *tplExpr  // an expression tag, or a block's opening expression
	pos     *tplToken // the tag, for errors
	raw     bool      // an expression tag printed unescaped
	block   bool
	partial bool // {{> name}} (no partial is registered) or {{#> name}}…{{/name}} (its body renders)
	body    []*tplNode
	inverse []*tplNode
}

// tplExpr is a tag's expression as handlebars-rust parses it: a helper name or
// path, its parameters and hash, and a block's parameters (as |item index|).
type tplExpr struct {
	name        string
	sub         *tplExpr // {{(helper x)}}: the expression is a subexpression
	params      []*tplParam
	hash        []tplHashArg
	blockParams []string
}

type tplParam struct {
	lit   value.Value
	isLit bool
	path  string
	sub   *tplExpr
}

type tplHashArg struct {
	key   string
	value *tplParam
}

// tplSyntaxError is handlebars-rust's TemplateError: pest's complaint, or a block closed by
// another name's tag, at a byte offset of the template.
type tplSyntaxError struct {
	off      int
	reason   string   // set, or
	expected []string // pest's InvalidSyntax("expected a, b, or c")
}

func (e *tplSyntaxError) Error() string {
	if e.reason != "" {
		return e.reason
	}
	list := e.expected[len(e.expected)-1]
	if n := len(e.expected); n > 1 {
		list = strings.Join(e.expected[:n-1], ", ")
		if n > 2 {
			list += ","
		}
		list += " or " + e.expected[n-1]
	}
	return fmt.Sprintf("InvalidSyntax(%q)", "expected "+list)
}

func tplInvalidSyntax(off int, expected ...string) *tplSyntaxError {
	return &tplSyntaxError{off: off, expected: expected}
}

// tplTemplateError renders handlebars-rust's TemplateError with its segment: the lines
// around the error, numbered from 0, and under the error's line a ruler whose '^'
// stands at the byte index equal to the 1-based column.
func tplTemplateError(tmpl string, e *tplSyntaxError) error {
	line, col := tplPos(tmpl, e.off)
	var seg strings.Builder
	lines := strings.Split(strings.TrimSuffix(tmpl, "\n"), "\n")
	for i, l := range lines {
		l = strings.TrimSuffix(l, "\r")
		if i < line-3 || i > line+3 {
			continue
		}
		fmt.Fprintf(&seg, "%4d | %s\n", i, l)
		if i == line-1 {
			seg.WriteString("     |")
			for c := range len(l) {
				if c == col {
					seg.WriteByte('^')
				} else {
					seg.WriteByte('-')
				}
			}
			seg.WriteByte('\n')
		}
	}
	return evalErr("register template failed: TemplateError { reason: %s, template_name: Some(\"template\"), line_no: Some(%d), column_no: Some(%d), segment: Some(\"%s\") }",
		e.Error(), line, col, tplDebugEscape(seg.String()))
}

// tplDebugEscape escapes a string as Rust's Debug does inside its quotes.
func tplDebugEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`, "\t", `\t`).Replace(s)
}

// tplParse builds the tree as handlebars-rust's grammar does: a closing tag closes the
// innermost block whatever its name (a mismatch is reported once the whole template
// parsed), {{else}} or {{^}} starts a block's inverse once, {{else helper …}} chains.
func tplParse(toks []tplToken, tmplLen int) ([]*tplNode, error) {
	type frame struct {
		open    *tplNode // the block's opening node, whose name its closing tag must repeat
		tail    *tplNode // the last block of an else chain
		cur     *[]*tplNode
		sawElse bool
	}
	root := &tplNode{}
	stack := []*frame{{cur: &root.body}}
	var mismatch error
	for i := range toks {
		t := &toks[i]
		top := stack[len(stack)-1]
		inBlock := len(stack) > 1 && !top.sawElse
		text, base := t.text, t.bodyOff
		switch {
		case !t.tag:
			*top.cur = append(*top.cur, &tplNode{text: t.text})
		case strings.HasPrefix(text, "!"):
		case strings.HasPrefix(text, ">") || strings.HasPrefix(text, "#>"):
			rest := strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(text, "#"), ">"))
			name, _, _ := strings.Cut(rest, " ")
			n := &tplNode{partial: true, pos: t, expr: &tplExpr{name: name}}
			*top.cur = append(*top.cur, n)
			if strings.HasPrefix(text, "#") {
				n.block = true
				stack = append(stack, &frame{open: n, tail: n, cur: &n.body})
			}
		case strings.HasPrefix(text, "#"):
			e, err := tplParseExpr(t, text[1:], base+1, tplModeBlock, inBlock)
			if err != nil {
				return nil, err
			}
			n := &tplNode{block: true, pos: t, expr: e}
			*top.cur = append(*top.cur, n)
			stack = append(stack, &frame{open: n, tail: n, cur: &n.body})
		case strings.HasPrefix(text, "/"):
			if len(stack) == 1 {
				return nil, tplInvalidSyntax(base, tplStartExpected(t, false)...)
			}
			// the name alone may follow, else pest stops at what follows it (or the end of an unclosed tag)
			rest := strings.TrimLeft(text[1:], " \t\r\n")
			name := tplPathPrefix(rest)
			if after := strings.TrimLeft(rest[len(name):], " \t\r\n"); after != "" {
				return nil, tplInvalidSyntax(base+len(text)-len(after), "trailing_tilde_to_omit_whitespace")
			}
			if t.unclosed {
				return nil, tplInvalidSyntax(tmplLen, "trailing_tilde_to_omit_whitespace")
			}
			if name != top.open.expr.name && mismatch == nil {
				kind := "Helper"
				if top.open.partial {
					kind = "Decorator"
				}
				mismatch = &tplSyntaxError{off: t.off, reason: fmt.Sprintf("MismatchingClosed%s(%q, %q)", kind, top.open.expr.name, name)}
			}
			stack = stack[:len(stack)-1]
		case (text == "else" || text == "^") && !t.unclosed:
			if !inBlock {
				return nil, &tplSyntaxError{off: base, reason: `InvalidSyntax("unexpected invert_tag_item; expected leading_tilde_to_omit_whitespace")`}
			}
			top.sawElse, top.cur = true, &top.tail.inverse
		case (strings.HasPrefix(text, "else ") || strings.HasPrefix(text, "^")) && !t.unclosed && !inBlock:
			// a chained else outside a block, or after its {{else}}
			return nil, tplInvalidSyntax(base+len(text), "keywords")
		case strings.HasPrefix(text, "else ") && inBlock, strings.HasPrefix(text, "^") && inBlock && !t.unclosed:
			skip := len("else ")
			if text[0] == '^' {
				skip = 1
			}
			e, err := tplParseExpr(t, text[skip:], base+skip, tplModeBlock, inBlock)
			if se, ok := err.(*tplSyntaxError); ok && t.unclosed && se.expected != nil {
				// in an unclosed chained else, pest also expects a keyword (as)
				se.expected = append([]string{"keywords"}, se.expected...)
			}
			if err != nil {
				return nil, err
			}
			// handlebars-rust reports a chained block's errors at the opening block's tag
			n := &tplNode{block: true, pos: top.open.pos, expr: e}
			top.tail.inverse = append(top.tail.inverse, n)
			top.tail, top.cur = n, &n.body
		default:
			raw, mode := t.triple, tplModeExpr
			if strings.HasPrefix(text, "&") {
				raw, text, base, mode = true, text[1:], base+1, tplModeName
			}
			if i := strings.IndexByte(text, '}'); t.triple && t.unclosed && i >= 0 {
				// a triple-stash closed by fewer braces: pest stops one past the first
				closed := *t
				closed.unclosed = false
				if _, err := tplParseExpr(&closed, strings.TrimSpace(text[:i]), base, mode, inBlock); err != nil {
					return nil, err
				}
				return nil, tplInvalidSyntax(base+i+1, "trailing_tilde_to_omit_whitespace")
			}
			e, err := tplParseExpr(t, text, base, mode, inBlock)
			if err != nil {
				return nil, err
			}
			*top.cur = append(*top.cur, &tplNode{expr: e, pos: t, raw: raw})
		}
	}
	if len(stack) > 1 {
		expected := []string{"escape", "expression", "html_expression", "decorator_expression", "partial_expression"}
		if !stack[len(stack)-1].sawElse {
			expected = append(expected, "invert_tag", "invert_chain_tag")
		}
		expected = append(expected, "helper_block_start", "helper_block_end", "decorator_block_start", "partial_block_start",
			"raw_block_start", "hbs_comment", "hbs_comment_compact")
		return nil, tplInvalidSyntax(tmplLen, expected...)
	}
	if mismatch != nil {
		return nil, mismatch
	}
	return root.body, nil
}

// tplStartExpected is what pest expects where a tag's expression should start.
func tplStartExpected(t *tplToken, inBlock bool) []string {
	exp := []string{"identifier", "subexpression"}
	if !t.trimLeft {
		exp = append(exp, "leading_tilde_to_omit_whitespace")
	}
	if inBlock {
		exp = append(exp, "invert_tag_item")
	}
	return append(exp, "path_inline")
}

const (
	tplModeExpr = iota
	tplModeBlock
	tplModeName // {{&name}}: a path or subexpression, no parameters
)

// tplExprScanner reads one tag's expression; base is the template offset of s[0].
type tplExprScanner struct {
	s    string
	i    int
	base int
	tok  *tplToken
}

func (sc *tplExprScanner) skipSpace() {
	for sc.i < len(sc.s) && strings.IndexByte(" \t\r\n", sc.s[sc.i]) >= 0 {
		sc.i++
	}
}

func tplIsSymbolChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '$' || c >= 0x80
}

func tplIdentPrefix(s string) string {
	i := 0
	for i < len(s) && tplIsSymbolChar(s[i]) {
		i++
	}
	return s[:i]
}

// tplPathPrefix is the longest path handlebars-rust's path_inline reads at the start of s:
// ./ or this., @root., @, ../ repeated, then names or [raw] keys joined by . or /.
func tplPathPrefix(s string) string {
	i := 0
	switch {
	case strings.HasPrefix(s, "./"):
		i = 2
	case strings.HasPrefix(s, "this.") || strings.HasPrefix(s, "this/"):
		i = 5
	}
	if strings.HasPrefix(s[i:], "@root.") || strings.HasPrefix(s[i:], "@root/") {
		i += 6
	}
	if strings.HasPrefix(s[i:], "@") {
		i++
	}
	for strings.HasPrefix(s[i:], "../") {
		i += 3
	}
	end := tplPathItem(s, i)
	if end < 0 {
		return ""
	}
	for end < len(s) && (s[end] == '.' || s[end] == '/') {
		next := tplPathItem(s, end+1)
		if next < 0 {
			break
		}
		end = next
	}
	return s[:end]
}

// tplPathItem is the end of the name or [raw] key at s[i:], or -1.
func tplPathItem(s string, i int) int {
	if strings.HasPrefix(s[i:], "[") {
		j := strings.IndexByte(s[i:], ']')
		if j < 0 {
			return -1
		}
		return i + j + 1
	}
	id := tplIdentPrefix(s[i:])
	if id == "" {
		return -1
	}
	return i + len(id)
}

// pathEnd fails as pest does on a path's separator with no name after it.
func (sc *tplExprScanner) pathEnd() error {
	if sc.i < len(sc.s) && (sc.s[sc.i] == '.' || sc.s[sc.i] == '/') {
		sc.i++
		return sc.errAt("path_id")
	}
	return nil
}

func (sc *tplExprScanner) errAt(expected ...string) error {
	if sc.i >= len(sc.s) && sc.tok.unclosed {
		return tplInvalidSyntax(sc.tok.end, expected...)
	}
	return tplInvalidSyntax(sc.base+sc.i, expected...)
}

// tplParseExpr reads a tag's expression. An expression tag is a helper's identifier with
// parameters, or one name (a path or subexpression); a block's name is an identifier.
func tplParseExpr(t *tplToken, s string, base int, mode int, inBlock bool) (*tplExpr, error) {
	sc := &tplExprScanner{s: s, base: base, tok: t}
	sc.skipSpace()
	e := &tplExpr{}
	var afterName []string // what pest expects after the name when it fails there
	switch mode {
	case tplModeBlock:
		afterName = []string{"identifier", "helper_parameter", "block_param", "trailing_tilde_to_omit_whitespace"}
	default:
		afterName = []string{"identifier", "helper_parameter", "trailing_tilde_to_omit_whitespace"}
	}
	if sc.i < len(sc.s) && sc.s[sc.i] == '(' && mode != tplModeBlock {
		p, err := sc.param(afterName)
		if err != nil {
			return nil, err
		}
		e.sub = p.sub
		sc.skipSpace()
		if sc.i < len(sc.s) || t.unclosed {
			return nil, sc.errAt("trailing_tilde_to_omit_whitespace")
		}
		return e, nil
	}
	id := tplIdentPrefix(sc.s[sc.i:])
	path := tplPathPrefix(sc.s[sc.i:])
	if mode == tplModeBlock || mode == tplModeExpr && len(path) <= len(id) {
		if id == "" {
			return nil, sc.errAt(tplStartExpected(t, inBlock)...)
		}
		e.name = id
		sc.i += len(id)
		if mode != tplModeBlock {
			if err := sc.pathEnd(); err != nil {
				return nil, err
			}
		}
		if err := sc.args(e, afterName, mode == tplModeBlock); err != nil {
			return nil, err
		}
		if t.unclosed {
			return nil, sc.errAt(afterName...)
		}
		return e, nil
	}
	if path == "" {
		return nil, sc.errAt(tplStartExpected(t, inBlock)...)
	}
	e.name = path
	sc.i += len(path)
	if err := sc.pathEnd(); err != nil {
		return nil, err
	}
	sc.skipSpace()
	if sc.i < len(sc.s) || t.unclosed {
		return nil, sc.errAt("trailing_tilde_to_omit_whitespace")
	}
	return e, nil
}

// args reads parameters, hash arguments and (for a block) block parameters up to the end or ')'.
func (sc *tplExprScanner) args(e *tplExpr, afterName []string, blockParams bool) error {
	for {
		sc.skipSpace()
		if sc.i >= len(sc.s) || sc.s[sc.i] == ')' {
			return nil
		}
		if blockParams && strings.HasPrefix(sc.s[sc.i:], "as") {
			rest := strings.TrimLeft(sc.s[sc.i+2:], " \t\r\n")
			if strings.HasPrefix(rest, "|") {
				names, tail, ok := strings.Cut(rest[1:], "|")
				if !ok {
					return sc.errAt(afterName...)
				}
				e.blockParams = strings.Fields(names)
				sc.i = len(sc.s) - len(tail)
				continue
			}
		}
		if id := tplIdentPrefix(sc.s[sc.i:]); id != "" {
			j := sc.i + len(id)
			for j < len(sc.s) && strings.IndexByte(" \t\r\n", sc.s[j]) >= 0 {
				j++
			}
			if j < len(sc.s) && sc.s[j] == '=' {
				sc.i = j + 1
				sc.skipSpace()
				v, err := sc.param([]string{"helper_parameter"})
				if err != nil {
					return err
				}
				e.hash = append(e.hash, tplHashArg{key: id, value: v})
				continue
			}
		}
		p, err := sc.param(afterName)
		if err != nil {
			return err
		}
		e.params = append(e.params, p)
	}
}

// param reads a literal, a path or a subexpression; failing, pest expects what is given.
func (sc *tplExprScanner) param(expected []string) (*tplParam, error) {
	if sc.i >= len(sc.s) {
		return nil, sc.errAt(expected...)
	}
	rest := sc.s[sc.i:]
	switch c := rest[0]; c {
	case '{':
		if v, n, ok := tplJSONLiteral(rest); ok {
			sc.i += n
			return &tplParam{lit: v, isLit: true}, nil
		}
		// after "{{" (an unclosed tag running into the next) pest wants the object's string key
		if strings.HasPrefix(rest, "{{") {
			sc.i++
			return nil, sc.errAt("string_literal")
		}
		return nil, sc.errAt(expected...)
	case '[':
		// an array literal, else a path's [raw] key
		if v, n, ok := tplJSONLiteral(rest); ok {
			sc.i += n
			return &tplParam{lit: v, isLit: true}, nil
		}
	case '(':
		sc.i++
		sc.skipSpace()
		e := &tplExpr{}
		id := tplIdentPrefix(sc.s[sc.i:])
		path := tplPathPrefix(sc.s[sc.i:])
		if len(path) > len(id) {
			e.name = path
			sc.i += len(path)
		} else if id != "" {
			e.name = id
			sc.i += len(id)
			if err := sc.args(e, []string{"identifier", "helper_parameter"}, false); err != nil {
				return nil, err
			}
		} else {
			return nil, sc.errAt("identifier", "path_inline")
		}
		sc.skipSpace()
		if sc.i >= len(sc.s) || sc.s[sc.i] != ')' {
			return nil, sc.errAt("identifier", "helper_parameter")
		}
		sc.i++
		return &tplParam{sub: e}, nil
	case '"', '\'':
		str, n, ok := tplQuoted(rest)
		if !ok {
			return nil, sc.errAt(expected...)
		}
		sc.i += n
		return &tplParam{lit: value.Str(str), isLit: true}, nil
	}
	word := tplIdentPrefix(rest)
	if strings.HasPrefix(rest, "-") || rest[0] >= '0' && rest[0] <= '9' {
		// a number literal: digits with a fraction or exponent, not followed by a name's character
		j := len(word)
		for j < len(rest) && (rest[j] == '.' || rest[j] == 'E' || rest[j] == '-' || tplIsSymbolChar(rest[j])) {
			j++
		}
		if n, ok := tplNumber(rest[:j]); ok {
			sc.i += j
			return &tplParam{lit: n, isLit: true}, nil
		}
	}
	switch word {
	case "true", "false":
		sc.i += len(word)
		return &tplParam{lit: value.Bool(word == "true"), isLit: true}, nil
	case "null":
		sc.i += len(word)
		return &tplParam{lit: value.None, isLit: true}, nil
	}
	path := tplPathPrefix(rest)
	if path == "" {
		return nil, sc.errAt(expected...)
	}
	sc.i += len(path)
	if err := sc.pathEnd(); err != nil {
		return nil, err
	}
	if sc.i < len(sc.s) && strings.IndexByte(" \t\r\n)", sc.s[sc.i]) < 0 {
		return nil, sc.errAt(expected...)
	}
	return &tplParam{path: path}, nil
}

// tplJSONLiteral reads handlebars-rust's literal at the start of s: a string, number,
// true, false, null, or an array or object of literals; it returns the bytes read.
func tplJSONLiteral(s string) (value.Value, int, bool) {
	i := 0
	space := func() {
		for i < len(s) && strings.IndexByte(" \t\r\n", s[i]) >= 0 {
			i++
		}
	}
	var lit func() (value.Value, bool)
	lit = func() (value.Value, bool) {
		space()
		if i >= len(s) {
			return nil, false
		}
		switch c := s[i]; {
		case c == '"' || c == '\'':
			str, n, ok := tplQuoted(s[i:])
			if !ok {
				return nil, false
			}
			i += n
			return value.Str(str), true
		case c == '[':
			i++
			var elems []value.Value
			space()
			if i < len(s) && s[i] == ']' {
				i++
				return value.NewList(elems), true
			}
			for {
				v, ok := lit()
				if !ok {
					return nil, false
				}
				elems = append(elems, v)
				space()
				if i < len(s) && s[i] == ',' {
					i++
					continue
				}
				if i < len(s) && s[i] == ']' {
					i++
					return value.NewList(elems), true
				}
				return nil, false
			}
		case c == '{':
			i++
			d := value.NewDict(0)
			space()
			if i < len(s) && s[i] == '}' {
				i++
				return d, true
			}
			for {
				space()
				if i >= len(s) || s[i] != '"' && s[i] != '\'' {
					return nil, false
				}
				k, ok := lit()
				if !ok {
					return nil, false
				}
				space()
				if i >= len(s) || s[i] != ':' {
					return nil, false
				}
				i++
				v, ok := lit()
				if !ok {
					return nil, false
				}
				d.Set(string(k.(value.Str)), v)
				space()
				if i < len(s) && s[i] == ',' {
					i++
					continue
				}
				if i < len(s) && s[i] == '}' {
					i++
					return d, true
				}
				return nil, false
			}
		}
		w := tplIdentPrefix(s[i:])
		j := i + len(w)
		for j < len(s) && (s[j] == '.' || s[j] == 'E' || s[j] == '-' || tplIsSymbolChar(s[j])) {
			j++
		}
		switch w {
		case "true", "false":
			i += len(w)
			return value.Bool(w == "true"), true
		case "null":
			i += len(w)
			return value.None, true
		}
		if n, ok := tplNumber(s[i:j]); ok {
			i = j
			return n, true
		}
		return nil, false
	}
	v, ok := lit()
	return v, i, ok
}

// tplQuoted reads the string literal that s starts with (its quote, ' or ",
// closes it; a backslash escapes the next character): the text and the bytes
// read, or false when the literal is not closed.
func tplQuoted(s string) (string, int, bool) {
	var b strings.Builder
	for j := 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			if j+1 < len(s) {
				j++
				b.WriteByte(tplUnescape(s[j]))
			}
			continue
		case s[0]:
			return b.String(), j + 1, true
		}
		b.WriteByte(s[j])
	}
	return "", 0, false
}

func tplUnescape(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 't':
		return '\t'
	case 'r':
		return '\r'
	}
	return c
}

// tplNumber reads handlebars-rust's number literal: -?digits(.digits)?(E-?digits)?, an integer
// when it has neither fraction nor exponent.
func tplNumber(w string) (value.Value, bool) {
	s := strings.TrimPrefix(w, "-")
	if s == "" || s[0] < '0' || s[0] > '9' {
		return nil, false
	}
	if i, err := strconv.ParseInt(w, 10, 64); err == nil {
		return value.Int(i), true
	}
	if strings.ContainsAny(w, "xXpPe_") || strings.Contains(w, "Inf") || strings.Contains(w, "NaN") {
		return nil, false
	}
	f, err := strconv.ParseFloat(w, 64)
	if err != nil {
		return nil, false
	}
	return value.Float(f), true
}

type tplScope struct {
	ctx         value.Value
	parent      *tplScope
	vars        map[string]value.Value
	blockParams map[string]value.Value
}

// lookup resolves a path; nil means missing. A name that is no index of an array
// fails with handlebars-rust's InvalidJsonIndex at the tag.
func (s *tplScope) lookup(path string, at *tplToken) (value.Value, error) {
	path = strings.TrimSpace(path)
	sc := s
	for strings.HasPrefix(path, "../") {
		path = path[3:]
		if sc.parent != nil {
			sc = sc.parent
		}
	}
	var cur value.Value
	switch {
	case strings.HasPrefix(path, "@root.") || strings.HasPrefix(path, "@root/"):
		for sc.parent != nil {
			sc = sc.parent
		}
		cur, path = sc.ctx, path[len("@root/"):]
	case strings.HasPrefix(path, "@"):
		// A block's local variables are its own: @index inside a with in an each is
		// missing, @../index is the each's.
		name := path[1:]
		for strings.HasPrefix(name, "../") {
			name = name[3:]
			if sc.parent != nil {
				sc = sc.parent
			}
		}
		return sc.vars["@"+name], nil
	case path == "this" || path == ".":
		return sc.ctx, nil
	default:
		path = strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(path, "this."), "this/"), "./")
		cur = sc.ctx
		first, _, _ := strings.Cut(path, ".")
		for x := sc; x != nil; x = x.parent {
			if v, ok := x.blockParams[first]; ok {
				cur, path = v, strings.TrimPrefix(path[len(first):], ".")
				if path == "" {
					return cur, nil
				}
				break
			}
		}
	}
	for _, part := range tplSegments(path) {
		switch c := cur.(type) {
		case *value.Dict:
			v, ok := c.Get(part)
			if !ok {
				return nil, nil
			}
			cur = v
		case *value.Schema:
			v, ok := c.Config.Get(part)
			if !ok {
				return nil, nil
			}
			cur = v
		case *value.List:
			// Rust's usize::from_str: digits, one leading '+' allowed
			i, err := strconv.ParseUint(strings.TrimPrefix(part, "+"), 10, 64)
			if err != nil || strings.HasPrefix(part, "+-") || strings.HasPrefix(part, "++") {
				return nil, tplRenderErr(at, fmt.Sprintf("InvalidJsonIndex(%q)", part))
			}
			if i >= uint64(len(c.Elems)) {
				return nil, nil
			}
			cur = c.Elems[i]
		default:
			return nil, nil
		}
	}
	return cur, nil
}

// tplSegments splits a path at '.' and '/', a '[…]' segment taken whole.
func tplSegments(path string) []string {
	var parts []string
	for path != "" {
		if path[0] == '[' {
			if j := strings.IndexByte(path, ']'); j >= 0 {
				parts = append(parts, path[1:j])
				path = strings.TrimLeft(path[j+1:], "./")
				continue
			}
		}
		i := strings.IndexAny(path, "./")
		if i < 0 {
			parts = append(parts, path)
			break
		}
		parts = append(parts, path[:i])
		path = path[i+1:]
	}
	return parts
}

// tplRender renders a value as handlebars-rust's JsonRender does.
func tplRender(v value.Value) string {
	switch x := v.(type) {
	case nil, value.NoneType, value.UndefinedType:
		return ""
	case value.Str:
		return string(x)
	case value.Bool:
		if x {
			return "true"
		}
		return "false"
	case value.Int, value.Float, value.Unit:
		return value.CompactJSON(x)
	case *value.List:
		parts := make([]string, 0, len(x.Elems))
		for _, e := range x.Elems {
			if value.IsUndefined(e) {
				continue
			}
			parts = append(parts, tplRender(e))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case *value.Dict, *value.Schema:
		return "[object]"
	}
	return ""
}

// HTMLEscape escapes like handlebars' html_escape.
func HTMLEscape(s string) string {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#x27;", "`", "&#x60;", "=", "&#x3D;")
	return r.Replace(s)
}

// tplRenderErr is handlebars-rust's RenderError at the tag's line and column.
func tplRenderErr(t *tplToken, reason string) error {
	return evalErr("render template failed: RenderError { template_name: Some(\"template\"), line_no: Some(%d), column_no: Some(%d), reason: %s, unimplemented: false }", t.line, t.col, reason)
}

// tplValueHelpers are handlebars-rust's helpers that compute a value; the names
// are their parameters, as handlebars_helper! reports them missing.
var tplValueHelpers = map[string][]string{
	"eq": {"x", "y"}, "ne": {"x", "y"}, "gt": {"x", "y"}, "gte": {"x", "y"}, "lt": {"x", "y"}, "lte": {"x", "y"},
	"and": {"x", "y"}, "or": {"x", "y"}, "not": {"x"}, "len": {"x"}, "lookup": nil,
}

// tplEvalParam evaluates a parameter; nil is a missing value.
func tplEvalParam(p *tplParam, sc *tplScope, at *tplToken) (value.Value, error) {
	switch {
	case p.isLit:
		return p.lit, nil
	case p.sub != nil:
		return tplEvalSub(p.sub, sc, at)
	}
	return sc.lookup(p.path, at)
}

// tplEvalSub evaluates a subexpression: a helper's value, or a path's.
func tplEvalSub(e *tplExpr, sc *tplScope, at *tplToken) (value.Value, error) {
	if e.sub != nil {
		return tplEvalSub(e.sub, sc, at)
	}
	params, err := tplEvalParams(e, sc, at)
	if err != nil {
		return nil, err
	}
	if _, ok := tplValueHelpers[e.name]; ok {
		return tplCallValueHelper(e.name, params, at)
	}
	if tplHelpers[e.name] {
		if err := tplCheckBlockParam(e.name, params, at); err != nil {
			return nil, err
		}
		return nil, nil
	}
	if len(e.params) > 0 || len(e.hash) > 0 {
		return nil, helperNotFound(at, e.name)
	}
	return sc.lookup(e.name, at)
}

// tplEvalParams evaluates the parameters, then the hash, as handlebars-rust does before calling a helper.
func tplEvalParams(e *tplExpr, sc *tplScope, at *tplToken) ([]value.Value, error) {
	params := make([]value.Value, len(e.params))
	for i, p := range e.params {
		v, err := tplEvalParam(p, sc, at)
		if err != nil {
			return nil, err
		}
		params[i] = v
	}
	for _, h := range e.hash {
		if _, err := tplEvalParam(h.value, sc, at); err != nil {
			return nil, err
		}
	}
	return params, nil
}

// tplCheckBlockParam checks the parameter if, unless, each and with need (unless is if's negation).
func tplCheckBlockParam(name string, params []value.Value, at *tplToken) error {
	switch name {
	case "if", "unless", "each", "with":
		if len(params) == 0 {
			if name == "unless" {
				name = "if"
			}
			return tplRenderErr(at, fmt.Sprintf("ParamNotFoundForIndex(%q, 0)", name))
		}
	}
	return nil
}

// tplCallValueHelper computes a built-in helper of handlebars-rust: the comparisons take
// i64 (gt, gte, lt, lte) or any JSON (eq, ne), and, or and not JSON truthiness, len the
// length of an array, object or string (in bytes), lookup an array's index or an object's key.
func tplCallValueHelper(name string, params []value.Value, at *tplToken) (value.Value, error) {
	if name == "lookup" {
		if len(params) < 2 {
			return nil, tplRenderErr(at, fmt.Sprintf("ParamNotFoundForIndex(\"lookup\", %d)", len(params)))
		}
		switch c := params[0].(type) {
		case *value.List:
			if i, ok := params[1].(value.Int); ok && i >= 0 && int(i) < len(c.Elems) {
				return c.Elems[i], nil
			}
		case *value.Dict, *value.Schema:
			d, _ := value.AsDict(c)
			if k, ok := params[1].(value.Str); ok {
				if v, ok := d.Get(string(k)); ok {
					return v, nil
				}
			}
		}
		return nil, nil
	}
	names := tplValueHelpers[name]
	ints := make([]int64, len(names))
	for i, pn := range names {
		if i >= len(params) {
			return nil, tplRenderErr(at, fmt.Sprintf("ParamNotFoundForName(%q, %q)", name, pn))
		}
		switch name {
		case "gt", "gte", "lt", "lte":
			n, ok := params[i].(value.Int)
			if !ok {
				return nil, tplRenderErr(at, fmt.Sprintf("ParamTypeMismatchForName(%q, %q, \"i64\")", name, pn))
			}
			ints[i] = int64(n)
		}
	}
	switch name {
	case "eq", "ne":
		eq := tplJSON(params[0]) == tplJSON(params[1])
		return value.Bool(eq == (name == "eq")), nil
	case "gt":
		return value.Bool(ints[0] > ints[1]), nil
	case "gte":
		return value.Bool(ints[0] >= ints[1]), nil
	case "lt":
		return value.Bool(ints[0] < ints[1]), nil
	case "lte":
		return value.Bool(ints[0] <= ints[1]), nil
	case "and":
		return value.Bool(tplTruthy(params[0], false) && tplTruthy(params[1], false)), nil
	case "or":
		return value.Bool(tplTruthy(params[0], false) || tplTruthy(params[1], false)), nil
	case "not":
		return value.Bool(!tplTruthy(params[0], false)), nil
	case "len":
		switch x := params[0].(type) {
		case *value.List:
			return value.Int(len(x.Elems)), nil
		case *value.Dict, *value.Schema:
			return value.Int(len(tplSortedEntries(x))), nil
		case value.Str:
			return value.Int(len(x)), nil
		}
		return value.Int(0), nil
	}
	return nil, nil
}

// tplJSON is a value as the JSON handlebars-rust compares: keys sorted, a missing value null.
func tplJSON(v value.Value) string {
	if v == nil {
		return "null"
	}
	return value.EncodeJSON(v, value.JSONOptions{SortKeys: true})
}

// tplTruthy is handlebars-rust's JsonTruthy: zero is false unless includeZero, empty strings,
// arrays and objects are false.
func tplTruthy(v value.Value, includeZero bool) bool {
	switch x := v.(type) {
	case nil, value.NoneType, value.UndefinedType:
		return false
	case value.Int, value.Float, value.Unit:
		return includeZero || x.Truth()
	case *value.Schema:
		return len(tplSortedEntries(x)) > 0
	}
	return v.Truth()
}

// tplSortedEntries is a dict's or schema's entries as the JSON
// handlebars-rust iterates (serde_json's sorted map).
func tplSortedEntries(v value.Value) []value.Entry {
	d, _ := value.AsDict(v)
	var entries []value.Entry
	for _, en := range d.Entries() {
		// an optional attribute never set is no key of the JSON
		if !value.IsUndefined(en.Value) {
			entries = append(entries, en)
		}
	}
	slices.SortStableFunc(entries, func(a, b value.Entry) int { return strings.Compare(a.Key, b.Key) })
	return entries
}

func tplExec(b *strings.Builder, nodes []*tplNode, sc *tplScope) error {
	for _, n := range nodes {
		var err error
		switch {
		case n.partial && n.block:
			err = tplExec(b, n.body, sc)
		case n.partial:
			err = tplRenderErr(n.pos, fmt.Sprintf("PartialNotFound(%q)", n.expr.name))
		case n.block:
			err = tplExecBlock(b, n, sc)
		case n.expr != nil:
			err = tplExecExpr(b, n, sc)
		default:
			b.WriteString(n.text)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func tplExecExpr(b *strings.Builder, n *tplNode, sc *tplScope) error {
	e := n.expr
	var v value.Value
	switch {
	case e.sub != nil:
		x, err := tplEvalSub(e.sub, sc, n.pos)
		if err != nil {
			return err
		}
		v = x
	case tplHelpers[e.name]:
		// A helper's name wins over the data's key of that name.
		x, err := tplEvalSub(e, sc, n.pos)
		if err != nil {
			return err
		}
		v = x
	case len(e.params) > 0 || len(e.hash) > 0:
		if !strings.ContainsAny(e.name, "./") {
			return helperNotFound(n.pos, e.name)
		}
		fallthrough
	default:
		x, err := sc.lookup(e.name, n.pos)
		if err != nil {
			return err
		}
		v = x
	}
	s := tplRender(v)
	if !n.raw {
		s = HTMLEscape(s)
	}
	b.WriteString(s)
	return nil
}

func tplExecBlock(b *strings.Builder, n *tplNode, sc *tplScope) error {
	e := n.expr
	if !tplHelpers[e.name] {
		return helperNotFound(n.pos, e.name)
	}
	params, err := tplEvalParams(e, sc, n.pos)
	if err != nil {
		return err
	}
	if _, ok := tplValueHelpers[e.name]; ok {
		// A value helper called as a block prints its value; its body is not rendered.
		v, err := tplCallValueHelper(e.name, params, n.pos)
		if err != nil {
			return err
		}
		b.WriteString(HTMLEscape(tplRender(v)))
		return nil
	}
	if err := tplCheckBlockParam(e.name, params, n.pos); err != nil {
		return err
	}
	switch e.name {
	case "raw":
		return tplExec(b, n.body, sc)
	case "log":
		return nil
	case "if", "unless":
		includeZero := false
		for _, h := range e.hash {
			if h.key == "includeZero" {
				v, _ := tplEvalParam(h.value, sc, n.pos)
				includeZero = tplTruthy(v, false)
			}
		}
		cond := tplTruthy(params[0], includeZero)
		if e.name == "unless" {
			cond = !cond
		}
		if cond {
			return tplExec(b, n.body, sc)
		}
		return tplExec(b, n.inverse, sc)
	case "with":
		v := params[0]
		if !tplTruthy(v, false) {
			return tplExec(b, n.inverse, sc)
		}
		inner := &tplScope{ctx: v, parent: sc}
		if len(e.blockParams) > 0 {
			inner.blockParams = map[string]value.Value{e.blockParams[0]: v}
		}
		return tplExec(b, n.body, inner)
	case "each":
		any := false
		bind := func(inner *tplScope, item, index value.Value) {
			if len(e.blockParams) > 0 {
				inner.blockParams = map[string]value.Value{e.blockParams[0]: item}
				if len(e.blockParams) > 1 {
					inner.blockParams[e.blockParams[1]] = index
				}
			}
		}
		switch c := params[0].(type) {
		case *value.List:
			for i, el := range c.Elems {
				any = true
				inner := &tplScope{ctx: el, parent: sc, vars: map[string]value.Value{"@index": value.Int(i), "@first": value.Bool(i == 0), "@last": value.Bool(i == len(c.Elems)-1)}}
				bind(inner, el, value.Int(i))
				if err := tplExec(b, n.body, inner); err != nil {
					return err
				}
			}
		case *value.Dict, *value.Schema:
			entries := tplSortedEntries(c)
			for i, en := range entries {
				any = true
				// handlebars-rust gives an object's entries @key, @first and @last, no @index.
				inner := &tplScope{ctx: en.Value, parent: sc, vars: map[string]value.Value{"@key": value.Str(en.Key), "@first": value.Bool(i == 0), "@last": value.Bool(i == len(entries)-1)}}
				bind(inner, en.Value, value.Str(en.Key))
				if err := tplExec(b, n.body, inner); err != nil {
					return err
				}
			}
		}
		if !any {
			return tplExec(b, n.inverse, sc)
		}
	}
	return nil
}

// ExecuteTemplate renders a Handlebars template against data.
func ExecuteTemplate(tmpl string, data value.Value) (string, error) {
	toks, err := tplLex(tmpl)
	var syntaxErr *tplSyntaxError
	if errors.As(err, &syntaxErr) {
		return "", tplTemplateError(tmpl, syntaxErr)
	}
	if err != nil {
		return "", err
	}
	applyWhitespaceRules(toks)
	nodes, err := tplParse(toks, len(tmpl))
	if errors.As(err, &syntaxErr) {
		return "", tplTemplateError(tmpl, syntaxErr)
	}
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := tplExec(&b, nodes, &tplScope{ctx: data}); err != nil {
		return "", err
	}
	return b.String(), nil
}

func init() {
	m := newModule("template")
	def(m, "execute", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		tmpl, ok := strArg(args, kwargs, 0, "template")
		if !ok {
			return nil, evalErr("execute() takes exactly one argument (0 given)")
		}
		data, ok := arg(args, kwargs, 1, "data")
		if !ok {
			data = value.NewDict(0)
		}
		if _, isDict := value.AsDict(data); !isDict {
			// 0.12.1 takes the data as a dict: None, a list or a scalar given fails
			return nil, evalErr("invalid dict value")
		}
		s, err := ExecuteTemplate(tmpl, data)
		if err != nil {
			return nil, err
		}
		return value.Str(s), nil
	})
	def(m, "html_escape", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		s, ok := strArg(args, kwargs, 0, "data")
		if !ok {
			return nil, evalErr("html_escape() takes exactly one argument (0 given)")
		}
		return value.Str(HTMLEscape(s)), nil
	})
}
