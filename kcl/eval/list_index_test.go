package eval_test

import "testing"

// `arr[i] = v`, `arr[i] += [v]` and `arr[i] = Undefined` in a config, and
// `_a[i] = v` on a global, with an index past the list: the runtime's (Rust's)
// messages, never a silent append or an engine panic.
func TestListIndexOutOfBounds(t *testing.T) {
	runSemCases(t, []semCase{
		{"insert past the end", "a = {\n    arr = [1, 1, 1]\n    arr[5] += [2] + [2]\n}\n",
			"EvaluationError main.k:3 insertion index (is 5) should be <= len (is 3)"},
		{"insert into a missing list", "a = {\n    arr[1] += [0]\n}\n",
			"EvaluationError main.k:2 insertion index (is 1) should be <= len (is 0)"},
		{"insert at the end", "a = {\n    arr = [1, 1, 1]\n    arr[3] += [2]\n}\n", "a:\n  arr:\n  - 1\n  - 1\n  - 1\n  - 2"},
		{"insert at a negative index", "a = {\n    arr = [1, 1, 1]\n    arr[-3] += [2]\n}\n", "a:\n  arr:\n  - 2\n  - 1\n  - 1\n  - 1"},
		{"insert before the start", "a = {\n    arr = [1, 1, 1]\n    arr[-4] += [2]\n}\n",
			"EvaluationError main.k:3 index out of bounds: the len is 3 but the index is -4"},
		{"replace past the end", "a = {\n    arr = [1, 1, 1]\n    arr[3] = 2\n}\n",
			"EvaluationError main.k:3 index out of bounds: the len is 3 but the index is 3"},
		{"replace before the start", "a = {\n    arr = [1, 1, 1]\n    arr[-5] = 2\n}\n",
			"EvaluationError main.k:3 index out of bounds: the len is 3 but the index is -5"},
		{"remove past the end", "a = {\n    arr = [1, 1, 1]\n    arr[5] = Undefined\n}\n",
			"EvaluationError main.k:3 removal index (is 5) should be < len (is 3)"},
		{"remove before the start", "a = {\n    arr = [1, 1, 1]\n    arr[-5] = Undefined\n}\n",
			"EvaluationError main.k:3 index out of bounds: the len is 3 but the index is -5"},
		{"global", "_a = [0, 1] * 2\n_a[10] = 2\na = _a\n",
			"EvaluationError main.k:2 index out of bounds: the len is 4 but the index is 10"},
		{"global before the start", "_a = [0, 1]\n_a[-3] = 2\na = _a\n",
			"EvaluationError main.k:2 index out of bounds: the len is 2 but the index is -3"},
	})
}
