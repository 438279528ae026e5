package imagepolicy

import (
	"context"
	"testing"
	"testing/fstest"

	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
)

func TestRewriteChangesOnlyTheLiteral(t *testing.T) {
	src := "a = 'nginx:1.7.7'  # {\"$imagepolicy\": \"ns:nginx\"}\nb = \"nginx:1.7.7\"\n"
	pol := policies{"ns/nginx": {Name: "nginx", Tag: "1.7.8"}}
	res, err := Resolve(context.Background(), markersOf(t, src), pol.lookup, Options{Namespace: "ns"})
	if err != nil {
		t.Fatal(err)
	}
	out, err := Rewrite([]byte(src), res.Substitutions)
	if err != nil {
		t.Fatal(err)
	}
	want := "a = 'nginx:1.7.8'  # {\"$imagepolicy\": \"ns:nginx\"}\nb = \"nginx:1.7.7\"\n"
	if string(out) != want {
		t.Fatalf("got\n%s\nwant\n%s", out, want)
	}
}

// FuzzRewrite checks the property the resolver relies on: re-scanning a rewritten file
// yields the same token stream except for the replaced literal's value.
func FuzzRewrite(f *testing.F) {
	f.Add("x = {\n  image = \"nginx:1\" # {\"$imagepolicy\": \"ns:p\"}\n}\n", "nginx:2@sha256:ab")
	f.Add("a = 'r:1'  # {\"$imagepolicy\": \"p:tag\"}\nb = \"#\" # plain\n", "v2")
	f.Add("a = r\"x\\y\" # {\"$imagepolicy\": \"p\"}\n", "ghcr.io/o/x:1")
	f.Fuzz(func(t *testing.T, src, value string) {
		if _, err := ParseReference(value); err != nil {
			return
		}
		markers, err := ScanFile("f.k", []byte(src))
		if err != nil || len(markers) == 0 {
			return
		}
		var subs []Substitution
		for _, m := range markers {
			subs = append(subs, Substitution{Marker: m, New: value})
		}
		out, err := Rewrite([]byte(src), subs)
		if err != nil {
			t.Fatal(err)
		}
		before, _ := syntax.Scan("f.k", []byte(src))
		after, err := syntax.Scan("f.k", out)
		if err != nil {
			t.Fatalf("rewritten source does not scan: %v\n%s", err, out)
		}
		if len(before) != len(after) {
			t.Fatalf("token count %d -> %d\n%s\n%s", len(before), len(after), src, out)
		}
		replaced := map[int]bool{}
		for _, m := range markers {
			replaced[m.Start] = true
		}
		for i := range before {
			b, a := before[i], after[i]
			if b.Kind != a.Kind {
				t.Fatalf("token %d kind %v -> %v", i, b.Kind, a.Kind)
			}
			if replaced[b.Start] {
				if a.Value != value {
					t.Fatalf("literal %d decodes to %q, want %q", i, a.Value, value)
				}
				continue
			}
			if b.Kind != syntax.NEWLINE && b.Kind != syntax.INDENT && b.Kind != syntax.DEDENT && b.Text != a.Text {
				t.Fatalf("token %d changed: %q -> %q", i, b.Text, a.Text)
			}
		}
	})
}

func TestScanProgramFollowsLocalImports(t *testing.T) {
	fsys := fstest.MapFS{
		"repo/kcl.mod":              {Data: []byte("[package]\nname = \"app\"\n")},
		"repo/apps/web/main.k":      {Data: []byte("import base.images as img\nimport .local\nimport k8s.api.apps.v1\nx = img.web\n")},
		"repo/apps/web/local.k":     {Data: []byte("y = \"busybox:1\"  # {\"$imagepolicy\": \"ns:busybox\"}\n")},
		"repo/apps/web/main_test.k": {Data: []byte("z = \"skip:1\"  # {\"$imagepolicy\": \"ns:skip\"}\n")},
		"repo/base/images.k":        {Data: []byte("web = \"nginx:1\"  # {\"$imagepolicy\": \"ns:nginx\"}\n")},
		"repo/base/unused/x.k":      {Data: []byte("u = \"unused:1\"  # {\"$imagepolicy\": \"ns:unused\"}\n")},
	}
	markers, err := ScanProgram(fsys, "repo/apps/web")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range markers {
		got = append(got, m.File+"="+m.Policy.Name)
	}
	want := []string{"repo/apps/web/local.k=busybox", "repo/base/images.k=nginx"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("got %v, want %v", got, want)
	}
}
