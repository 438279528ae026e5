package imagepolicy

import (
	"errors"
	"strings"
	"testing"
)

func TestScanFileFindsMarkedLiterals(t *testing.T) {
	src := `import manifests

nginx_image = "nginx:1.7.7"  # {"$imagepolicy": "flux-system:nginx"}
pinned = "nginx:1.7.7"
note = "a # {\"$imagepolicy\": \"x:y\"} inside a string"
doc = """
multi # {"$imagepolicy": "x:y"}
"""
sidecar = 'busybox:1.36' # {"$imagepolicy": "tools:busybox:tag"}
bare = "app"  # {"$imagepolicy": "app"}
# {"$imagepolicy": "commented:out"} on its own line is documentation, not a marker?
`
	// A marker on its own line follows nothing: that is an error, tested below; drop it here.
	src = src[:strings.LastIndex(src, "# {")]
	markers, err := ScanFile("main.k", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(markers) != 3 {
		t.Fatalf("want 3 markers, got %+v", markers)
	}
	m := markers[0]
	if m.Literal != "nginx:1.7.7" || m.Line != 3 || m.Policy != (PolicyRef{Namespace: "flux-system", Name: "nginx"}) {
		t.Errorf("first marker %+v", m)
	}
	if got := src[m.Start:m.End]; got != `"nginx:1.7.7"` {
		t.Errorf("span %q", got)
	}
	if markers[1].Policy.Field != FieldTag || markers[1].Literal != "busybox:1.36" {
		t.Errorf("tag marker %+v", markers[1])
	}
	if markers[2].Policy.Namespace != "" || markers[2].Location() != "main.k:10" {
		t.Errorf("namespace-less marker %+v", markers[2])
	}
}

func TestScanFileRejectsMarkersOnNonLiterals(t *testing.T) {
	for name, src := range map[string]string{
		"number":       `replicas = 3  # {"$imagepolicy": "ns:p"}`,
		"interpolated": `image = "nginx:${tag}"  # {"$imagepolicy": "ns:p"}`,
		"nothing":      `# {"$imagepolicy": "ns:p"}`,
		"name":         `image = base  # {"$imagepolicy": "ns:p"}`,
		"bad suffix":   `image = "nginx:1"  # {"$imagepolicy": "ns:p:version"}`,
		"bad json":     `image = "nginx:1"  # {"$imagepolicy": ns:p}`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ScanFile("main.k", []byte(src+"\n"))
			var me *MarkerError
			if !errors.As(err, &me) {
				t.Fatalf("want a MarkerError, got %v", err)
			}
			if me.Line != 1 || !strings.HasPrefix(err.Error(), "main.k:1:") {
				t.Errorf("position: %v", err)
			}
		})
	}
}

func TestParsePolicyRef(t *testing.T) {
	for in, want := range map[string]PolicyRef{
		"p":              {Name: "p"},
		"ns:p":           {Namespace: "ns", Name: "p"},
		"ns:p:tag":       {Namespace: "ns", Name: "p", Field: FieldTag},
		"ns:p:digest":    {Namespace: "ns", Name: "p", Field: FieldDigest},
		"ns:p:name":      {Namespace: "ns", Name: "p", Field: FieldName},
		"flux-system:ab": {Namespace: "flux-system", Name: "ab"},
	} {
		got, err := ParsePolicyRef(in)
		if err != nil || got != want {
			t.Errorf("%q: got %+v, %v", in, got, err)
		}
		if got.String() != in {
			t.Errorf("%q prints as %q", in, got.String())
		}
	}
	for _, in := range []string{"", "ns:", ":p", "a:b:c:d", "ns:p:other"} {
		if _, err := ParsePolicyRef(in); err == nil {
			t.Errorf("%q: want an error", in)
		}
	}
}
