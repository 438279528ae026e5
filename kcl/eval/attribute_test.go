package eval_test

import "testing"

// `v.name` as the official runtime's load_attr: a missing dict key is
// Undefined (omitted from the output), None and other values without
// attributes fail, and `?.` is the way to read through None.
func TestAttributeOfNone(t *testing.T) {
	runSemCases(t, []semCase{
		{"option", "a = option(\"params\").repos\n",
			"EvaluationError main.k:1 invalid value 'NoneType' to load attribute 'repos'"},
		{"optional access", "a = option(\"params\")?.repos\n", "a: null"},
		{"variable", "x = None\na = x.repos\n",
			"EvaluationError main.k:2 invalid value 'NoneType' to load attribute 'repos'"},
		{"undefined", "x = Undefined\na = x.repos\n",
			"EvaluationError main.k:2 invalid value 'UndefinedType' to load attribute 'repos'"},
		{"chain through None", "f = lambda x { x.a.b }\na = f({a = None})\n",
			"EvaluationError main.k:1 invalid value 'NoneType' to load attribute 'b'"},
		{"chain through a missing key", "x = {}\na = [1][x.a] if False else 2\nb = x.a.b\n",
			"EvaluationError main.k:3 invalid value 'UndefinedType' to load attribute 'b'"},
		{"only the first name is optional", "f = lambda x { x?.a.b }\na = f(None)\n",
			"EvaluationError main.k:1 invalid value 'NoneType' to load attribute 'b'"},
		{"each optional name", "f = lambda x { x?.a?.b }\na = f({a = None})\n", "a: null"},
		{"optional access on an empty dict", "p = {b = {}}\na = p?.b.c\nb = p?.x?.y\n", "p:\n  b: {}\nb: null"},
		{"method of None", "f = lambda x { x.upper() }\na = f(None)\n",
			"EvaluationError main.k:1 invalid value 'NoneType' to load attribute 'upper'"},
		{"int", "f = lambda x { x.a }\na = f(1)\n",
			"EvaluationError main.k:1 invalid value 'int' to load attribute 'a'"},
		{"list", "f = lambda x { x.a }\na = f([1])\n",
			"EvaluationError main.k:1 invalid value 'list' to load attribute 'a'"},
		{"string", "f = lambda x { x.a }\na = f(\"s\")\n",
			"EvaluationError main.k:1 str object attr 'a' not found"},
		{"function", "f = lambda x { x.a }\na = f(lambda {1})\n",
			"EvaluationError main.k:1 schema object attr 'a' not found"},
		{"schema without the attribute", "schema A:\n    b: int = 1\nf = lambda x { x.c }\na = f(A{})\n",
			"EvaluationError main.k:3 schema 'A' attribute 'c' not found"},
		{"in a config", "p = option(\"params\")\na = {\n    b = 1\n    c = p.repos\n}\n",
			"EvaluationError main.k:4 invalid value 'NoneType' to load attribute 'repos'"},
		{"in a schema default", "p = option(\"params\")\nschema A:\n    repos: [str] = p.repos\na = A {}\n",
			"EvaluationError main.k:3 invalid value 'NoneType' to load attribute 'repos'"},
		{"in a lambda", "p = option(\"params\")\nf = lambda {\n    y = 1\n    p.repos\n}\na = f()\n",
			"EvaluationError main.k:4 invalid value 'NoneType' to load attribute 'repos'"},
	})
}

// A dict key that is not there reads as Undefined: it is not None, and it is
// left out of dicts, lists and the top level.
func TestMissingKeyIsUndefined(t *testing.T) {
	runSemCases(t, []semCase{
		{"top level", "x = {}\na = x.a\nb = 1\n", "x: {}\nb: 1"},
		{"through a variable", "x = {}\na = x.a\na2 = a\nb = [a2]\n", "x: {}\nb: []"},
		{"in a list", "x = {}\na = [x.a, 1]\n", "x: {}\na:\n- 1"},
		{"in a dict", "x = {}\na = {c = x.a, d = 1}\n", "x: {}\na:\n  d: 1"},
		{"unpacked", "x = {}\na = {**{c = x.a}}\n", "x: {}\na: {}"},
		{"lambda result", "f = lambda x { x.a }\na = f({b = 1})\n", "{}"},
		{"subscript", "f = lambda x { x[\"a\"] }\na = f({b = 1})\n", "{}"},
		{"comparisons", "x = {}\na = x.a or 1\nb = x.a == None\nc = x.a is None\nd = x.a is Undefined\ne = not x.a\n",
			"x: {}\na: 1\nb: false\nc: false\nd: true\ne: true"},
		{"as text", "x = {}\na = \"${x.a}\"\nb = str(x.a)\nc = typeof(x.a)\n",
			"x: {}\na: Undefined\nb: Undefined\nc: UndefinedType"},
		{"arithmetic", "x = {}\na = x.a + 1\n",
			"EvaluationError main.k:2 unsupported operand type(s) for +: 'UndefinedType' and 'int'"},
	})
}

