package syntax

import (
	"strings"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
)

func TestParseSchema(t *testing.T) {
	src := `@deprecated(version="1")
schema Person[n: int = 1](Base):
    """Person doc"""
    mixin [NameMixin, pkg.AgeMixin]
    name: str = "x"
    age?: int
    "label"?: str
    @info(x=1)
    tags: [str] = []
    [key: str]: any
    labels: {str:str} += {}
    if n > 1:
        name = "y"
    assert age > 0
    check:
        age > 0 if age, "bad age"
        len(name) > 0
`
	s := parseOne(t, src).(*SchemaStmt)
	want := `(SchemaStmt Doc="\"\"\"Person doc\"\"\"" Name="Person" ParentName=Base Args=(Arguments Args=[n] Defaults=[(NumberLit Int=1)] TyList=[(BasicType Kind=int)]) Mixins=[NameMixin pkg.AgeMixin] ` +
		`Body=[(SchemaAttr Name="name" Op== Value=(StringLit Value="x") Ty=(BasicType Kind=str)) (SchemaAttr Name="age" IsOptional=true Ty=(BasicType Kind=int)) (SchemaAttr Name="label" IsOptional=true Ty=(BasicType Kind=str)) ` +
		`(SchemaAttr Name="tags" Op== Value=(ListExpr) Decorators=[(CallExpr Func=info Keywords=[(Keyword Arg=x Value=(NumberLit Int=1))])] Ty=(ListType InnerType=(BasicType Kind=str))) ` +
		`(SchemaAttr Name="labels" Op=+= Value=(ConfigExpr) Ty=(DictType KeyType=(BasicType Kind=str) ValueType=(BasicType Kind=str))) ` +
		`(IfStmt Body=[(AssignStmt Targets=[(Target Name="name")] Value=(StringLit Value="y"))] Cond=(Compare Left=n Ops=[>] Comparators=[(NumberLit Int=1)])) ` +
		`(AssertStmt Test=(Compare Left=age Ops=[>] Comparators=[(NumberLit)]))] ` +
		`Decorators=[(CallExpr Func=deprecated Keywords=[(Keyword Arg=version Value=(StringLit Value="1"))])] ` +
		`Checks=[(CheckExpr Test=(Compare Left=age Ops=[>] Comparators=[(NumberLit)]) IfCond=age Msg=(StringLit Value="bad age")) (CheckExpr Test=(Compare Left=(CallExpr Func=len Args=[name]) Ops=[>] Comparators=[(NumberLit)]))] ` +
		`IndexSignature=(SchemaIndexSignature KeyName="key" KeyTy=(BasicType Kind=str) ValueTy=(AnyType)))`
	if got := dump(s); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if s.Pos().Line != 2 || s.Pos().Col != 1 || s.Name.Pos().Col != 8 {
		t.Errorf("positions: schema %v name %v", s.Pos(), s.Name.Pos())
	}
}

func TestParseSchemaVariants(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"schema AMixin for AProtocol:\n    a: int\n", `(SchemaStmt Name="AMixin" ForHostName=AProtocol IsMixin=true Body=[(SchemaAttr Name="a" Ty=(BasicType Kind=int))])`},
		{"protocol P:\n    a: int\n", `(SchemaStmt Name="P" IsProtocol=true Body=[(SchemaAttr Name="a" Ty=(BasicType Kind=int))])`},
		{"schema A:\n    [...str]: int\n", `(SchemaStmt Name="A" IndexSignature=(SchemaIndexSignature AnyOther=true KeyTy=(BasicType Kind=str) ValueTy=(BasicType Kind=int)))`},
		{"schema A:\n    [str]: int = 1\n", `(SchemaStmt Name="A" IndexSignature=(SchemaIndexSignature Value=(NumberLit Int=1) KeyTy=(BasicType Kind=str) ValueTy=(BasicType Kind=int)))`},
		{"schema A:\n    a: B {}\n", `(SchemaStmt Name="A" Body=[(UnificationStmt Target=a Value=(SchemaExpr Name=B Config=(ConfigExpr)))])`},
		{"schema A:\n    a: \"x\" | \"y\" = \"x\"\n", `(SchemaStmt Name="A" Body=[(SchemaAttr Name="a" Op== Value=(StringLit Value="x") Ty=(UnionType TypeElements=[(LiteralType Kind=3 Str="x") (LiteralType Kind=3 Str="y")]))])`},
		{"rule R[x](Base, Other) for P:\n    \"\"\"doc\"\"\"\n    a > 1, \"m\"\n    b\n", `(RuleStmt Doc="\"\"\"doc\"\"\"" Name="R" ParentRules=[Base Other] Checks=[(CheckExpr Test=(Compare Left=a Ops=[>] Comparators=[(NumberLit Int=1)]) Msg=(StringLit Value="m")) (CheckExpr Test=b)] Args=(Arguments Args=[x] Defaults=[nil] TyList=[nil]) ForHostName=P)`},
		{"if a:\n    b = 1\nelif c:\n    b = 2\nelse:\n    b = 3\n", `(IfStmt Body=[(AssignStmt Targets=[(Target Name="b")] Value=(NumberLit Int=1))] Cond=a Orelse=[(IfStmt Body=[(AssignStmt Targets=[(Target Name="b")] Value=(NumberLit Int=2))] Cond=c Orelse=[(AssignStmt Targets=[(Target Name="b")] Value=(NumberLit Int=3))])])`},
		{"if a: b = 1\n", `(IfStmt Body=[(AssignStmt Targets=[(Target Name="b")] Value=(NumberLit Int=1))] Cond=a)`},
	} {
		if got := dump(parseOne(t, tc.src)); got != tc.want {
			t.Errorf("%q\n got  %s\n want %s", tc.src, got, tc.want)
		}
	}
}

