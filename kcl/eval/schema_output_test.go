package eval_test

import "testing"

// A schema attribute whose value is Undefined (a missing dict key read with
// `.` or `[]`, or never set) is left out of the output; one that is None is
// printed as null. Each want is what kcl run 0.12.1 prints.
func TestUndefinedSchemaAttributesAreOmitted(t *testing.T) {
	runSemCases(t, []semCase{
		{"missing key into an optional attribute",
			"schema PVC:\n    pvc: {str:}\n    name: str = pvc.name\n    labels?: {str:str} = pvc.labels\n\np = PVC {pvc = {name = \"x\"}}\n",
			"p:\n  pvc:\n    name: x\n  name: x"},
		{"assigned in the body",
			"schema PVC:\n    pvc: {str:}\n    name: str = pvc.name\n    labels?: {str:str}\n    labels = pvc.labels\n\np = PVC {pvc = {name = \"x\"}}\n",
			"p:\n  pvc:\n    name: x\n  name: x"},
		{"into a required attribute",
			"schema PVC:\n    pvc: {str:}\n    labels: {str:str} = pvc.labels\n\np = PVC {pvc = {name = \"x\"}}\n",
			"EvaluationError main.k:5 attribute 'labels' of PVC is required and can't be None or Undefined"},
		{"subscript, selector and optional selector",
			"schema A:\n    m: {str:}\n    a?: str = m.a\n    b?: str = m[\"b\"]\n    c?: str = m?.c\nf = lambda m { A {m = m} }\nx = f({})\ny = f({a = \"1\"})\n",
			"x:\n  m: {}\n  c: null\n'y':\n  m:\n    a: '1'\n  a: '1'"},
		{"unset, None and Undefined defaults",
			"schema A:\n    a?: int\n    b?: str = None\n    c?: [int] = Undefined\n    d: int = 1\n    e?: {str:} = {}\nx = A {}\ny = A {a = None}\nz = A {a = Undefined}\n",
			"x:\n  b: null\n  d: 1\n  e: {}\n'y':\n  a: null\n  b: null\n  d: 1\n  e: {}\nz:\n  b: null\n  d: 1\n  e: {}"},
		{"Undefined in the instance's config",
			"schema A:\n    a?: int\nx = A {a = {}.b}\ny = {a = {}.b}\n",
			"x: {}\n'y': {}"},
		{"overriding a default with Undefined",
			"schema A:\n    m: {str:} = {}\n    a?: str = \"default\"\nx = A {a = {}.b}\ny = A {a = None}\n",
			"x:\n  m: {}\n'y':\n  m: {}\n  a: null"},
		{"inherited",
			"schema Base:\n    m: {str:} = {}\n    a?: str = m.a\nschema Child(Base):\n    b?: str = m.b\n    c: str = \"c\"\nx = Child {m = {a = \"1\"}}\n",
			"x:\n  m:\n    a: '1'\n  a: '1'\n  c: c"},
		{"mixin",
			"mixin MMixin:\n    b?: str = m.b\nschema A:\n    mixin [MMixin]\n    m: {str:} = {}\nx = A {}\n",
			"x:\n  m: {}"},
		{"if block", "schema A:\n    m: {str:} = {}\n    a?: str\n    if True:\n        a = m.a\n    b?: str\n    if m.x:\n        b = \"y\"\nx = A {}\n",
			"x:\n  m: {}"},
		{"inside list and dict attributes",
			"schema A:\n    m: {str:} = {}\n    l?: [str] = [m.a, \"x\"]\n    d?: {str:} = {k = m.a, j = 1}\nx = A {}\n",
			"x:\n  m: {}\n  l:\n  - x\n  d:\n    j: 1"},
		{"check sees Undefined, not None",
			"schema A:\n    m: {str:} = {}\n    a?: str = m.a\n    check:\n        a is Undefined, \"a is undefined\"\n        not a\nx = A {}\n",
			"x:\n  m: {}"},
		{"text of an instance keeps Undefined",
			"import json\nschema A:\n    m: {str:} = {}\n    a?: str = m.a\n    b?: str = None\nx = json.encode(A {})\na0 = A {}\ny = \"${a0}\"\nz = str(A{})\n",
			"x: '{\"m\": {}, \"b\": null}'\na0:\n  m: {}\n  b: null\n'y': '{''m'': {}, ''a'': Undefined, ''b'': None}'\nz: '{''m'': {}, ''a'': Undefined, ''b'': None}'"},
	})
}

// In an instance's config, `name: None` (union) keeps the schema's value and
// `name = None` (override) replaces it, as for dict literals.
func TestConfigUnionWithNoneKeepsTheDefault(t *testing.T) {
	runSemCases(t, []semCase{
		{"defaults", "schema S:\n    f?: [int] = [1]\n    g?: int = 2\n    h?: str = \"s\"\na = S {f: None, g: None, h: None}\nb = S {f = None, g = None}\nc = S {f: Undefined}\n",
			"a:\n  f:\n  - 1\n  g: 2\n  h: s\nb:\n  f: null\n  g: null\n  h: s\nc:\n  f:\n  - 1\n  g: 2\n  h: s"},
		{"schema list default", "schema MySubSchema:\n    a: int\n    b: str\n    c: {str:str}\n    d: str = c[b]\n\nschema MyTestSchema:\n    field1?: [MySubSchema] = [{a = 1, b = \"key\", c = {key = \"value\"}}]\n\ninstance = MyTestSchema {field1: None}\n",
			"instance:\n  field1:\n  - a: 1\n    b: key\n    c:\n      key: value\n    d: value"},
		{"dict literals", "a = {b: 1, b: None}\nc = {d = 1, d: None}\nx = {a = [1]}\ny = x | {a = None}\n",
			"a:\n  b: 1\nc:\n  d: 1\nx:\n  a:\n  - 1\n'y':\n  a: null"},
	})
}