// `v[i]` and `v[a:b]` as the runtime's bin_subscr and list_slice.
func TestSubscriptOfNone(t *testing.T) {
	runSemCases(t, []semCase{
		{"option", "a = option(\"params\")[\"repos\"]\n",
			"EvaluationError main.k:1 'NoneType' object is not subscriptable with 'str'"},
		{"int index", "f = lambda x { x[0] }\na = f(None)\n",
			"EvaluationError main.k:1 'NoneType' object is not subscriptable with 'int'"},
		{"undefined", "f = lambda x { x[0] }\na = f(Undefined)\n",
			"EvaluationError main.k:1 'UndefinedType' object is not subscriptable with 'int'"},
		{"int", "f = lambda x { x[0] }\na = f(1)\n",
			"EvaluationError main.k:1 'int' object is not subscriptable with 'int'"},
		{"schema with an int", "schema A:\n    b: int = 1\nf = lambda x { x[1] }\na = f(A{})\n",
			"EvaluationError main.k:3 'A' object is not subscriptable with 'int'"},
		{"optional", "f = lambda x { x?[0] }\na = f(None)\n", "a: null"},
		{"optional then plain", "p = None\na = p?[\"x\"][\"y\"]\n",
			"EvaluationError main.k:2 'NoneType' object is not subscriptable with 'str'"},
		{"slice of None", "f = lambda x { x[1:2] }\na = f(None)\n",
			"EvaluationError main.k:1 invalid slice object NoneType"},
		{"slice of a dict", "f = lambda x { x[1:] }\na = f({a = 1})\n",
			"EvaluationError main.k:1 invalid slice object dict"},
		{"optional slice", "f = lambda x { x?[1:] }\na = f(None)\n", "a: null"},
	})
}

// Operators on None and Undefined as in the runtime: unary minus and plus
// fail, `~` inverts as_int (0 for anything but a number), `|` keeps the other
// side, equality is False against anything else.
func TestOperatorsOnNone(t *testing.T) {
	runSemCases(t, []semCase{
		{"minus", "f = lambda x { 0 + -x }\na = f(None)\n",
			"EvaluationError main.k:1 bad operand type for unary -: 'NoneType'"},
		{"plus", "f = lambda x { 0 + +x }\na = f(Undefined)\n",
			"EvaluationError main.k:1 bad operand type for unary +: 'UndefinedType'"},
		{"invert", "f = lambda x { ~x }\na = [f(None), f(Undefined), f(True), f(\"s\"), f([1]), f(1Ki), f(2.7), f(-2.7)]\n",
			"a:\n- -1\n- -1\n- -1\n- -1\n- -1\n- -1025\n- -3\n- 1"},
		{"invert True", "a = ~True\nb = ~False\n", "a: -1\nb: -1"},
		{"union", "f = lambda x, y { x | y }\na = [f({a=1}, None), f(None, {b=1}), f([1], None), f(None, None), f(Undefined, None)]\n",
			"a:\n- a: 1\n- b: 1\n- - 1\n- null\n- null"},
		{"equality", "f = lambda x, y { x == y }\na = [f({}, None), f([], None), f(\"\", None), f(0, None), f(False, None), f({}, Undefined)]\n",
			"a:\n- false\n- false\n- false\n- false\n- false\n- false"},
		{"add to a list", "f = lambda x, y { x + y }\na = f([1], Undefined)\n",
			"EvaluationError main.k:1 can only concatenate list (not \"UndefinedType\") to list"},
		{"interpolation", "f = lambda x { \"v${x}\" }\na = [f(None), f(Undefined)]\n", "a:\n- vNone\n- vUndefined"},
	})
}
