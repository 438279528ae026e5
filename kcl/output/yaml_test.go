package output

import (
	"errors"
	"strings"
	"testing"

	v "github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

func mustYAML(t *testing.T, val v.Value, opts Options) string {
	t.Helper()
	out, err := YAML(val, opts)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func TestScalarStyles(t *testing.T) {
	cases := []struct {
		in   v.Value
		want string
	}{
		{v.Unit{Real: 1073741824, Raw: 1024, Suffix: "Mi"}, "1073741824.0"},
		{v.Float(1e20), "1e20"},
		{v.Float(1e-7), "1e-7"},
		{v.Float(0.1), "0.1"},
		{v.Float(123456789012345678.0), "1.2345678901234568e17"},
		{v.Float(2), "2.0"},
		{v.Int(-3), "-3"},
		{v.Str("😀"), "😀"},
		{v.Str("a\tb"), `"a\tb"`},
		{v.Str("a\nb"), "|-\n  a\n  b"},
		{v.Str("a\nb\n"), "|\n  a\n  b\n"},
		{v.Str("a\nb\n\n"), "|+\n  a\n  b\n\n"},
		{v.Str(" a\nb"), "|2-\n   a\n  b"},
		{v.Str("a \nb"), `"a \nb"`},
		{v.Str("yes"), "'yes'"},
		{v.Str("- a"), "'- a'"},
		{v.Str("a: b"), "'a: b'"},
		{v.Str("a #b"), "'a #b'"},
		{v.Str("#a"), "'#a'"},
		{v.Str("it's"), "it's"},
		{v.Str("'q'"), "'''q'''"},
		{v.Str("x\u0085y"), `"x\Ny"`},
		{v.Str("\u00a0"), "\u00a0"},
		{v.Str("~"), "'~'"},
		{v.Str("a\n b"), "|-\n  a\n   b"},
		{v.Str("a\r"), `"a\r"`},
		{v.Str("\n"), "|2+\n\n"},
		{v.Str(""), "''"},
		{v.Str("@x"), "'@x'"},
		{v.Str("a:"), "'a:'"},
		{v.Str("1.5.6"), "'1.5.6'"},
		{v.Str("null"), "'null'"},
		{v.Str("Infinity"), "Infinity"},
		{v.Str("inf"), "inf"},
		{v.Str("10Gi"), "'10Gi'"},
		{v.Str("x\x00y\a\x1b\x7f\u00ad\u2028\ufeff"), "\"x\\0y\\a\\e\\x7F\u00ad\\L\\uFEFF\""},
		{v.None, "null"},
		{v.True, "true"},
		{v.NewList(nil), "[]"},
		{v.NewDict(0), "{}"},
	}
	for _, c := range cases {
		got := mustYAML(t, v.DictOf("k", c.in), Options{})
		want := "k: " + c.want
		if !strings.HasSuffix(want, "\n") {
			want += "\n"
		}
		if got != want {
			t.Errorf("%q:\n got %q\nwant %q", c.in.String(), got, want)
		}
	}
}

func TestNesting(t *testing.T) {
	l := v.NewList([]v.Value{
		v.NewList([]v.Value{v.Int(1), v.Int(2)}),
		v.DictOf("a", v.Int(1), "b", v.NewList([]v.Value{v.Int(3)})),
		v.NewList(nil), v.NewDict(0), v.Str("x\ny"),
	})
	d := v.DictOf("a b", v.Int(1), "1", v.Int(2), "", v.Int(3), "x\ny", v.Int(4), strings.Repeat("x", 129), v.Int(5))
	got := mustYAML(t, v.DictOf("n", v.None, "l", l, "d", d), Options{})
	want := `'n': null
l:
- - 1
  - 2
- a: 1
  b:
  - 3
- []
- {}
- |-
  x
  y
d:
  a b: 1
  '1': 2
  '': 3
  ? |-
    x
    y
  : 4
  ? ` + strings.Repeat("x", 129) + `
  : 5
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestPlanHiddenNoneUndefined(t *testing.T) {
	fn := &v.Function{FuncName: "f"}
	s := v.NewSchema("S", v.MainPkg)
	s.Config.Set("_p", v.Int(1))
	s.Config.Set("q", v.Int(2))
	top := v.DictOf(
		"_h", v.Int(1),
		"d", v.DictOf("_x", v.Int(1), "y", v.None, "z", v.NewList([]v.Value{v.None, v.Int(1), v.DictOf("_q", v.Int(2), "w", v.Int(3))})),
		"s", s,
		"f", fn,
		"l", v.NewList([]v.Value{s, fn, v.Undefined}),
		"u", v.Undefined,
	)
	want := `d:
  'y': null
  z:
  - null
  - 1
  - w: 3
s:
  q: 2
l:
- q: 2
`
	if got := mustYAML(t, top, Options{}); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	wantN := `d:
  z:
  - 1
  - w: 3
s:
  q: 2
l:
- q: 2
`
	if got := mustYAML(t, top, Options{DisableNone: true}); got != wantN {
		t.Errorf("disable none: got\n%s\nwant\n%s", got, wantN)
	}
	wantH := "_h: 1\n"
	if got := mustYAML(t, top, Options{ShowHidden: true}); !strings.HasPrefix(got, wantH) || !strings.Contains(got, "  _x: 1\n") {
		t.Errorf("show hidden: got\n%s", got)
	}
}

func TestSortKeysAndStream(t *testing.T) {
	top := v.DictOf("b", v.Int(1), "a", v.DictOf("z", v.Int(1), "c", v.Int(2)))
	if got, want := mustYAML(t, top, Options{SortKeys: true}), "a:\n  c: 2\n  z: 1\nb: 1\n"; got != want {
		t.Errorf("got %q want %q", got, want)
	}
	stream := v.NewList([]v.Value{v.DictOf("a", v.Int(1)), v.DictOf("b", v.Int(2))})
	if got, want := mustYAML(t, stream, Options{}), "a: 1\n---\nb: 2\n"; got != want {
		t.Errorf("got %q want %q", got, want)
	}
	mixed := v.NewList([]v.Value{v.Int(1), v.DictOf("b", v.Int(2))})
	if got, want := mustYAML(t, mixed, Options{}), "1\n---\nb: 2\n"; got != want { // 0.12.1 streams every element
		t.Errorf("got %q want %q", got, want)
	}
}

func TestMaxBytes(t *testing.T) {
	items := make([]v.Value, 1000)
	for i := range items {
		items[i] = v.DictOf("name", v.Str(strings.Repeat("x", 100)))
	}
	_, err := YAML(v.DictOf("items", v.NewList(items)), Options{MaxBytes: 10_000})
	if !errors.Is(err, ErrOutputTooLarge) {
		t.Fatalf("want ErrOutputTooLarge, got %v", err)
	}
}

func TestCycleIsAnError(t *testing.T) {
	d := v.NewDict(1)
	d.Set("self", d)
	if _, err := YAML(v.DictOf("d", d), Options{}); !errors.Is(err, ErrOutputTooLarge) {
		t.Fatalf("want an error for self-referencing data, got %v", err)
	}
}

// An output bomb is refused before printing, from a lower bound of its size,
// and a value just under the cap still prints.
func TestMaxBytesRefusesBeforePrinting(t *testing.T) {
	big := v.DictOf("x", v.Str(strings.Repeat("x", 1<<20)))
	items := make([]v.Value, 100)
	for i := range items {
		items[i] = big
	}
	p := yamlPrinter{limit: 10 << 20}
	if least := p.atLeast(v.NewList(items), 10<<20, 0); least <= 10<<20 {
		t.Fatalf("lower bound %d is not past the cap", least)
	}
	if _, err := YAML(v.NewList(items), Options{MaxBytes: 10 << 20}); !errors.Is(err, ErrOutputTooLarge) {
		t.Fatalf("want ErrOutputTooLarge, got %v", err)
	}
	out, err := YAML(v.NewList(items[:1]), Options{MaxBytes: 2 << 20})
	if err != nil || len(out) < 1<<20 {
		t.Fatalf("one item under the cap: %d bytes, %v", len(out), err)
	}
	l := v.NewList(nil)
	l.Elems = append(l.Elems, l, l) // shared and cyclic: bounded by the cap, not 2^depth
	if _, err := YAML(v.DictOf("l", l), Options{MaxBytes: 1 << 16}); !errors.Is(err, ErrOutputTooLarge) {
		t.Fatalf("want ErrOutputTooLarge for a cyclic list, got %v", err)
	}
}
