package eval_test

import "testing"

// Iterating None or Undefined is an error, as in the official runtime: a
// comprehension over a missing option("items") must not quietly yield [].
func TestIteratingNoneFails(t *testing.T) {
	runSemCases(t, []semCase{
		{"option", "a = [i for i in option(\"items\")]\n",
			"EvaluationError main.k:1 'NoneType' object is not iterable"},
		{"list comprehension", "x = None\na = [i for i in x if i]\nb = 1\n",
			"EvaluationError main.k:2 'NoneType' object is not iterable"},
		{"dict comprehension", "x = None\na = {k: v for k, v in x}\n",
			"EvaluationError main.k:2 'NoneType' object is not iterable"},
		{"undefined", "x = Undefined\na = [i for i in x]\n",
			"EvaluationError main.k:2 'UndefinedType' object is not iterable"},
		{"all", "x = None\na = all i in x { i > 0 }\n",
			"EvaluationError main.k:2 'NoneType' object is not iterable"},
		{"any", "x = None\na = any i in x { i > 0 }\n",
			"EvaluationError main.k:2 'NoneType' object is not iterable"},
		{"map", "x = None\na = map i in x { i }\n",
			"EvaluationError main.k:2 'NoneType' object is not iterable"},
		{"filter", "x = None\na = filter i in x { i }\n",
			"EvaluationError main.k:2 'NoneType' object is not iterable"},
		{"assert", "x = None\na = 1\nassert all i in x {i}\n",
			"EvaluationError main.k:3 'NoneType' object is not iterable"},
		{"if condition", "x = None\nif all i in x {i}:\n    a = 1\n",
			"EvaluationError main.k:2 'NoneType' object is not iterable"},
		{"line of the for clause", "a = [\n    i\n    for i in option(\"items\")\n]\n",
			"EvaluationError main.k:3 'NoneType' object is not iterable"},
		{"inner comprehension", "x = None\na = [[j for j in x] for i in [1]]\n",
			"EvaluationError main.k:2 'NoneType' object is not iterable"},
		{"inside a list", "x = None\na = [\n  1,\n  [i for i in x]\n]\n",
			"EvaluationError main.k:4 'NoneType' object is not iterable"},
		{"inside a config", "x = None\na = {\n  b = [i for i in x]\n}\n",
			"EvaluationError main.k:3 'NoneType' object is not iterable"},
		{"lambda argument", "f = lambda x {\n    y = 1\n    [i for i in x]\n}\na = f(None)\n",
			"EvaluationError main.k:3 'NoneType' object is not iterable"},
		{"unset optional schema attribute", "schema A:\n    items?: [int]\n    doubled = [i * 2 for i in items]\na = A {}\n",
			"EvaluationError main.k:3 'UndefinedType' object is not iterable"},
		{"None schema attribute", "schema A:\n    items?: [int]\n    doubled = [i * 2 for i in items]\na = A {items = None}\n",
			"EvaluationError main.k:3 'NoneType' object is not iterable"},
		{"schema check", "schema A:\n    items?: [int]\n    check:\n        all i in items { i > 0 }\na = A {}\n",
			"EvaluationError main.k:4 'UndefinedType' object is not iterable"},
		{"argument of yaml_stream", "import manifests\nx = None\nmanifests.yaml_stream([i for i in x])\n",
			"EvaluationError main.k:3 'NoneType' object is not iterable"},
	})
}

// Values that are not iterable at run time fail with EvaluationError (not
// TypeError: that kind is the static checker's).
func TestIteratingScalarsFails(t *testing.T) {
	runSemCases(t, []semCase{
		{"int", "f = lambda x { [i for i in x] }\na = f(1)\n",
			"EvaluationError main.k:1 'int' object is not iterable"},
		{"bool", "f = lambda x { [i for i in x] }\na = f(True)\n",
			"EvaluationError main.k:1 'bool' object is not iterable"},
		{"float in a dict comprehension", "f = lambda x { {k = v for k, v in x} }\na = f(1.5)\n",
			"EvaluationError main.k:1 'float' object is not iterable"},
		{"function", "f = lambda x { [i for i in x] }\na = f(len)\n",
			"EvaluationError main.k:1 'function' object is not iterable"},
		{"schema type", "schema A:\n    a: int = 1\nf = lambda x { [i for i in x] }\na = f(A)\n",
			"EvaluationError main.k:3 'type' object is not iterable"},
		{"quantifier", "f = lambda x { all i in x { i } }\na = f(1)\n",
			"EvaluationError main.k:1 'int' object is not iterable"},
		{"string", "f = lambda x { [i for i in x] }\na = f(\"ab\")\n",
			"a:\n- a\n- b"},
	})
}

