package syntax

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func kinds(toks []Token) string {
	var parts []string
	for _, t := range toks {
		switch t.Kind {
		case IDENT, INT, FLOAT, STRING, COMMENT:
			parts = append(parts, t.Text)
		default:
			parts = append(parts, t.Kind.String())
		}
	}
	return strings.Join(parts, " ")
}

func TestScanShapes(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"a = 1", "a = 1 newline eof"},
		{"a = 1\n", "a = 1 newline eof"},
		{"if a:\n    b = 1\n\n    # c\n    d\n", "if a : newline indent b = 1 newline newline # c newline d newline dedent eof"},
		{"a = {\n    b: 1\n}\n", "a = { newline indent b : 1 newline dedent } newline eof"},
		{"a = 1 + \\\n  2\n", "a = 1 + 2 newline eof"},
		{"  a = 1\n", "a = 1 newline eof"},
		{"x = a->b", "x = a -> b newline eof"},
		{"x **= 2 // 3 >>= ...", "x **= 2 // 3 >>= ... newline eof"},
		{"x = $schema.a?.b?[0]", "x = $schema . a ? . b ? [ 0 ] newline eof"},
		{"s = r'a\\'b' + '''x\ny'''", "s = r'a\\'b' + '''x\ny''' newline eof"},
		{"n = 1Gi + 1.5 + 1e3 + 0x_ff", "n = 1Gi + 1.5 + 1e3 + 0x_ff newline eof"},
	} {
		toks, err := Scan("main.k", []byte(tc.src))
		if err != nil {
			t.Errorf("%q: %v", tc.src, err)
		}
		if got := kinds(toks); got != tc.want {
			t.Errorf("%q\n got  %s\n want %s", tc.src, got, tc.want)
		}
	}
}

func TestScanOffsetsAndValues(t *testing.T) {
	src := "a = \"é\\n${x}\" # note\nb = 'it\\'s'\nc = 2Ki\nd = $if\n"
	toks, err := Scan("main.k", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range toks {
		if src[tok.Start:tok.End] != tok.Text {
			t.Errorf("%v: text %q != src %q", tok.Kind, tok.Text, src[tok.Start:tok.End])
		}
	}
	s := toks[2]
	if s.Kind != STRING || s.Value != "é\n${x}" || s.Line != 1 || s.Col != 5 || s.EndCol != 14 || s.Quote != '"' {
		t.Errorf("string token %+v", s)
	}
	c, ok := TrailingComment(toks, 2)
	if !ok || c.Text != "# note" || c.Col != 15 {
		t.Errorf("trailing comment %+v %v", c, ok)
	}
	if toks[7].Value != "it's" {
		t.Errorf("escaped quote %q", toks[7].Value)
	}
	if toks[11].Value != "2" || toks[11].Suffix != "Ki" {
		t.Errorf("unit %+v", toks[11])
	}
	if toks[15].Value != "if" || !toks[15].Escaped || toks[15].Keyword() != "" {
		t.Errorf("escaped ident %+v", toks[15])
	}
}

// ExampleScan shows how the image-policy resolver finds a marker comment after
// a string literal and rewrites only the literal's bytes.
func ExampleScan() {
	src := []byte("app = {\n    image = \"ghcr.io/org/app:v1.0.0\" # {\"$imagepolicy\": \"flux-system:app\"}\n}\n")
	toks, _ := Scan("main.k", src)
	for i, t := range toks {
		if t.Kind != STRING {
			continue
		}
		c, ok := TrailingComment(toks, i)
		if !ok {
			continue
		}
		var marker map[string]string
		if json.Unmarshal([]byte(strings.TrimPrefix(c.Text, "#")), &marker) != nil || marker["$imagepolicy"] == "" {
			continue
		}
		out := string(src[:t.Start]) + `"ghcr.io/org/app:v1.1.0"` + string(src[t.End:])
		fmt.Printf("%s at %d:%d\n%s", marker["$imagepolicy"], t.Line, t.Col, out)
	}
	// Output:
	// flux-system:app at 2:13
	// app = {
	//     image = "ghcr.io/org/app:v1.1.0" # {"$imagepolicy": "flux-system:app"}
	// }
}

func TestRender(t *testing.T) {
	src := []byte("schema A:\n\ta: int\n    b: str\nx = )\n")
	_, err := ParseFile("main.k", src)
	got := err.(*Error).Render(src, "/w/main.k")
	want := "error[E1001]: InvalidSyntax\n --> /w/main.k:3:5\n  |\n3 |     b: str\n  |     ^ inconsistent use of tabs and spaces in indentation\n  |\n" +
		"error[E1001]: InvalidSyntax\n --> /w/main.k:4:5\n  |\n4 | x = )\n  |     ^ error nesting on close paren\n  |"
	if !strings.HasPrefix(got, want) {
		t.Errorf("got\n%s\nwant prefix\n%s", got, want)
	}
	src = []byte(")\n\tx = )\n")
	_, err = ParseFile("main.k", src)
	got = err.(*Error).Render(src, "m.k")
	want = "error[E1001]: InvalidSyntax\n --> m.k:1:1\n  |\n1 | )\n  |  error nesting on close paren\n  |\n" +
		"error[E1001]: InvalidSyntax\n --> m.k:2:6\n  |\n2 | \tx = )\n  |     ^ error nesting on close paren\n  |"
	if !strings.HasPrefix(got, want) {
		t.Errorf("got\n%s\nwant prefix\n%s", got, want)
	}
}
