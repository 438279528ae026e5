package syntax

import "testing"

// literalValue parses `x = <lit>` and returns the string value the evaluator sees.
func literalValue(t *testing.T, lit string) string {
	t.Helper()
	m, err := ParseFile("main.k", []byte("x = "+lit+"\n"))
	if err != nil {
		t.Fatalf("%s: %v", lit, err)
	}
	switch v := m.Body[0].(*AssignStmt).Value.(type) {
	case *StringLit:
		return v.Value
	case *JoinedString:
		out := ""
		for _, part := range v.Values {
			s, ok := part.(*StringLit)
			if !ok {
				t.Fatalf("%s: interpolated", lit)
			}
			out += s.Value
		}
		return out
	}
	t.Fatalf("%s: not a string", lit)
	return ""
}

func TestQuoteString(t *testing.T) {
	for _, s := range []string{
		"ghcr.io/org/app:v1.2.3@sha256:abc", "", `a"b\c`, "tab\there\nnew", "é ☃", "${x}", `\${x}`, "a${b}c${d}", "\x01\x7f",
	} {
		q, err := QuoteString(s)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if got := literalValue(t, q); got != s {
			t.Errorf("QuoteString(%q) = %s, which reads back as %q", s, q, got)
		}
	}
	if _, err := QuoteString("a${b"); err == nil {
		t.Error("unclosed ${ accepted")
	}
}

func FuzzQuoteString(f *testing.F) {
	f.Add("ghcr.io/org/app:v1")
	f.Add("${a}\\\"")
	f.Fuzz(func(t *testing.T, s string) {
		q, err := QuoteString(s)
		if err != nil {
			return
		}
		m, perr := ParseFile("main.k", []byte("x = "+q+"\n"))
		if perr != nil {
			t.Fatalf("%q quoted as %s: %v", s, q, perr)
		}
		var got string
		switch v := m.Body[0].(*AssignStmt).Value.(type) {
		case *StringLit:
			got = v.Value
		case *JoinedString:
			for _, part := range v.Values {
				lit, ok := part.(*StringLit)
				if !ok {
					t.Fatalf("%q quoted as %s is interpolated", s, q)
				}
				got += lit.Value
			}
		}
		if got != s {
			t.Fatalf("%q quoted as %s reads back as %q", s, q, got)
		}
	})
}
