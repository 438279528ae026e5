package syntax

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Render prints the error, and those in Rest, the way the official engine
// prints syntax errors (the blocks of `kcl run`'s stderr), with path shown in
// the location line and src the file's content:
//
//	error[E1001]: InvalidSyntax
//	 --> path:3:5
//	  |
//	3 |     [str]: int
//	  |     ^ duplicate schema index signature definitions, only one is allowed in the schema
//	  |
//
// Its caret rules are those of the official parse diagnostics: no caret at
// column 1 (but at the end of a line), and tabs before the column take no width.
func (e *Error) Render(src []byte, path string) string {
	var b strings.Builder
	for i, x := range append(ErrorList{e}, e.Rest...) {
		if i > 0 {
			b.WriteByte('\n')
		}
		renderOne(&b, x, src, path)
	}
	return b.String()
}

func renderOne(b *strings.Builder, e *Error, src []byte, path string) {
	if e.Pos.Col == 0 {
		// The end of an empty line: the official renderer drops the position,
		// the source line and the message.
		b.WriteString("error[" + e.Code() + "]: " + e.Kind + "\n--> " + path + ":1:1\n |\n |")
		return
	}
	num := strconv.Itoa(e.Pos.Line)
	pad := strings.Repeat(" ", len(num))
	b.WriteString("error[" + e.Code() + "]: " + e.Kind + "\n")
	b.WriteString(pad + "--> " + path + ":" + num + ":" + strconv.Itoa(e.Pos.Col) + "\n")
	b.WriteString(pad + " |\n")
	line := sourceLine(src, e.Pos.Line)
	b.WriteString(num + " | " + line + "\n")
	b.WriteString(pad + " | ")
	if e.Pos.Col > 1 || e.EndOfLine {
		width := 0
		for i, r := range line {
			if utf8.RuneCountInString(line[:i]) >= e.Pos.Col-1 {
				break
			}
			if r != '\t' {
				width++
			}
		}
		b.WriteString(strings.Repeat(" ", width) + "^")
	}
	b.WriteString(" " + e.Msg + "\n")
	b.WriteString(pad + " |")
}

// sourceLine returns line n (1-based) of src without its line break.
func sourceLine(src []byte, n int) string {
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(src, '\n')
		if j < 0 {
			return ""
		}
		src = src[j+1:]
	}
	if j := bytes.IndexByte(src, '\n'); j >= 0 {
		src = src[:j]
	}
	return strings.TrimSuffix(string(src), "\r")
}
