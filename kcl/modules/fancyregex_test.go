package modules

import (
	"strings"
	"testing"

	v "github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

func TestFancyPatterns(t *testing.T) {
	label := "^(?!-)[a-z0-9-]{1,63}(?<!-)$"
	cases := []struct {
		s, p string
		want bool
	}{
		{"x", label, true}, {"x1", label, true}, {"6x", label, true}, {"x-7", label, true},
		{"$", label, false}, {strings.Repeat("x", 64), label, false}, {"_x2", label, false},
		{"x-", label, false}, {"-x", label, false},
		{"abcabc", `^(abc)\1$`, true}, {"abcabd", `^(abc)\1$`, false},
		{"price: $10", `(?<=\$)\d+`, true}, {"price: 10", `(?<=\$)\d+`, false},
		{"Hello", `(?i)^hello$(?<!x)`, true},
		{"foobar", `foo(?=bar)`, true}, {"foobaz", `foo(?=bar)`, false},
		{"a.b", `^(?P<x>\w)\.(?P=x)?b$(?!z)`, true}, {"a.a", `^(?P<x>\w)\.(?P=x)$(?!z)`, true}, {"a.c", `^(?P<x>\w)\.(?P=x)$(?!z)`, false},
		// \w and \d are Unicode classes, as in the runtime's regex crate
		{"é1", `^\w\d$(?!x)`, true}, {"é", `^\w$`, true}, {"٣", `^\d$`, true}, {"a\u00a0b", `^a\sb$`, true},
	}
	for _, c := range cases {
		got, err := callErr(nil, "regex", "match", v.Str(c.s), v.Str(c.p))
		if err != nil {
			t.Errorf("%q ~ %q: %v", c.s, c.p, err)
			continue
		}
		if got != v.Bool(c.want) {
			t.Errorf("%q ~ %q = %v, want %v", c.s, c.p, got, c.want)
		}
	}
	if got := call(t, nil, "regex", "replace", v.Str("a1 b22"), v.Str(`(?<=\w)(\d+)`), v.Str("<$1>")); got.String() != "a<1> b<22>" {
		t.Errorf("replace: %s", got)
	}
	if got := call(t, nil, "regex", "findall", v.Str("aa bb cd"), v.Str(`(\w)\1`)); got.String() != "[aa, bb]" { // one group: whole matches
		t.Errorf("findall: %s", got)
	}
	if got := call(t, nil, "regex", "split", v.Str("a1b2c"), v.Str(`(?<=[a-z])\d`)); got.String() != "[a, b, c]" {
		t.Errorf("split: %s", got)
	}
	// named groups are numbered left to right, as the regex crate does (.NET numbers them last)
	if got := call(t, nil, "regex", "replace", v.Str("ab-cd"), v.Str(`(?P<first>\w)(\w)(?=-|$)`), v.Str("${first}|$2")); got.String() != "a|b-c|d" {
		t.Errorf("replace with a named group: %s", got)
	}
	if got := call(t, nil, "regex", "findall", v.Str("ab-cd"), v.Str(`(?P<first>\w)(\w)(?=-|$)`)); got.String() != "[[a, b], [c, d]]" {
		t.Errorf("findall with a named group: %s", got)
	}
	// catastrophic patterns stop at the match timeout instead of hanging
	if _, err := callErr(nil, "regex", "match", v.Str(strings.Repeat("a", 40)+"b"), v.Str(`^(a+)+\1$`)); err == nil || !strings.Contains(err.Error(), "match timeout") {
		t.Errorf("want a match timeout error, got %v", err)
	}
}