func TestParseMultiline(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"a = {\n    b: 1\n    c = [\n        1\n        2\n    ]\n}\n", `(AssignStmt Targets=[(Target Name="a")] Value=(ConfigExpr Items=[(ConfigEntry Key=b Value=(NumberLit Int=1)) (ConfigEntry Key=c Value=(ListExpr Elts=[(NumberLit Int=1) (NumberLit Int=2)]) Operation==)]))`},
		{"a = {\n    if x:\n        b: 1\n        c: 2\n    else:\n        d: 3\n    e: 4\n}\n", `(AssignStmt Targets=[(Target Name="a")] Value=(ConfigExpr Items=[(ConfigEntry Value=(ConfigIfEntryExpr IfCond=x Items=[(ConfigEntry Key=b Value=(NumberLit Int=1)) (ConfigEntry Key=c Value=(NumberLit Int=2))] Orelse=(ConfigExpr Items=[(ConfigEntry Key=d Value=(NumberLit Int=3))]))) (ConfigEntry Key=e Value=(NumberLit Int=4))]))`},
		{"a = [\n    if x:\n        1\n        2\n    elif y:\n        3\n    0\n]\n", `(AssignStmt Targets=[(Target Name="a")] Value=(ListExpr Elts=[(ListIfItemExpr IfCond=x Exprs=[(NumberLit Int=1) (NumberLit Int=2)] Orelse=(ListIfItemExpr IfCond=y Exprs=[(NumberLit Int=3)])) (NumberLit)]))`},
		{"f = lambda x {\n    y = x + 1\n    y\n}\n", `(AssignStmt Targets=[(Target Name="f")] Value=(LambdaExpr Args=(Arguments Args=[x] Defaults=[nil] TyList=[nil]) Body=[(AssignStmt Targets=[(Target Name="y")] Value=(BinaryExpr Left=x Right=(NumberLit Int=1))) (ExprStmt Exprs=[y])]))`},
		{"a = f(\n    1,\n    k = 2\n)\n", `(AssignStmt Targets=[(Target Name="a")] Value=(CallExpr Func=f Args=[(NumberLit Int=1)] Keywords=[(Keyword Arg=k Value=(NumberLit Int=2))]))`},
		{"a = 1 + \\\n    2\n", `(AssignStmt Targets=[(Target Name="a")] Value=(BinaryExpr Left=(NumberLit Int=1) Right=(NumberLit Int=2)))`},
		{"a = \"\"\"x\n  ${b}\n\"\"\"\n", `(AssignStmt Targets=[(Target Name="a")] Value=(JoinedString IsLongString=true Values=[(StringLit Value="x\n  ") (FormattedValue Value=b) (StringLit Value="\n")]))`},
		{"a = any x in [1] {\n    x > 0\n}\n", `(AssignStmt Targets=[(Target Name="a")] Value=(QuantExpr Target=(ListExpr Elts=[(NumberLit Int=1)]) Variables=[x] Op=any Test=(Compare Left=x Ops=[>] Comparators=[(NumberLit)])))`},
	} {
		if got := dump(parseOne(t, tc.src)); got != tc.want {
			t.Errorf("%q\n got  %s\n want %s", tc.src, got, tc.want)
		}
	}
}

