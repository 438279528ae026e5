package eval_test

import "testing"

// `${v: #yaml}` is what yaml.encode(v) gives, `${v: #json}` json.encode(v).
func TestInterpolationFormats(t *testing.T) {
	runSemCases(t, []semCase{
		{"yaml of a dict", "x = {\"a\": [1, 2]}\nb = \"${x: #yaml}\"\n", "x:\n  a:\n  - 1\n  - 2\nb: |\n  a:\n  - 1\n  - 2"},
		{"yaml keeps private keys, None and schema attributes",
			"schema A:\n    n: str = \"x\"\n    o?: int\nx = {\"_p\": 1, \"n\": None, \"s\": A {}}\nb = \"${x: #yaml}\"\n",
			"x:\n  'n': null\n  s:\n    'n': x\nb: |\n  _p: 1\n  'n': null\n  s:\n    'n': x"},
		{"yaml of scalars", "d = \"${1: #yaml}\"\ne = \"${'s': #yaml}\"\ng = \"${None: #yaml}\"\nk = \"${1.0: #yaml}\"\n",
			"d: |\n  1\ne: |\n  s\ng: |\n  null\nk: |\n  1.0"},
		{"json", "x = {\"a\": [1, 2], \"n\": None}\ni = \"${'s': #json}\"\nh = \"${x: #json}\"\n",
			"x:\n  a:\n  - 1\n  - 2\n  'n': null\ni: '\"s\"'\nh: '{\"a\": [1, 2], \"n\": null}'"},
	})
}

// dict(x) as 0.12.1's builtin: a dict or schema is copied; for a sequence of
// pairs each pair must have two items, but key and value are read from the
// sequence itself (an upstream slip the output must follow).
func TestDictOfPairs(t *testing.T) {
	runSemCases(t, []semCase{
		{"keywords", "a = dict({a = 1}, b = 2)\nb = dict(c = 1)\nc = dict()\n", "a:\n  a: 1\n  b: 2\nb:\n  c: 1\nc: {}"},
		{"two pairs", "a = dict([[\"a\", 1], [\"b\", 2]])\n", "a:\n  '[a, 1]':\n  - b\n  - 2"},
		{"one pair", "a = dict([[\"k\", 1]])\n", "EvaluationError main.k:1 called `Option::unwrap()` on a `None` value"},
		{"strings of two characters", "a = dict([\"ab\", \"cd\"])\n", "a:\n  ab: cd"},
		{"a short pair", "a = dict([[1, 2], [3]])\n", "EvaluationError main.k:1 dictionary update sequence element #1 has length 1; 2 is required"},
		{"a string", "a = dict(\"ab\")\n", "EvaluationError main.k:1 dictionary update sequence element #0 has length 1; 2 is required"},
		{"None", "a = dict(None)\n", "EvaluationError main.k:1 'NoneType' object is not iterable"},
	})
}
