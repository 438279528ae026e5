package imagepolicy

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// policies is a Lookup over a fixed table: pure logic, no cluster.
type policies map[string]*LatestRef

func (p policies) lookup(_ context.Context, ns, name string) (*LatestRef, bool, error) {
	ref, ok := p[ns+"/"+name]
	return ref, ok, nil
}

func markersOf(t *testing.T, src string) []Marker {
	t.Helper()
	m, err := ScanFile("main.k", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestResolve(t *testing.T) {
	pol := policies{
		"flux-system/nginx": {Name: "nginx", Tag: "1.7.8"},
		"apps/nginx":        {Name: "docker.io/library/nginx", Tag: "1.7.9", Digest: "sha256:feed"},
		"apps/other":        {Name: "ghcr.io/evil/nginx", Tag: "6.6.6"},
		"apps/empty":        nil,
	}
	src := `a = "nginx:1.7.7"  # {"$imagepolicy": "flux-system:nginx"}
b = "nginx:1.7.7"  # {"$imagepolicy": "nginx"}
c = "1.7.7"  # {"$imagepolicy": "flux-system:nginx:tag"}
d = "index.docker.io/library/nginx"  # {"$imagepolicy": "apps:nginx:name"}
e = "sha256:0"  # {"$imagepolicy": "apps:nginx:digest"}
f = "nginx:1"  # {"$imagepolicy": "apps:other"}
g = "nginx:1"  # {"$imagepolicy": "apps:missing"}
h = "nginx:1"  # {"$imagepolicy": "apps:empty"}
`
	res, err := Resolve(context.Background(), markersOf(t, src), pol.lookup, Options{Namespace: "apps"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[int]string{}
	for _, s := range res.Substitutions {
		got[s.Line] = s.New
	}
	want := map[int]string{1: "nginx:1.7.8", 2: "nginx:1.7.9@sha256:feed", 3: "1.7.8", 4: "index.docker.io/library/nginx", 5: "sha256:feed"}
	for line, v := range want {
		if got[line] != v {
			t.Errorf("line %d: got %q, want %q", line, got[line], v)
		}
	}
	reasons := map[string]string{}
	for _, h := range res.Holds {
		reasons[h.Location] = h.Reason
	}
	if reasons["main.k:6"] != ReasonRepositoryMismatch || reasons["main.k:7"] != ReasonPolicyNotFound || reasons["main.k:8"] != ReasonPolicyNotReady {
		t.Errorf("holds: %+v", res.Holds)
	}
	for _, h := range res.Holds {
		if h.Reason == ReasonRepositoryMismatch && !(strings.Contains(h.Message, "ghcr.io/evil/nginx") && strings.Contains(h.Message, "main.k:6") && strings.Contains(h.Message, "apps/other")) {
			t.Errorf("mismatch message lacks policy, location or repositories: %s", h.Message)
		}
	}
	wantPolicies := "apps/empty apps/missing apps/nginx apps/other flux-system/nginx"
	if strings.Join(res.Policies, " ") != wantPolicies {
		t.Errorf("policies %v", res.Policies)
	}
}

func TestResolveCrossNamespaceLockdown(t *testing.T) {
	pol := policies{"flux-system/nginx": {Name: "nginx", Tag: "2"}}
	m := markersOf(t, `a = "nginx:1"  # {"$imagepolicy": "flux-system:nginx"}`+"\n")
	res, err := Resolve(context.Background(), m, pol.lookup, Options{Namespace: "apps", NoCrossNamespaceRefs: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Substitutions) != 0 || len(res.Holds) != 1 || res.Holds[0].Reason != ReasonCrossNamespaceRefused {
		t.Fatalf("want a cross-namespace hold, got %+v", res)
	}
}

func TestResolveRefusesHostileLatestRef(t *testing.T) {
	pol := policies{"apps/p": {Name: "nginx", Tag: `1" + x + "`}}
	m := markersOf(t, `a = "nginx:1"  # {"$imagepolicy": "apps:p"}`+"\n")
	res, _ := Resolve(context.Background(), m, pol.lookup, Options{Namespace: "apps"})
	if len(res.Holds) != 1 || res.Holds[0].Reason != ReasonInvalidLatestRef {
		t.Fatalf("want an invalid-latestRef hold, got %+v", res)
	}
}

func TestResolveLookupFailureIsAnError(t *testing.T) {
	boom := errors.New("apiserver down")
	m := markersOf(t, `a = "nginx:1"  # {"$imagepolicy": "apps:p"}`+"\n")
	_, err := Resolve(context.Background(), m, func(context.Context, string, string) (*LatestRef, bool, error) {
		return nil, false, boom
	}, Options{Namespace: "apps"})
	if !errors.Is(err, boom) {
		t.Fatalf("want the lookup error wrapped, got %v", err)
	}
}
