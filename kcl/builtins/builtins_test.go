package builtins

import (
	"testing"

	v "github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

func call(t *testing.T, name string, args ...v.Value) v.Value {
	t.Helper()
	b := Universe[name].(*v.Builtin)
	r, err := b.Call(&v.Thread{}, args, nil)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return r
}

func callMethod(t *testing.T, s, name string, args ...v.Value) v.Value {
	t.Helper()
	m, err := StrMethod(v.Str(s), name)
	if err != nil {
		t.Fatal(err)
	}
	r, err := m.(v.Callable).Call(&v.Thread{}, args, nil)
	if err != nil {
		t.Fatalf("%q.%s: %v", s, name, err)
	}
	return r
}

func list(xs ...v.Value) *v.List { return v.NewList(xs) }

func TestBuiltins(t *testing.T) {
	cases := []struct {
		got  v.Value
		want string
	}{
		{call(t, "len", v.Str("héllo")), "6"},
		{call(t, "int", v.Str("2Ki")), "2048"},
		{call(t, "int", v.Str("17"), v.Int(8)), "15"}, // 0.12.1: the quantity's decimal digits in the base
		{call(t, "int", v.Float(-3.7)), "-3"},
		{call(t, "float", v.Str("1e3")), "1000.0"},
		{call(t, "str", v.Float(1)), "1.0"},
		{call(t, "str", list(v.Str("a"), v.Int(1))), "[a, 1]"},
		{call(t, "str", v.DictOf("a", v.Str("x"))), "{'a': 'x'}"},
		{call(t, "str", v.None), "None"},
		{call(t, "hex", v.Int(-255)), "-0xff"},
		{call(t, "oct", v.Int(8)), "0o10"},
		{call(t, "bin", v.Int(5)), "0b101"},
		{call(t, "ord", v.Str("a")), "97"},
		{call(t, "abs", v.Int(-3)), "3"},
		{call(t, "sum", list(v.Int(1), v.Int(2), v.Float(0.5))), "3.5"},
		{call(t, "max", list(v.Int(1), v.Int(3), v.Int(2))), "3"},
		{call(t, "min", v.Int(4), v.Int(2)), "2"},
		{call(t, "sorted", list(v.Int(3), v.Int(1), v.Int(2))), "[1, 2, 3]"},
		{call(t, "sorted", v.DictOf("b", v.Int(1), "a", v.Int(2))), "[a, b]"},
		{call(t, "range", v.Int(5)), "[0, 1, 2, 3, 4]"},
		{call(t, "range", v.Int(5), v.Int(0), v.Int(-2)), "[5, 3, 1]"},
		{call(t, "round", v.Float(2.5)), "3"},
		{call(t, "round", v.Float(2.675), v.Int(2)), "2.68"},
		{call(t, "round", v.Float(0.125), v.Int(2)), "0.12"},
		{call(t, "pow", v.Int(2), v.Int(10)), "1024"},
		{call(t, "pow", v.Int(2), v.Int(3), v.Int(5)), "3"},
		{call(t, "zip", list(v.Int(1), v.Int(2)), list(v.Str("a"))), "[[1, a]]"},
		{call(t, "isunique", list(v.Int(1), v.Float(1))), "False"},
		{call(t, "all_true", list(v.Int(1), v.Str(""))), "False"},
		{call(t, "any_true", list(v.Int(0), v.Str("x"))), "True"},
		{call(t, "typeof", v.None), "None"},
		{call(t, "typeof", v.Unit{Real: 1024, Raw: 1, Suffix: "Ki"}), "number_multiplier(1Ki)"},
		{call(t, "multiplyof", v.Int(9), v.Int(3)), "True"},
		{call(t, "isnullish", v.Undefined), "True"},
		{call(t, "list", v.Str("ab")), "[a, b]"},
		{call(t, "dict", list(list(v.Str("a"), v.Int(1)), list(v.Str("b"), v.Int(2)))), "{'[a, 1]': [b, 2]}"}, // as 0.12.1
		{call(t, "bool", v.NewList(nil)), "False"},
	}
	for i, c := range cases {
		if c.got.String() != c.want {
			t.Errorf("case %d: got %s want %s", i, c.got.String(), c.want)
		}
	}
}

func TestStringMethods(t *testing.T) {
	cases := []struct {
		got  v.Value
		want string
	}{
		{callMethod(t, "hello world", "title"), "Hello World"},
		{callMethod(t, "hELLO", "capitalize"), "Hello"},
		{callMethod(t, "a,b,,c", "split", v.Str(",")), "[a, b, , c]"},
		{callMethod(t, "  a  b ", "split"), "[a, b]"},
		{callMethod(t, "a b c", "rsplit", v.None, v.Int(1)), "[a b, c]"},
		{callMethod(t, "a b c", "split", v.None, v.Int(1)), "[a, b c]"},
		{callMethod(t, "a\nb\r\nc", "splitlines"), "[a, b, c]"},
		{callMethod(t, "xxaxx", "strip", v.Str("x")), "a"},
		{callMethod(t, "  a ", "lstrip"), "a "},
		{callMethod(t, "abcabc", "rfind", v.Str("b")), "4"},
		{callMethod(t, "abcabc", "find", v.Str("b"), v.Int(2)), "4"},
		{callMethod(t, "abcabc", "count", v.Str("bc")), "2"},
		{callMethod(t, "-", "join", list(v.Str("a"), v.Int(1))), "a-1"},
		{callMethod(t, "aaa", "replace", v.Str("a"), v.Str("b"), v.Int(2)), "bba"},
		{callMethod(t, "prefix-x", "removeprefix", v.Str("prefix-")), "x"},
		{callMethod(t, "Hello World", "istitle"), "True"},
		{callMethod(t, "abc1", "isalnum"), "True"},
		{callMethod(t, "ab", "chars"), "[a, b]"},
		{callMethod(t, "{} {}", "format", v.Str("Hello"), v.Str("World")), "Hello World"},
		{callMethod(t, "{:.0f}", "format", v.Float(1.0)), "1"},
		{callMethod(t, "{:.1f} {:.0f}", "format", v.Float(1.0), v.Float(2.0)), "1.0 2"},
		{callMethod(t, "0{0[0]}, 1{0[1]}, Hello{1[Hello]}", "format", list(v.Str("0"), v.Str("1")), v.DictOf("Hello", v.Str("World"))), "00, 11, HelloWorld"},
		{callMethod(t, "{:>6}|{:<4}|{:^5}|{:+}", "format", v.Int(42), v.Int(7), v.Int(1), v.Int(3)), "    42|7   |  1  |+3"},
		{callMethod(t, "{:08.3f}|{:,}|{:x}|{:#b}|{:e}|{:g}|{}", "format", v.Float(-3.14159), v.Int(1234567), v.Int(255), v.Int(5), v.Float(12345.678), v.Float(0.00001234), v.Float(1e20)), "-003.142|1,234,567|ff|0b101|1.234568e+04|1.234e-05|1e+20"},
		{callMethod(t, "{{{}}}", "format", v.Int(1)), "{1}"},
	}
	for i, c := range cases {
		if c.got.String() != c.want {
			t.Errorf("case %d: got %q want %q", i, c.got.String(), c.want)
		}
	}
}
