package modules

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	v "github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

func call(t *testing.T, th *v.Thread, mod, fn string, args ...v.Value) v.Value {
	t.Helper()
	r, err := callErr(th, mod, fn, args...)
	if err != nil {
		t.Fatalf("%s.%s: %v", mod, fn, err)
	}
	return r
}

func callErr(th *v.Thread, mod, fn string, args ...v.Value) (v.Value, error) {
	m, _ := Load(mod)
	f, _ := m.Attr(fn)
	return f.(v.Callable).Call(th, args, nil)
}

func TestBlake3(t *testing.T) {
	h := newBlake3()
	if got := hex.EncodeToString(h.Sum(nil)); got != "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262" {
		t.Errorf("empty: %s", got)
	}
	// what crypto.blake3("hello") prints in the official engine 0.12.1
	h = newBlake3()
	h.Write([]byte("hello"))
	if got := hex.EncodeToString(h.Sum(nil)); got != "ea8f163db38682925e4491c5e58d4bb3506ef8c14eb78a86e908c5624a67200f" {
		t.Errorf("hello: %s", got)
	}
	// a multi-chunk input exercises the tree
	h = newBlake3()
	data := make([]byte, 3000)
	for i := range data {
		data[i] = byte(i % 251)
	}
	h.Write(data)
	h2 := newBlake3()
	h2.Write(data[:1000])
	h2.Write(data[1000:])
	if hex.EncodeToString(h.Sum(nil)) != hex.EncodeToString(h2.Sum(nil)) {
		t.Error("streaming differs")
	}
}