// `x in y` on a y that is not a container: the runtime's message carries a
// "TypeError: " prefix inside an EvaluationError.
func TestMembershipInNoneFails(t *testing.T) {
	runSemCases(t, []semCase{
		{"in", "x = None\na = 1 in x\n",
			"EvaluationError main.k:2 TypeError: argument of type 'NoneType' is not iterable"},
		{"not in", "x = None\na = 1 not in x\n",
			"EvaluationError main.k:2 TypeError: argument of type 'NoneType' is not iterable"},
		{"undefined", "f = lambda x { 1 in x }\na = f(Undefined)\n",
			"EvaluationError main.k:1 TypeError: argument of type 'UndefinedType' is not iterable"},
		{"int", "f = lambda x { 1 in x }\na = f(1)\n",
			"EvaluationError main.k:1 TypeError: argument of type 'int' is not iterable"},
		{"function", "f = lambda x { 1 in x }\na = f(len)\n",
			"EvaluationError main.k:1 TypeError: argument of type 'function' is not iterable"},
	})
}

// `*x` and `**x` add nothing for None and Undefined and refuse anything but a
// list, dict or schema (a string too), printing the value.
func TestUnpacking(t *testing.T) {
	runSemCases(t, []semCase{
		{"list of None", "x = None\na = [*x, 1]\n", "x: null\na:\n- 1"},
		{"dict of None", "x = None\na = {\"a\": 1, **x}\n", "x: null\na:\n  a: 1"},
		{"list of Undefined", "f = lambda x { [*x] }\na = f(Undefined)\n", "a: []"},
		{"list of a dict", "f = lambda x { [*x] }\na = f({a = 1, b = 2})\n", "a:\n- a\n- b"},
		{"list of a string", "f = lambda x { [*x] }\na = f(\"ab\")\n",
			"EvaluationError main.k:1 only list, dict and schema object can be used with unpack operators * and **, got ab"},
		{"list of an int", "f = lambda x { [*x] }\na = f(1)\n",
			"EvaluationError main.k:1 only list, dict and schema object can be used with unpack operators * and **, got 1"},
		{"list of a float", "f = lambda x { [*x] }\na = f(2.0)\n",
			"EvaluationError main.k:1 only list, dict and schema object can be used with unpack operators * and **, got 2.0"},
		{"list of a schema type", "schema A:\n    a: int = 1\nf = lambda x { [*x] }\na = f(A)\n",
			"EvaluationError main.k:3 only list, dict and schema object can be used with unpack operators * and **, got function"},
		{"dict of a list", "f = lambda x { {**x} }\na = f([1, \"a\", None, {a = 1}, True, 1.0])\n",
			"EvaluationError main.k:1 only list, dict and schema object can be used with unpack operators * and **, got [1, a, None, {'a': 1}, True, 1.0]"},
		{"dict of a bool", "f = lambda x { {**x} }\na = f(True)\n",
			"EvaluationError main.k:1 only list, dict and schema object can be used with unpack operators * and **, got True"},
		{"unpacked values are copies", "base = {\n    val = [2]\n}\nconfig = {\n    **base\n    val += [1]\n}\n",
			"base:\n  val:\n  - 2\nconfig:\n  val:\n  - 2\n  - 1"},
		{"deleting from an unpacked schema's list", "schema P:\n    hc: [int] = [1, 2, 3]\np = P {}\nq = {\n    **p\n    hc[0] = Undefined\n}\n",
			"p:\n  hc:\n  - 1\n  - 2\n  - 3\nq:\n  hc:\n  - 2\n  - 3"},
	})
}

// Inside a config literal the keys it spells are in scope; keys that came in
// through `**x` are not, and a key not yet set reads the global.
func TestConfigKeysInScope(t *testing.T) {
	runSemCases(t, []semCase{
		{"unpacked key is not a name", "a = {\"b\": 1}\nb = {\"b\" = 2}\nc = {**a, **b}\n",
			"a:\n  b: 1\nb:\n  b: 2\nc:\n  b: 2"},
		{"unpacked key then reference", "b = 2\nx = {**{b = 5}, c = b}\n", "b: 2\nx:\n  b: 5\n  c: 2"},
		{"written key", "b = 2\nx = {b = 5, c = b}\n", "b: 2\nx:\n  b: 5\n  c: 5"},
		{"string key", "b = 2\nx = {\"b\": 5, c = b}\n", "b: 2\nx:\n  b: 5\n  c: 5"},
		{"key written later", "b = 2\nx = {c = b, b = 5}\n", "b: 2\nx:\n  c: 2\n  b: 5"},
		{"if entry", "b = 2\nx = {if True: b = 5\nc = b}\n", "b: 2\nx:\n  b: 5\n  c: 5"},
		{"nested literal", "b = 2\nx = {a = {b = 5}, c = b}\n", "b: 2\nx:\n  a:\n    b: 5\n  c: 2"},
	})
}
