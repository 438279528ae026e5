package syntax

import (
	"testing"
)

func parseOne(t *testing.T, src string) Stmt {
	t.Helper()
	m, err := ParseFile("main.k", []byte(src))
	if err != nil {
		t.Fatalf("parse %q: %v", src, err)
	}
	if len(m.Body) != 1 {
		t.Fatalf("parse %q: %d statements", src, len(m.Body))
	}
	return m.Body[0]
}

func TestParseExpressions(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"a = 1 + 2 * 3", `(AssignStmt Targets=[(Target Name="a")] Value=(BinaryExpr Left=(NumberLit Int=1) Right=(BinaryExpr Left=(NumberLit Int=2) Op=* Right=(NumberLit Int=3))))`},
		{"a = -2 ** 2", `(AssignStmt Targets=[(Target Name="a")] Value=(BinaryExpr Left=(UnaryExpr Op=- Operand=(NumberLit Int=2)) Op=** Right=(NumberLit Int=2)))`},
		{"a = not x == y", `(AssignStmt Targets=[(Target Name="a")] Value=(Compare Left=(UnaryExpr Op=not Operand=x) Ops=[==] Comparators=[y]))`},
		{"a = 1 < b <= 3", `(AssignStmt Targets=[(Target Name="a")] Value=(Compare Left=(NumberLit Int=1) Ops=[< <=] Comparators=[b (NumberLit Int=3)]))`},
		{"a = x not in y and z is not None", `(AssignStmt Targets=[(Target Name="a")] Value=(BinaryExpr Left=(Compare Left=x Ops=[not in] Comparators=[y]) Op=and Right=(Compare Left=z Ops=[is not] Comparators=[(NameConstantLit Value=None)])))`},
		{"a = b.c.d", `(AssignStmt Targets=[(Target Name="a")] Value=b.c.d)`},
		{"a = b?.c?[0]", `(AssignStmt Targets=[(Target Name="a")] Value=(Subscript Value=(SelectorExpr Value=b Attr=c HasQuestion=true) Index=(NumberLit) HasQuestion=true))`},
		{"a = l[1:-1:2]", `(AssignStmt Targets=[(Target Name="a")] Value=(Subscript Value=l Lower=(NumberLit Int=1) Upper=(UnaryExpr Op=- Operand=(NumberLit Int=1)) Step=(NumberLit Int=2)))`},
		{"a = l[::]", `(AssignStmt Targets=[(Target Name="a")] Value=(Subscript Value=l))`},
		{"a = 1Gi", `(AssignStmt Targets=[(Target Name="a")] Value=(NumberLit BinarySuffix="Gi" Int=1))`},
		{"a = 0x1F + 0o17 + 017 + 0b11 + 1_000", `(AssignStmt Targets=[(Target Name="a")] Value=(BinaryExpr Left=(BinaryExpr Left=(BinaryExpr Left=(BinaryExpr Left=(NumberLit Int=31) Right=(NumberLit Int=15)) Right=(NumberLit Int=15)) Right=(NumberLit Int=3)) Right=(NumberLit Int=1000)))`},
		{"a = 1.5e3", `(AssignStmt Targets=[(Target Name="a")] Value=(NumberLit IsFloat=true Float=1500))`},
		{"a = x if c else y", `(AssignStmt Targets=[(Target Name="a")] Value=(IfExpr Body=x Cond=c Orelse=y))`},
		{"a = f(1, b, k=2)", `(AssignStmt Targets=[(Target Name="a")] Value=(CallExpr Func=f Args=[(NumberLit Int=1) b] Keywords=[(Keyword Arg=k Value=(NumberLit Int=2))]))`},
		{"a = [1, *b, if c: 2]", `(AssignStmt Targets=[(Target Name="a")] Value=(ListExpr Elts=[(NumberLit Int=1) (StarredExpr Value=b) (ListIfItemExpr IfCond=c Exprs=[(NumberLit Int=2)])]))`},
		{"a = [x * 2 for x in l if x > 1]", `(AssignStmt Targets=[(Target Name="a")] Value=(ListComp Elt=(BinaryExpr Left=x Op=* Right=(NumberLit Int=2)) Generators=[(CompClause Targets=[x] Iter=l Ifs=[(Compare Left=x Ops=[>] Comparators=[(NumberLit Int=1)])])]))`},
		{"a = {k: v for k, v in d}", `(AssignStmt Targets=[(Target Name="a")] Value=(DictComp Entry=(ConfigEntry Key=k Value=v) Generators=[(CompClause Targets=[k v] Iter=d)]))`},
		{"a = {b.c: 1, d = 2, e += [3], **f, \"g\": 4}", `(AssignStmt Targets=[(Target Name="a")] Value=(ConfigExpr Items=[(ConfigEntry Key=b.c Value=(NumberLit Int=1)) (ConfigEntry Key=d Value=(NumberLit Int=2) Operation==) (ConfigEntry Key=e Value=(ListExpr Elts=[(NumberLit Int=3)]) Operation=+=) (ConfigEntry Value=f) (ConfigEntry Key=(StringLit Value="g") Value=(NumberLit Int=4))]))`},
		{"a = {if c: b = 1 elif d: b = 2 else: b = 3}", `(AssignStmt Targets=[(Target Name="a")] Value=(ConfigExpr Items=[(ConfigEntry Value=(ConfigIfEntryExpr IfCond=c Items=[(ConfigEntry Key=b Value=(NumberLit Int=1) Operation==)] Orelse=(ConfigIfEntryExpr IfCond=d Items=[(ConfigEntry Key=b Value=(NumberLit Int=2) Operation==)] Orelse=(ConfigExpr Items=[(ConfigEntry Key=b Value=(NumberLit Int=3) Operation==)]))))]))`},
		{"a = all x in l { x > 0 }", `(AssignStmt Targets=[(Target Name="a")] Value=(QuantExpr Target=l Variables=[x] Test=(Compare Left=x Ops=[>] Comparators=[(NumberLit)])))`},
		{"a = map k, v in d { v if k }", `(AssignStmt Targets=[(Target Name="a")] Value=(QuantExpr Target=d Variables=[k v] Op=map Test=v IfCond=k))`},
		{"a = lambda x: int, y = 1 -> int { x + y }", `(AssignStmt Targets=[(Target Name="a")] Value=(LambdaExpr Args=(Arguments Args=[x y] Defaults=[nil (NumberLit Int=1)] TyList=[(BasicType Kind=int) nil]) Body=[(ExprStmt Exprs=[(BinaryExpr Left=x Right=y)])] ReturnTy=(BasicType Kind=int)))`},
		{"a = Person(1, n=2) {name: \"x\"}", `(AssignStmt Targets=[(Target Name="a")] Value=(SchemaExpr Name=Person Args=[(NumberLit Int=1)] Kwargs=[(Keyword Arg=n Value=(NumberLit Int=2))] Config=(ConfigExpr Items=[(ConfigEntry Key=name Value=(StringLit Value="x"))])))`},
		{"a = pkg.Person {}", `(AssignStmt Targets=[(Target Name="a")] Value=(SchemaExpr Name=pkg.Person Config=(ConfigExpr)))`},
		{"a = \"x${b + 1}y${c:#json}\"", `(AssignStmt Targets=[(Target Name="a")] Value=(JoinedString Values=[(StringLit Value="x") (FormattedValue Value=(BinaryExpr Left=b Right=(NumberLit Int=1))) (StringLit Value="y") (FormattedValue Value=c FormatSpec="#json")]))`},
		{"a = \"\\${b}\"", `(AssignStmt Targets=[(Target Name="a")] Value=(JoinedString Values=[(StringLit Value="${b}")]))`},
		{"a = r\"${b}\\n\"", `(AssignStmt Targets=[(Target Name="a")] Value=(StringLit Value="${b}\\n"))`},
		{"a = 'it\\'s\\t\\x41\\u00e9'", `(AssignStmt Targets=[(Target Name="a")] Value=(StringLit Value="it's\tAé"))`},
		{"a = b = 1", `(AssignStmt Targets=[(Target Name="a") (Target Name="b")] Value=(NumberLit Int=1))`},
		{"a.b[0].c += 1", `(AugAssignStmt Target=(Target Name="a" Paths=[(MemberOrIndex Member="b") (MemberOrIndex Index=(NumberLit)) (MemberOrIndex Member="c")]) Value=(NumberLit Int=1) Op=+=)`},
		{"$if = 1", `(AssignStmt Targets=[(Target Name="if")] Value=(NumberLit Int=1))`},
		{"a: {str:[int]} = {}", `(AssignStmt Targets=[(Target Name="a")] Value=(ConfigExpr) Ty=(DictType KeyType=(BasicType Kind=str) ValueType=(ListType InnerType=(BasicType Kind=int))))`},
		{"a: Person {}", `(UnificationStmt Target=a Value=(SchemaExpr Name=Person Config=(ConfigExpr)))`},
		{"a = x as Person", `(AssignStmt Targets=[(Target Name="a")] Value=(BinaryExpr Left=x Op=as Right=Person))`},
		{"a = b | {c: 1}", `(AssignStmt Targets=[(Target Name="a")] Value=(BinaryExpr Left=b Op=| Right=(ConfigExpr Items=[(ConfigEntry Key=c Value=(NumberLit Int=1))])))`},
		{"print(1)", `(ExprStmt Exprs=[(CallExpr Func=print Args=[(NumberLit Int=1)])])`},
		{"import a.b.c as d", `(ImportStmt Path="a.b.c" RawPath="a.b.c" Name="d" AsName="d")`},
		{"import .sub", `(ImportStmt Path=".sub" RawPath=".sub" Name="sub")`},
		{"type T = \"a\" | \"b\" | 1Gi | True", `(TypeAliasStmt TypeName=T TypeValue="\"a\" | \"b\" | 1Gi | True" Ty=(UnionType TypeElements=[(LiteralType Kind=3 Str="a") (LiteralType Kind=3 Str="b") (LiteralType Kind=1 Int=1 Suffix="Gi") (LiteralType Bool=true)]))`},
		{"type F = (int, str) -> bool", `(TypeAliasStmt TypeName=F TypeValue="(int, str) -> bool" Ty=(FunctionType ParamsTy=[(BasicType Kind=int) (BasicType Kind=str)] RetTy=(BasicType)))`},
		{"assert a > 1 if b, \"msg\"", `(AssertStmt Test=(Compare Left=a Ops=[>] Comparators=[(NumberLit Int=1)]) IfCond=b Msg=(StringLit Value="msg"))`},
	} {
		got := dump(parseOne(t, tc.src))
		if got != tc.want {
			t.Errorf("%s\n got  %s\n want %s", tc.src, got, tc.want)
		}
	}
}

func TestParseExpr(t *testing.T) {
	e, err := ParseExpr("<override>", []byte(`{image = "app:v2", replicas: 3}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := dump(e); got != `(ConfigExpr Items=[(ConfigEntry Key=image Value=(StringLit Value="app:v2") Operation==) (ConfigEntry Key=replicas Value=(NumberLit Int=3))])` {
		t.Errorf("got %s", got)
	}
	if _, err := ParseExpr("<override>", []byte(`1 2`)); err == nil || err.(*Error).Msg != "unexpected token '2'" {
		t.Errorf("trailing token: %v", err)
	}
	if _, err := ParseExpr("<override>", []byte(`[1,`)); err == nil {
		t.Error("unterminated list accepted")
	}
}
