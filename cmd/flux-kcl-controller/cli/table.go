package cli

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// printTable writes rows as flux's table printer does: left-aligned columns padded to the
// widest cell, separated by a tab, upper-case headers, no borders.
func printTable(w io.Writer, header []string, rows [][]string) {
	all := rows
	if len(header) > 0 {
		all = append([][]string{header}, rows...)
	}
	var widths []int
	for _, r := range all {
		for i, cell := range r {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	for _, r := range all {
		var b strings.Builder
		for i, cell := range r {
			if i > 0 {
				b.WriteByte('\t')
			}
			b.WriteString(cell)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell)))
			}
		}
		fmt.Fprintln(w, b.String())
	}
}