// A required attribute typed by one literal and given no value defaults to
// that literal; an optional one stays unset.
func TestLiteralTypedAttributesDefault(t *testing.T) {
	runSemCases(t, []semCase{
		{"every literal kind", "schema Config:\n    val0: \"val\"\n    val1: 1\n    val2: 1Ki\n    val3: 2.0\n    val4: True\n    val5: False\n\nc = Config {}\n",
			"c:\n  val0: val\n  val1: 1\n  val2: 1024.0\n  val3: 2.0\n  val4: true\n  val5: false"},
		{"given or not", "schema C:\n    a: \"val\"\nc = C {a = \"val\"}\nd = C {}\n", "c:\n  a: val\nd:\n  a: val"},
		{"optional", "x: \"v\" = \"v\"\nschema C:\n    a?: \"val\"\n    b: \"val\"\nc = C {}\n", "x: v\nc:\n  b: val"},
		{"redeclared in a subclass", "schema P:\n    a: str = \"p\"\nschema C(P):\n    a: \"p\"\nc = C {}\nschema Q:\n    k: \"v\"\nschema R(Q):\n    k: \"v\"\nr = R {}\n",
			"c:\n  a: p\nr:\n  k: v"},
		{"a unit literal", "schema C:\n    v: 1Ki = 1Ki\nc = C {}\n", "c:\n  v: 1024.0"},
		{"a union of literals is no default", "schema C:\n    a: \"x\" | \"y\"\n    b?: 1\nc = C {}\n",
			"EvaluationError main.k:4 attribute 'a' of C is required and can't be None or Undefined"},
	})
}

// Outside a schema body `inst.attr = v` evaluates the instance again with v
// in its config: attributes derived from it follow and its checks run.
func TestAssigningAnAttributeReevaluatesTheInstance(t *testing.T) {
	runSemCases(t, []semCase{
		{"check fails", "schema Config:\n    name?: str\n    age?: int\n    check:\n        age > 0 if age\n\n_config = Config {\n    name: \"Alice\"\n    age: 18\n}\n_config.age = -1\n",
			"EvaluationError main.k:11:1 Instance check failed"},
		{"check passes", "schema Config:\n    name?: str\n    age?: int\n    check:\n        age > 0 if age\n_config = Config {\n    name: \"Alice\"\n    age: 18\n}\n_config.age = 3\nc = _config\n",
			"c:\n  name: Alice\n  age: 3"},
		{"derived attribute", "schema C:\n    a: int = 1\n    b: int = a * 2\n_c = C {}\n_c.a = 5\nc = _c\n", "c:\n  a: 5\n  b: 10"},
		{"schema arguments", "schema C[x]:\n    a: int = x\n_c = C(2) {}\n_c.a = 5\nc = _c\n", "c:\n  a: 5"},
	})
}

// Protocols, mixins and rules are instantiated like schemas in 0.12.1: the
// value is the instance (a rule's too), and a rule's checks still run.
func TestProtocolsMixinsAndRulesInstantiate(t *testing.T) {
	runSemCases(t, []semCase{
		{"protocol", "protocol PProtocol:\n    a: int = 2\np = PProtocol {}\nq = PProtocol()\n", "p:\n  a: 2\nq:\n  a: 2"},
		{"protocol without a required value", "protocol PProtocol:\n    a: int\np = PProtocol {}\n",
			"EvaluationError main.k:3 attribute 'a' of PProtocol is required and can't be None or Undefined"},
		{"mixin", "mixin MMixin:\n    a: int = 1\np = MMixin {}\n", "p:\n  a: 1"},
		{"rule", "rule R:\n    True\nx = R {}\ny = R()\n", "x: {}\n'y': {}"},
		{"rule with arguments", "rule R[a]:\n    a > 0\nx = R(1)\n", "x: {}"},
		{"rule for a protocol with an index signature",
			"protocol XProtocol:\n    [...str]: str\n    alice: str\n\nrule XRule for XProtocol:\n    alice == \"Alice\", \"expected Alice, got ${alice}\"\n    bob == \"Bob\"\n\np = XProtocol {\n    alice = \"Alice\"\n    bob = \"Bob\"\n}\n\nx = XRule {\n    alice = \"Alice\"\n    bob = \"Bob\"\n}\n",
			"p:\n  alice: Alice\n  bob: Bob\nx:\n  alice: Alice\n  bob: Bob"},
	})
}

// A required attribute emptied by a union is reported at the statement.
func TestRequiredAttributeEmptiedByAUnion(t *testing.T) {
	runSemCases(t, []semCase{
		{"union with Undefined", "schema Values:\n    a: int\n\nvalues: Values = Values {a = 1} | {a = Undefined}\n",
			"EvaluationError main.k:4 attribute 'a' of Values is required and can't be None or Undefined"},
	})
}
