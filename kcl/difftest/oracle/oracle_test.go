package oracle

import (
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
)

// The kind, location and message are read from execProgram's rendering, with
// and without the "error[code]: " prefixes and ANSI colours.
func TestParseError(t *testing.T) {
	for _, c := range []struct {
		text string
		want Diagnostic
	}{
		{"\nerror[E2L23]: CompileError\n \x1b[1;38;5;12m-->\x1b[0m /tmp/m.k:2:5\n\x1b[1;38;5;12m  |\x1b[0m\n\x1b[1;38;5;12m2 |\x1b[0m b = c\n\x1b[1;38;5;12m  |\x1b[0m\x1b[1;38;5;9m     ^\x1b[0m \x1b[1;38;5;9mname 'c' is not defined\x1b[0m\n\x1b[1;38;5;12m  |\x1b[0m\n\n",
			Diagnostic{Kind: "CompileError", File: "/tmp/m.k", Line: 2, Col: 5, Message: "name 'c' is not defined"}},
		{"EvaluationError\n --> /tmp/m.k:2:1\n  |\n2 | assert False, \"boom\"\n  |  boom\n  |\n\n",
			Diagnostic{Kind: errkind.Evaluation, File: "/tmp/m.k", Line: 2, Col: 1, Message: "boom"}},
		{"error[E3M38]: error[E1001]: InvalidSyntax\n --> /tmp/m.k:2:5\n  |\n2 | b = [\n  |     ^ expected one of [\"]\"] got eof\n  |\n",
			Diagnostic{Kind: "InvalidSyntax", File: "/tmp/m.k", Line: 2, Col: 5, Message: `expected one of ["]"] got eof`}},
		{"thread panicked", Diagnostic{Message: "thread panicked"}},
	} {
		if got := ParseError(c.text); got != c.want {
			t.Errorf("ParseError(%q) = %+v, want %+v", c.text, got, c.want)
		}
	}
}