func TestParsePositions(t *testing.T) {
	src := "# c\nabc = {\n    \"é\": f\n}\nx = \"a${y}\"\n"
	m, _ := ParseFileAll("main.k", []byte(src))
	as := m.Body[0].(*AssignStmt)
	if p := as.Pos(); p.Line != 2 || p.Col != 1 || p.Offset != 4 {
		t.Errorf("assign pos %v", p)
	}
	if len(m.Comments) != 1 || m.Comments[0].Text != "# c" {
		t.Errorf("comments %v", m.Comments)
	}
	js := m.Body[1].(*AssignStmt).Value.(*JoinedString)
	fv := js.Values[1].(*FormattedValue)
	if p := fv.Value.Pos(); p.Line != 5 || p.Col != 9 || src[p.Offset] != 'y' {
		t.Errorf("interpolation pos %v", p)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"a==\n", `1:3 expected one of ["identifier", "literal", "(", "[", "{"] got newline`},
		{"a = f(1,2\nb = 1\n", `1:9 expected one of [")"] got newline`},
		{"a = 1 ;\n", `1:7 the semicolon ';' here is unnecessary, please remove it`},
		{"a = \"abc\n", `1:5 unterminated string`},
		{"schema A:\n    a: int\n  b: int\n", `3:3 invalid indentation with 2 spaces, try to align indents by adding or removing spaces`},
		{"if a:\n    b = 1\nelse if c:\n    b = 2\n", `3:1 'else if' here is invalid in KCL, consider using the 'elif' keyword`},
		{"a = !b\n", `1:5 invalid token '!', consider using 'not '`},
		{"a = f(x=1, 2)\n", `1:12 positional argument follows keyword argument`},
		{"a = 1 \\ 2\n", `1:7 unexpected character after line continuation character`},
		{"a = 0b12\n", `1:8 invalid digit for a base 2 literal, start: 7, stop: 8`},
		{"a = 1x\n", `1:5 invalid int binary suffix`},
		{"a = (1]\n", `1:7 mismatched closing delimiter`},
		{"a = 99999999999999999999\n", `1:5 expected one of ["int"] got 99999999999999999999`},
		{"schema A:\n    [str]: int\n    [str]: str\n", `3:5 duplicate schema index signature definitions, only one is allowed in the schema`},
		{"1 = a\n", `1:1 'NumberLitExpression' is an illegal expression for assignment`},
		{"a = \"${}\"\n", `1:6 invalid string interpolation expression: ''`},
		{"a = \"\\${\"\n", `1:9 invalid joined string`},
		{"a = \"x${b c}\"\n", `1:9 invalid string interpolation expression: 'b c'`},
		{"a = \"${b:x}\"\n", `1:10 invalid joined string spec without #`},
		{"a = 1 - > 2\n", `1:8 unexpected token '->'`},
		{"if True:\n\tb = 1\n        c = 1\n", `3:9 inconsistent use of tabs and spaces in indentation`},
	} {
		_, err := ParseFile("main.k", []byte(tc.src))
		e, ok := err.(*Error)
		if !ok {
			t.Errorf("%q: no syntax error (%v)", tc.src, err)
			continue
		}
		if got := itoa(e.Pos.Line) + ":" + itoa(e.Pos.Col) + " " + e.Msg; got != tc.want {
			t.Errorf("%q\n got  %s\n want %s", tc.src, got, tc.want)
		}
		if e.Kind != errkind.InvalidSyntax || e.Code() != "E1001" {
			t.Errorf("%q: kind %s code %s", tc.src, e.Kind, e.Code())
		}
	}
}

func TestParseErrorsMore(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{")\n", `1:1 error nesting on close paren`},
		{"\ta = )\n", `1:6 error nesting on close paren`},
		{"é = )\n", `1:5 error nesting on close paren`},
		{"a = 1\nelse if b:\n", `2:10 expected one of ["else"] got :`},
	} {
		_, err := ParseFile("main.k", []byte(tc.src))
		e, ok := err.(*Error)
		if !ok {
			t.Errorf("%q: no syntax error (%v)", tc.src, err)
			continue
		}
		if got := itoa(e.Pos.Line) + ":" + itoa(e.Pos.Col) + " " + e.Msg; got != tc.want {
			t.Errorf("%q\n got  %s\n want %s", tc.src, got, tc.want)
		}
	}
}

func TestParseCRLF(t *testing.T) {
	src := "schema A:\r\n    a: int = 1 # c\r\n\r\n    b: str = \"\"\"l1\r\nl2\"\"\"\r\nx = 1 + \\\r\n  2\r\n"
	m, err := ParseFile("main.k", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	s := m.Body[0].(*SchemaStmt)
	if len(s.Body) != 2 || s.Body[1].(*SchemaAttr).Value.(*StringLit).Value != "l1\nl2" {
		t.Errorf("schema %s", dump(s))
	}
	if m.Comments[0].Text != "# c" {
		t.Errorf("comment %q", m.Comments[0].Text)
	}
	if _, ok := m.Body[1].(*AssignStmt).Value.(*BinaryExpr); !ok {
		t.Errorf("continuation: %s", dump(m.Body[1]))
	}
}

func TestParseBOM(t *testing.T) {
	m, err := ParseFile("main.k", []byte("\ufeffa = 1\n"))
	if err != nil || len(m.Body) != 1 {
		t.Fatalf("%v %s", err, dump(m.Body))
	}
}

func TestParseDeepNesting(t *testing.T) {
	ok := "a = " + strings.Repeat("[", 900) + strings.Repeat("]", 900) + "\n"
	if _, err := ParseFile("main.k", []byte(ok)); err != nil {
		t.Errorf("900 nested lists: %v", err)
	}
	deep := "a = " + strings.Repeat("(", 5000) + "1" + strings.Repeat(")", 5000) + "\n"
	_, err := ParseFile("main.k", []byte(deep))
	if e, isErr := err.(*Error); !isErr || e.Msg != "expression nested too deeply" {
		t.Errorf("5000 nested parentheses: %v", err)
	}
	chain := "a = " + strings.Repeat("1 if x else ", 5000) + "0\n"
	if _, err := ParseFile("main.k", []byte(chain)); err == nil {
		t.Errorf("5000 chained if-else accepted")
	}
}