func TestYAMLDecode(t *testing.T) {
	src := "b: 1\na: [x, 0x10, 012, 1.5, .inf, ~, yes, 'true', true]\nc:\n  d: |\n    line\n"
	got, err := DecodeYAML([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := "{'b': 1, 'a': [x, 16, 012, 1.5, None, None, yes, true, True], 'c': {'d': 'line\n'}}"
	if got.String() != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	docs, err := DecodeYAMLStream([]byte("a: 1\n---\nb: 2\n"))
	if err != nil || len(docs) != 2 {
		t.Fatalf("stream: %v %v", docs, err)
	}
	if _, err := DecodeYAML([]byte("a: 1\n  b: 2\nc: 3")); err == nil {
		t.Error("want a syntax error")
	}
}

func TestJSON(t *testing.T) {
	got, err := DecodeJSON([]byte(`{"z": 1, "a": [1.5, "x", null, true], "big": 18446744073709551615}`))
	if err != nil {
		t.Fatal(err)
	}
	if s := got.String(); s != "{'z': 1, 'a': [1.5, x, None, True], 'big': 18446744073709552000.0}" {
		t.Errorf("got %s", s)
	}
	enc := call(t, nil, "json", "encode", v.DictOf("b", v.Int(1), "_p", v.Int(2), "a", v.NewList([]v.Value{v.Float(1), v.None})), v.True, v.Int(2), v.True, v.True)
	want := "{\n  \"a\": [\n    1.0\n  ],\n  \"b\": 1\n}"
	if enc.String() != want {
		t.Errorf("encode got %q", enc.String())
	}
	if s := v.CompactJSON(v.DictOf("a", v.NewList([]v.Value{v.Int(1), v.Str("é\"\n")}))); s != `{"a": [1, "é\"\n"]}` {
		t.Errorf("compact %s", s)
	}
}

func TestTemplate(t *testing.T) {
	tmpl := "<div class=\"entry\">\n{{#if author}}\n<h1>{{firstName}} {{lastName}}</h1>\n{{/if}}\n</div>\n"
	got, err := ExecuteTemplate(tmpl, v.DictOf("author", v.True, "firstName", v.Str("Yehuda"), "lastName", v.Str("Katz")))
	if err != nil {
		t.Fatal(err)
	}
	if want := "<div class=\"entry\">\n<h1>Yehuda Katz</h1>\n</div>\n"; got != want {
		t.Errorf("got %q", got)
	}
	data := v.DictOf("v", v.NewList([]v.Value{v.DictOf("a", v.Int(1)), v.DictOf("a", v.Int(2))}), "p", v.NewList([]v.Value{v.Str("x"), v.Str("y")}), "h", v.Str("<b>"))
	got, _ = ExecuteTemplate("{{#each v}}\n{{this.a}}\n{{/each}}\n{{this.v}} {{p}} {{h}} {{{h}}} [{{raw h}}]{{#each p}}{{@index}}{{this}}{{/each}}", data)
	if want := "1\n2\n[[object], [object]] [x, y] &lt;b&gt; <b> []0x1y"; got != want {
		t.Errorf("got %q", got)
	}
}

func TestNetUnitsRegex(t *testing.T) {
	cases := []struct {
		got  v.Value
		want string
	}{
		{call(t, nil, "net", "split_host_port", v.Str("[::1]:80")), "[::1, 80]"},
		{call(t, nil, "net", "is_IP_in_CIDR", v.Str("10.1.2.3"), v.Str("10.0.0.0/8")), "True"},
		{call(t, nil, "net", "CIDR_subnet", v.Str("10.0.0.0/8"), v.Int(8), v.Int(2)), "10.2.0.0/16"},
		{call(t, nil, "net", "CIDR_subnets", v.Str("10.0.0.0/24"), v.NewList([]v.Value{v.Int(1), v.Int(2), v.Int(2)})), "[10.0.0.0/25, 10.0.0.128/26, 10.0.0.192/26]"},
		{call(t, nil, "net", "CIDR_host", v.Str("10.0.0.0/24"), v.Int(-1)), "10.0.0.255"},
		{call(t, nil, "net", "CIDR_netmask", v.Str("10.0.0.0/20")), "255.255.240.0"},
		{call(t, nil, "net", "is_global_unicast_IP", v.Str("8.8.8.8")), "True"},
		{call(t, nil, "units", "to_Gi", v.Float(4294967296)), "4Gi"},
		{call(t, nil, "units", "to_m", v.Float(0.1)), "100m"},
		{call(t, nil, "regex", "findall", v.Str("a1b22"), v.Str(`\d+`)), "[1, 22]"},
		{call(t, nil, "regex", "split", v.Str("a,b;c"), v.Str("[,;]")), "[a, b, c]"},
		{call(t, nil, "regex", "replace", v.Str("aaa"), v.Str("a"), v.Str("b"), v.Int(2)), "bba"},
		{call(t, nil, "math", "log", v.Int(100), v.Int(10)), "4"},
		{call(t, nil, "math", "factorial", v.Int(5)), "120"},
		{call(t, nil, "base64", "encode", v.Str("hi")), "aGk="},
		{call(t, nil, "crypto", "sha256", v.Str("")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{call(t, nil, "datetime", "validate", v.Str("2024-02-29"), v.Str("%Y-%m-%d")), "True"},
		{call(t, nil, "datetime", "validate", v.Str("2023-02-29"), v.Str("%Y-%m-%d")), "False"},
	}
	for i, c := range cases {
		if c.got.String() != c.want {
			t.Errorf("case %d: got %s want %s", i, c.got, c.want)
		}
	}
}

func TestFileSandbox(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello"), 0o644)
	os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644)
	os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "link"))
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	th := &v.Thread{FS: root.FS(), WorkDir: dir}
	if got := call(t, th, "file", "read", v.Str("a.txt")); got.String() != "hello" {
		t.Errorf("read: %s", got)
	}
	if got := call(t, th, "file", "read", v.Str(filepath.Join(dir, "a.txt"))); got.String() != "hello" {
		t.Errorf("read abs: %s", got)
	}
	for _, p := range []string{"../" + filepath.Base(outside) + "/secret", filepath.Join(outside, "secret"), "link", "/etc/passwd"} {
		if _, err := callErr(th, "file", "read", v.Str(p)); err == nil {
			t.Errorf("read %s: want refusal", p)
		}
	}
	if _, err := callErr(th, "file", "write", v.Str("b.txt"), v.Str("x")); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("write: %v", err)
	}
	if got := call(t, th, "file", "exists", v.Str("a.txt")); got != v.True {
		t.Error("exists")
	}
	if got := call(t, th, "file", "glob", v.Str("*.txt")); got.String() != "[a.txt]" {
		t.Errorf("glob %s", got)
	}
}

func TestRuntimeCatch(t *testing.T) {
	boom := &v.Function{FuncName: "f", Impl: func(*v.Thread, []v.Value, []v.KV) (v.Value, error) {
		return nil, v.Errorf(errkind.Evaluation, "list index out of range: 0")
	}}
	if got := call(t, &v.Thread{}, "runtime", "catch", boom); got.String() != "list index out of range: 0" {
		t.Errorf("got %s", got)
	}
	limit := &v.Function{FuncName: "f", Impl: func(*v.Thread, []v.Value, []v.KV) (v.Value, error) {
		return nil, v.Errorf(errkind.Limit, "deadline")
	}}
	if _, err := callErr(&v.Thread{}, "runtime", "catch", limit); err == nil {
		t.Error("limits must not be caught")
	}
}

func TestYAMLStream(t *testing.T) {
	th := &v.Thread{}
	call(t, th, "manifests", "yaml_stream", v.NewList([]v.Value{v.DictOf("a", v.Int(1), "_b", v.Int(2)), v.Int(3), v.None}))
	if th.Manifests == nil || th.Manifests.YAML != "a: 1\n_b: 2\n---\n3\n---\nnull\n" {
		t.Errorf("got %+v", th.Manifests)
	}
}
