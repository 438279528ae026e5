package syntax

import (
	"testing"
	"unicode/utf8"
)

var fuzzSeeds = []string{
	"a = 1\n",
	"schema A[x: int](B):\n    \"\"\"doc\"\"\"\n    mixin [M]\n    a?: str = \"x\"\n    [k: str]: int\n    check:\n        a, \"m\"\n",
	"a = {\n    if x:\n        b: 1\n    elif y: c = 2\n    else:\n        **d\n    e += [1, *f]\n}\n",
	"l = [x for x in [1, 2] if x > 1]\nd = {k: v for k, v in {a: 1}}\n",
	"s = \"${a.b:#json} and ${c}\" + r'\\n' + '''\n  x\n'''\n",
	"f = lambda x: int, y = 1 -> int {\n    x + y\n}\n",
	"q = all x in l { x > 0 if x }\nm = map k, v in d { v }\n",
	"rule R for P:\n    a > 1\n",
	"import .a.b as c\ntype T = \"a\" | 1Gi | [int] | {str:} | (int) -> str\n",
	"a = b?.c?[0][1:2:3] if not d is not None else -e ** 2\n",
	"if a:\n    b = 1\nelif c:\n  d = 1\n\telse:\n",
	"a = \"unterminated\nb = 0b102 + 1.5e + 1x\n",
	"a = ((((((((((1))))))))))\n",
	"x = $if + `?` ; ! @\n",
}

func FuzzScan(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		toks, _ := Scan("main.k", []byte(src))
		if len(toks) == 0 || toks[len(toks)-1].Kind != EOF {
			t.Fatalf("token stream does not end with EOF")
		}
		for _, tok := range toks {
			if tok.Start < 0 || tok.End > len(src) || tok.Start > tok.End {
				t.Fatalf("token %v out of range [%d,%d) of %d", tok.Kind, tok.Start, tok.End, len(src))
			}
			if tok.Text != "" && src[tok.Start:tok.End] != tok.Text {
				t.Fatalf("token %v text %q != source %q", tok.Kind, tok.Text, src[tok.Start:tok.End])
			}
			if tok.Line < 1 || tok.Col < 1 {
				t.Fatalf("token %v at %d:%d", tok.Kind, tok.Line, tok.Col)
			}
		}
	})
}

func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		m, errs := ParseFileAll("main.k", []byte(src))
		if m == nil {
			t.Fatal("nil module")
		}
		for _, e := range errs {
			if e.Pos.Line < 1 || e.Pos.Col < 0 || e.Msg == "" || !utf8.ValidString(e.Msg) && utf8.ValidString(src) {
				t.Fatalf("bad error %+v", e)
			}
		}
	})
}
