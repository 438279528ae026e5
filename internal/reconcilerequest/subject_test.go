package reconcilerequest

import (
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/internal/shard"
)

func TestSubjectRoundTrip(t *testing.T) {
	cases := []struct{ namespace, name, subject string }{
		{"default", "app", "fkc.v1.reconcile.default.app"},
		{"flux-system", "podinfo.prod", "fkc.v1.reconcile.flux-system.podinfo_prod"},
		{"ns", "a_b%c*>", "fkc.v1.reconcile.ns.a%5Fb%25c%2A%3E"},
		{"ns", "Upper Case", "fkc.v1.reconcile.ns.%55pper%20%43ase"},
	}
	for _, c := range cases {
		got := Subject("", c.namespace, c.name)
		if got != c.subject {
			t.Errorf("Subject(%q, %q) = %q, want %q", c.namespace, c.name, got, c.subject)
		}
		ns, name, err := ParseSubject("", got)
		if err != nil {
			t.Fatalf("ParseSubject(%q): %v", got, err)
		}
		if ns != c.namespace || name != c.name {
			t.Errorf("ParseSubject(%q) = %q, %q; want %q, %q", got, ns, name, c.namespace, c.name)
		}
	}
}

func TestParseSubjectRejects(t *testing.T) {
	for _, s := range []string{
		"other.default.app",
		"fkc.v1.reconcile.default",
		"fkc.v1.reconcile.a.b.c",
		"fkc.v1.reconcile.ns.bad%2",
		"fkc.v1.reconcile.ns.bad%ZZ",
	} {
		if _, _, err := ParseSubject("", s); err == nil {
			t.Errorf("ParseSubject(%q) succeeded, want an error", s)
		}
	}
}

func TestDecodeRejectsUnknownVersion(t *testing.T) {
	if _, err := Decode([]byte(`{"version":2,"namespace":"a","name":"b","reason":"Created"}`)); err == nil {
		t.Fatal("Decode accepted version 2")
	}
	data, err := Encode(Request{Namespace: "a", Name: "b", Reason: ReasonCreated, Revision: "main@sha1:abc"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if r.Version != SchemaVersion || r.Revision != "main@sha1:abc" || r.Reason != ReasonCreated {
		t.Fatalf("round trip lost fields: %+v", r)
	}
}

func TestShardSubjects(t *testing.T) {
	subject := Subject("shard1", "flux-system", "podinfo.prod")
	if want := "fkc.v1.shard.shard1.reconcile.flux-system.podinfo_prod"; subject != want {
		t.Fatalf("Subject = %q, want %q", subject, want)
	}
	if ns, name, err := ParseSubject("shard1", subject); err != nil || ns != "flux-system" || name != "podinfo.prod" {
		t.Fatalf("ParseSubject = %q, %q, %v", ns, name, err)
	}
	for _, other := range []shard.Name{"", "shard2"} {
		if _, _, err := ParseSubject(other, subject); err == nil {
			t.Errorf("shard %q parsed shard1's subject", other)
		}
	}
}
