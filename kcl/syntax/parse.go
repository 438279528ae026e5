package syntax

import "unicode/utf8"

// ParseFile parses one KCL file. On failure the error is the first *Error; the
// returned module is still usable for tooling (it holds what was parsed).
func ParseFile(filename string, src []byte) (*Module, error) {
	m, errs := ParseFileAll(filename, src)
	if len(errs) > 0 {
		first := *errs[0]
		first.Rest = errs[1:]
		return m, &first
	}
	return m, nil
}

// ParseFileAll parses one file and returns every syntax error in the order the
// official parser reports them. A repeat is kept: `kcl run` prints its
// session's list of diagnostics, where each report is an entry (only the
// add-on's leading copy of the parse errors is a set).
func ParseFileAll(filename string, src []byte) (*Module, ErrorList) {
	p := newParser(filename, src)
	m := p.parseModule()
	p.releaseTokens()
	clampErrorColumns(src, p.errors)
	return m, p.errors
}

// dedupErrors drops repeats of an error at the same place with the same message,
// for the callers that report a set.
func dedupErrors(errs ErrorList) ErrorList {
	if len(errs) < 2 {
		return errs
	}
	type key struct {
		line, col int
		msg       string
	}
	seen := make(map[key]bool, len(errs))
	out := errs[:0]
	for _, e := range errs {
		k := key{e.Pos.Line, e.Pos.Col, e.Msg}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, e)
	}
	return out
}

// clampErrorColumns mirrors how the official engine prints a position at the end
// of a line (a NEWLINE or EOF token): the column is the line's length, not one past it.
// On an empty line that is column 0, which the official renderer prints as a
// diagnostic without position, source line or message ("--> file:1:1"); the
// error keeps its line and message here, and Col 0 marks it.
func clampErrorColumns(src []byte, errs ErrorList) {
	if len(errs) == 0 {
		return
	}
	lineLen := map[int]int{}
	lengths := func(line int) int {
		if n, ok := lineLen[line]; ok {
			return n
		}
		start, l := 0, 1
		for ; l < line && start < len(src); start++ {
			if src[start] == '\n' {
				l++
			}
		}
		end := start
		for end < len(src) && src[end] != '\n' {
			end++
		}
		lineLen[line] = utf8.RuneCount(src[start:end])
		return lineLen[line]
	}
	for _, e := range errs {
		if e.Pos.Line <= 0 {
			continue
		}
		if n := lengths(e.Pos.Line); e.Pos.Col > n {
			e.Pos.Col = n
			e.EndOfLine = n > 0
		}
	}
}

// ParseExpr parses a single expression, such as the value of an -O override or
// a -D argument; anything after it is an error.
func ParseExpr(filename string, src []byte) (expr Expr, err error) {
	p := newParser(filename, src)
	func() {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(bailout); !ok {
					panic(r)
				}
			}
		}()
		p.skipNewlines()
		expr = p.parseExpr()
		p.skipNewlines()
		if p.tok.Kind != EOF {
			p.errorAt(p.tok.Pos(p.file), "unexpected token '"+tokenString(p.tok)+"'")
		}
	}()
	p.releaseTokens()
	p.errors = dedupErrors(p.errors)
	clampErrorColumns(src, p.errors)
	if len(p.errors) > 0 {
		first := *p.errors[0]
		first.Rest = p.errors[1:]
		return expr, &first
	}
	return expr, nil
}
