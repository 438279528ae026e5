package check_test

import (
	"fmt"
	"strings"
	"testing"
)

// The official resolver builds a package's global scope in passes before it
// walks the bodies (the first pass sees a global from its statement on, the
// second all of them) and keeps each distinct diagnostic once: an undefined
// schema name in `x: T {…}` is reported twice when the second pass has a
// "did you mean" the first had not, and a schema expression whose name does
// not resolve is not walked further. Each answer is what kcl run 0.12.1
// reported for the program, in its order (first line of each diagnostic).
var globalPassCases = []struct {
	src  string
	want []string
}{
	{`a: Config {
    b: c.D {}
}
config = 1
`, []string{
		`1:4 CompileError: name 'Config' is not defined`,
		`1:4 CompileError: name 'Config' is not defined, did you mean '["config"]'?`,
	}},
	{`config = 1
a = Config(x = undefined) {
    b: c.D {}
    e = f
}
`, []string{
		`2:5 CompileError: name 'Config' is not defined, did you mean '["config"]'?`,
	}},
	{`schema S:
    x: int = 1
a: T {}
T = S
`, []string{
		`3:4 CompileError: name 'T' is not defined`,
	}},
	{`a: x.T {}
x = 1
`, []string{
		`1:4 CompileError: name 'x' is not defined`,
	}},
	{`import math
a = math.Config {
    b: c.D {}
}
`, []string{
		`2:5 TypeError: attribute 'Config' not found in 'module 'math''`,
	}},
	{`T = 1
a = T {
    b: c.D {}
}
`, []string{
		`2:5 CompileError: Invalid schema type 'int'`,
	}},
	{`a: Config {
    b: c.D {}
}
config = 1
schema Cfg:
    x: Confi {}
`, []string{
		`1:4 CompileError: name 'Config' is not defined`,
		`6:5 CompileError: name 'Confi' is not defined, did you mean '["config"]'?`,
		`1:4 CompileError: name 'Config' is not defined, did you mean '["config"]'?`,
		`6:8 CompileError: name 'Confi' is not defined, did you mean '["config"]'?`,
	}},
	{`import math
schema Cfg:
    x: math.D {}
    y: c.D {}
`, []string{
		`3:5 TypeError: attribute 'D' not found in 'module 'math''`,
		`4:5 CompileError: name 'c' is not defined`,
		`3:8 TypeError: attribute 'D' not found in 'module 'math''`,
		`4:8 CompileError: name 'c' is not defined`,
	}},
	{`x = c
a: Config {}
config = 1
`, []string{
		`2:4 CompileError: name 'Config' is not defined`,
		`2:4 CompileError: name 'Config' is not defined, did you mean '["config"]'?`,
		`1:5 CompileError: name 'c' is not defined`,
	}},
	{`if True:
    a: Confi {}
config = 1
`, []string{
		`2:8 CompileError: name 'Confi' is not defined`,
		`2:8 CompileError: name 'Confi' is not defined, did you mean '["config"]'?`,
	}},
	{`a: Confi = 1
config = 1
`, []string{
		`1:4 CompileError: name 'Confi' is not defined`,
		`1:4 CompileError: name 'Confi' is not defined, did you mean '["config"]'?`,
	}},
	{`schema S[n: Nope4]:
    @nodeco
    x: Nope3
    [str]: Nope5
    y: Noo {}
rule R[m: Nope6]:
    True
a: Nope2 = 1
`, []string{
		`8:4 CompileError: name 'Nope2' is not defined`,
		`4:12 CompileError: name 'Nope5' is not defined`,
		`3:8 CompileError: name 'Nope3' is not defined`,
		`2:6 CompileError: UnKnown decorator nodeco`,
		`5:5 CompileError: name 'Noo' is not defined`,
		`1:10 CompileError: name 'Nope4' is not defined`,
		`6:8 CompileError: name 'Nope6' is not defined`,
		`5:8 CompileError: name 'Noo' is not defined`,
	}},
	{`schema S(Nope1):
    x: int
a: Nope2 = 1
`, []string{
		`3:4 CompileError: name 'Nope2' is not defined`,
		`1:10 CompileError: name 'Nope1' is not defined`,
		`1:10 IllegalInheritError: invalid schema inherit object type, expect schema, got 'any'`,
	}},
	{`a: Nope2 = 1
a: Nope3 = 1
`, []string{
		`1:4 CompileError: name 'Nope2' is not defined`,
		`2:1 ImmutableError: Can not change the value of 'a', because it was declared immutable`,
		`2:4 CompileError: name 'Nope3' is not defined`,
	}},
	{`type A = Nopea
a: Nope2 = 1
b = c
type B = Nopeb
c = 1
`, []string{
		`1:6 CompileError: name 'Nopea' is not defined`,
		`4:6 CompileError: name 'Nopeb' is not defined`,
		`2:4 CompileError: name 'Nope2' is not defined`,
	}},
}

func TestGlobalPassesReportInTheOfficialOrder(t *testing.T) {
	for _, c := range globalPassCases {
		var got []string
		for _, d := range diagnostics(t, c.src) {
			m := d.Messages[0]
			got = append(got, fmt.Sprintf("%d:%d %s: %s", m.Pos.Line, m.Pos.Col, d.Kind, m.Msg))
		}
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s\ngot:\n  %s\nwant:\n  %s", c.src, strings.Join(got, "\n  "), strings.Join(c.want, "\n  "))
		}
	}
}
