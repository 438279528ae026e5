package eval_test

import "testing"

// Runtime errors with no position of their own are located where the official
// runtime 0.12.1 is when it raises them: an instance made by a type conversion
// at the config entry evaluated last, an instance re-run by a union where it
// was first made. Each want is what kcl run 0.12.1 prints.
func TestRuntimeErrorPositions(t *testing.T) {
	runSemCases(t, []semCase{
		{"conversion of a dict entry's value",
			"schema Port:\n    name: str\n    number: int\n\n_p = {name = \"http\"}\nports: {str:Port} = {\n    web = _p\n}\n",
			"EvaluationError main.k:7 attribute 'number' of Port is required and can't be None or Undefined"},
		{"conversion inside nested lists and dicts",
			"schema Port:\n    name: str\n    number: int\n\n_p = {name = \"http\"}\nports: [{str:[Port]}] = [{\n    web = [_p]\n}]\n",
			"EvaluationError main.k:7 attribute 'number' of Port is required and can't be None or Undefined"},
		{"index signature default re-run by a union",
			"schema Item:\n    id: str\n    kind: str\n\nschema Items:\n    [id: str]: Item = Item {id: id}\n\nitems: Items {\n    a: {}\n}\n",
			"EvaluationError main.k:6 attribute 'kind' of Item is required and can't be None or Undefined"},
		{"mixin overriding the body's value",
			"schema Spec:\n    a: int\n    b: int\n\nmixin SpecMixin:\n    spec: Spec = {\n        b = 1\n    }\n\nschema A:\n    mixin [SpecMixin]\n    spec: Spec = {\n        a = 1\n    }\n\nx = A()\n",
			"EvaluationError main.k:7 attribute 'a' of Spec is required and can't be None or Undefined"},
		// A check failing on an instance re-run by a union: the line of the
		// statement or entry, at column 1.
		{"check re-run by |=",
			"schema Config:\n    age?: int\n    check:\n        age > 0 if age\n\n_config = Config {\n    age: 18\n}\n_config |= {age = -1}\n",
			"EvaluationError main.k:9:1 Instance check failed"},
		{"check re-run by a union in a config entry",
			"schema Config:\n    age?: int\n    check:\n        age > 0 if age\n\n_config = Config {\n    age: 18\n}\nx = {\n    a = _config | {age = -1}\n}\n",
			"EvaluationError main.k:10:1 Instance check failed"},
		{"check re-run by a union in a schema body",
			"schema Config:\n    age?: int\n    check:\n        age > 0 if age\n\n_config = Config {\n    age: 18\n}\nschema W:\n    c: Config = _config | {age = -1}\n\nw = W {}\n",
			"EvaluationError main.k:10:1 Instance check failed"},
		// A lambda argument of the wrong type: the line of the call.
		{"lambda argument of the wrong type",
			"f = lambda x: int -> int {\n    x\n}\ng = lambda y {\n    f(y)\n}\na = g(sum([3]) if False else \"s\")\n",
			"EvaluationError main.k:5 expect int, got str"},
		// A typed target's conversion: the node run last, a called
		// lambda's body.
		{"typed target of a lambda's result",
			"schema S:\n    f3: int\n\nf = lambda d {\n    d\n}\nx: S = f({\"a\": 1})\n",
			"EvaluationError main.k:5 expect S, got dict. For details:\nSchema S does not contain attribute a\nSchema S's attribute f3 is missing"},
	})
}

// A value that does not fit its one schema type is explained line by line.
func TestConversionErrorDetails(t *testing.T) {
	runSemCases(t, []semCase{
		{"schema as another schema",
			"schema Web:\n    host: str = \"h\"\n\nschema Db:\n    dsn: str\n\n_w: Web | Db = Web {}\nd = _w as Db\n",
			"EvaluationError main.k:8 expect Db, got Web. For details:\nSchema Db does not contain attribute host\nSchema Db's attribute dsn is missing"},
		{"dict with an undeclared key",
			"schema P:\n    name: str = \"a\"\n\n_d = {\"x\": 1, \"y\": 2}\np: P = _d\n",
			"EvaluationError main.k:5 expect P, got dict. For details:\nSchema P does not contain attribute x\nSchema P does not contain attribute y\nSchema P's attribute name is missing"},
		{"optional attributes are not missing",
			"schema B:\n    b?: int\nschema P(B):\n    name?: str\n    age: int\n\n_d = {\"x\": 1, \"age\": 1}\np: P = _d\n",
			"EvaluationError main.k:8 expect P, got dict. For details:\nSchema P does not contain attribute x"},
		{"union type: no details",
			"schema P:\n    name: str\n    age: int\n\n_d = {\"x\": 1}\np: P | int = _d\n",
			"EvaluationError main.k:6 expect P | int, got dict"},
	})
}
