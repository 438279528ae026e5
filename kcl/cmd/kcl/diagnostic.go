package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/width"

	"github.com/kcl-lang/flux-kcl-controller/kcl"
	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
)

// renderDiagnostic prints an error like the official CLI: header, location,
// the source line and the message under a caret.
func renderDiagnostic(e *kcl.Error, workDir string) string {
	return renderDiagnosticOnce(e, workDir, map[string]bool{})
}

// renderDiagnosticOnce is renderDiagnostic of e and the errors it carries.
// The official diagnostics are a set and each suggestion is a diagnostic of
// its own: a suggestion printed once (the artifacthub line of a second missing
// package) is not printed again.
func renderDiagnosticOnce(e *kcl.Error, workDir string, seen map[string]bool) string {
	// The official CLI prints every run-time error as an EvaluationError.
	code, kind := errkind.Code(e.Kind), errkind.Printed(e.Kind)
	var b strings.Builder
	if e.Kind == errkind.Plain {
		return fmt.Sprintf("error[%s]: %s\n", errkind.RuntimeCode, e.Message)
	}
	if e.Kind == errkind.RecursiveLoad && e.File == "" {
		// The loader's cyclic-import error reaches the official CLI as a
		// run-time error's text, under both headers.
		code, kind = errkind.RuntimeCode, "error[E1001]: "+errkind.RecursiveLoad
	}
	fmt.Fprintf(&b, "error[%s]: %s\n", code, kind)
	if e.File == "" || e.Line <= 0 {
		b.WriteString(e.Message)
		b.WriteString("\n")
		writeLabels(&b, workDir, e)
		for _, a := range e.Also {
			b.WriteString(renderDiagnosticOnce(a, workDir, seen))
		}
		return b.String()
	}
	col := e.Col
	if col == 0 && errkind.IsSyntax(e.Kind) {
		// A syntax error at the end of an empty line has column 0, which the
		// official renderer prints without position, source or message.
		path := e.File
		if !filepath.IsAbs(path) {
			path = filepath.Join(workDir, path)
		}
		fmt.Fprintf(&b, "--> %s:1:1\n |\n |\n", path)
	} else {
		if col == 1 && errkind.IsSyntax(e.Kind) && !e.EndOfLine {
			// The official parser's diagnostics draw no caret at column 1,
			// where they know no column.
			col = 0
		}
		writeSnippet(&b, workDir, e.File, e.Line, col, e.Message)
	}
	writeLabels(&b, workDir, e)
	for _, s := range e.Suggestions {
		if !seen["suggestion: "+s] {
			seen["suggestion: "+s] = true
			fmt.Fprintf(&b, "suggestion: %s\n", s)
		}
	}
	for _, a := range e.Also {
		next := renderDiagnosticOnce(a, workDir, seen)
		if next == "" {
			continue
		}
		// The official CLI leaves two blank lines between diagnostics.
		b.WriteString("\n\n")
		b.WriteString(next)
	}
	return b.String()
}

// writeLabels prints e's further locations and its note. A label with no
// position (a declaration an -O spec added) is its message alone, as the
// official CLI prints a message without a range.
func writeLabels(b *strings.Builder, workDir string, e *kcl.Error) {
	for _, l := range e.Labels {
		if l.File == "" || l.Line <= 0 {
			b.WriteString(l.Message + "\n")
			continue
		}
		writeSnippet(b, workDir, l.File, l.Line, l.Col, l.Message)
	}
	if e.Note != "" {
		fmt.Fprintf(b, "note: %s\n", e.Note)
	}
}

func sourceLine(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(string(data), "\n")
	if n-1 < len(lines) {
		return strings.TrimRight(lines[n-1], "\r")
	}
	return ""
}

// writeSnippet prints one located message: the location, the source line and
// the message under a caret (or without one when the column is unknown).
func writeSnippet(b *strings.Builder, workDir, file string, line, col int, msg string) {
	path := file
	if !filepath.IsAbs(path) {
		path = filepath.Join(workDir, path)
	}
	shown := col
	if shown <= 0 {
		shown = 1
	}
	num := strconv.Itoa(line)
	pad := strings.Repeat(" ", len(num))
	src := sourceLine(path, line)
	fmt.Fprintf(b, "%s--> %s:%d:%d\n", pad, path, line, shown)
	fmt.Fprintf(b, "%s |\n", pad)
	fmt.Fprintf(b, "%s | %s\n", num, src)
	switch {
	case col > 0:
		fmt.Fprintf(b, "%s | %s^ %s\n", pad, strings.Repeat(" ", caretOffset(src, col)), msg)
	case msg == "":
		fmt.Fprintf(b, "%s | \n", pad)
	default:
		fmt.Fprintf(b, "%s |  %s\n", pad, msg)
	}
	fmt.Fprintf(b, "%s |\n", pad)
}

// caretOffset is how far the official renderer (annotate-snippets) indents the
// caret of 1-based column col: the display width of the characters before it,
// a wide East Asian character counting 2 and a tab or other control or
// combining character 0; past the end of the line, one per column.
func caretOffset(src string, col int) int {
	n, off := 0, 0
	for _, r := range src {
		if n == col-1 {
			return off
		}
		n++
		off += runeWidth(r)
	}
	return off + col - 1 - n
}

func runeWidth(r rune) int {
	switch {
	case r < 0x20 || (r >= 0x7f && r < 0xa0):
		return 0
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		return 0
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}
