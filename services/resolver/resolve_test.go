package resolver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
)

const markedProgram = `import .lib

_web = "ghcr.io/org/web:1.0.0" # {"$imagepolicy": "apps:web"}
_tag = '2.0.0' # {"$imagepolicy": "flux-system:worker:tag"}
[{apiVersion = "v1", kind = "ConfigMap", metadata.name = "images", data = {web = _web, worker = _tag, db = lib.db}}]
`

func TestResolveAsksForMissingPoliciesThenResolves(t *testing.T) {
	w := startWorker(t)
	a := w.publish(t, "web", map[string]string{
		"deploy/main.k":     markedProgram,
		"deploy/lib/main.k": "db = \"postgres:15\" # {\"$imagepolicy\": \"db\"}\n",
	})
	in := workerclient.ResolveInput{Artifact: a, Path: "./deploy", Namespace: "apps"}
	ctx := context.Background()

	first, err := w.client.Resolve(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"apps/db", "apps/web", "flux-system/worker"}
	if strings.Join(first.Policies, ",") != strings.Join(want, ",") || strings.Join(first.Missing, ",") != strings.Join(want, ",") {
		t.Fatalf("policies %v, missing %v; want both %v", first.Policies, first.Missing, want)
	}
	if len(first.Holds) != 3 || first.Holds[0].Reason != "PolicyNotSupplied" || len(first.Resolutions) != 0 {
		t.Fatalf("holds %+v, resolutions %+v; want 3 PolicyNotSupplied holds", first.Holds, first.Resolutions)
	}

	known := policies{
		"apps/web":           {Name: "ghcr.io/org/web", Tag: "1.2.0"},
		"apps/db":            {Name: "postgres", Tag: "16.1"},
		"flux-system/worker": {Name: "ghcr.io/org/worker", Tag: "2.1.0"},
	}
	got, err := w.client.ResolveWithLookup(ctx, in, known.lookup)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Missing) != 0 || len(got.Holds) != 0 || len(got.Resolutions) != 3 {
		t.Fatalf("missing %v, holds %+v, %d resolutions; want 3 resolutions", got.Missing, got.Holds, len(got.Resolutions))
	}
	byPolicy := map[string]workerclient.Resolution{}
	for _, r := range got.Resolutions {
		byPolicy[r.Marker.Policy] = r
	}
	web := byPolicy["apps/web"]
	if web.Value != "ghcr.io/org/web:1.2.0" || web.Marker.Value != "ghcr.io/org/web:1.0.0" || web.Marker.Location() != "deploy/main.k:3" {
		t.Errorf("web resolution %+v", web)
	}
	if s := web.Substitution; s.File != "deploy/main.k" || s.Old != `"ghcr.io/org/web:1.0.0"` || s.New != `"ghcr.io/org/web:1.2.0"` ||
		markedProgram[s.Start:s.End] != s.Old {
		t.Errorf("web substitution %+v", s)
	}
	if s := byPolicy["flux-system/worker"].Substitution; s.Old != `'2.0.0'` || s.New != `'2.1.0'` {
		t.Errorf("tag substitution %+v keeps neither the value nor the quotes", s)
	}
	if db := byPolicy["apps/db"]; db.Substitution.File != "deploy/lib/main.k" || db.Value != "postgres:16.1" {
		t.Errorf("imported package's marker: %+v", db)
	}
}

func TestResolveHolds(t *testing.T) {
	w := startWorker(t)
	a := w.publish(t, "holds", map[string]string{"main.k": `_a = "nginx:1" # {"$imagepolicy": "apps:gone"}
_b = "nginx:1" # {"$imagepolicy": "apps:unready"}
_c = "nginx:1" # {"$imagepolicy": "other:web"}
_d = "nginx:1" # {"$imagepolicy": "apps:elsewhere"}
`})
	known := policies{"apps/unready": nil, "other/web": {Name: "nginx", Tag: "2"}, "apps/elsewhere": {Name: "ghcr.io/evil/nginx", Tag: "2"}}
	got, err := w.client.ResolveWithLookup(context.Background(), workerclient.ResolveInput{
		Artifact: a, Namespace: "apps", NoCrossNamespaceRefs: true,
	}, known.lookup)
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[int]string{}
	for _, h := range got.Holds {
		reasons[h.Marker.Line] = h.Reason
	}
	want := map[int]string{1: "PolicyNotFound", 2: "PolicyNotReady", 3: "CrossNamespace", 4: "RepositoryMismatch"}
	for line, reason := range want {
		if reasons[line] != reason {
			t.Errorf("line %d: held for %q, want %q", line, reasons[line], reason)
		}
	}
	if len(got.Resolutions) != 0 {
		t.Errorf("resolutions %+v, want none", got.Resolutions)
	}
}

func TestResolveMisplacedMarkerIsLocated(t *testing.T) {
	w := startWorker(t)
	a := w.publish(t, "misplaced", map[string]string{"main.k": "_n = 1\n_a = _n # {\"$imagepolicy\": \"apps:web\"}\n"})
	_, err := w.client.Resolve(context.Background(), workerclient.ResolveInput{Artifact: a, Namespace: "apps"})
	re, ok := err.(*workerclient.ResolveError)
	if !ok || re.Stage != "Scan" || re.File != "main.k" || re.Line != 2 {
		t.Fatalf("got %v (%T), want a Scan error at main.k:2", err, err)
	}
}

func TestResolveProgramWithoutMarkers(t *testing.T) {
	w := startWorker(t)
	a := w.publish(t, "plain", map[string]string{"main.k": "_a = \"nginx:1\" # pinned by hand\n"})
	got, err := w.client.Resolve(context.Background(), workerclient.ResolveInput{Artifact: a, Namespace: "apps"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Policies)+len(got.Missing)+len(got.Holds)+len(got.Resolutions) != 0 {
		t.Fatalf("got %+v, want nothing", got)
	}
}

func TestResolveArtifactFailure(t *testing.T) {
	w := startWorker(t)
	a := w.publish(t, "tampered", map[string]string{"main.k": "_a = 1\n"})
	a.Digest = "sha256:" + strings.Repeat("0", 64)
	_, err := w.client.Resolve(context.Background(), workerclient.ResolveInput{Artifact: a, Namespace: "apps"})
	if re, ok := err.(*workerclient.ResolveError); !ok || re.Stage != workerclient.StageArtifact || re.Kind != "ArtifactDigestMismatch" {
		t.Fatalf("got %v (%T), want an Artifact error of kind ArtifactDigestMismatch", err, err)
	}
}

// The kinds of the refusals that only a new revision changes, which the
// applier does not retry with backoff.
func TestResolveArtifactRefusalKinds(t *testing.T) {
	w := startWorker(t)
	a := w.publish(t, "elsewhere", map[string]string{"main.k": "_a = 1\n"})
	_, err := w.client.Resolve(context.Background(), workerclient.ResolveInput{Artifact: a, Path: "missing", Namespace: "apps"})
	if re, ok := err.(*workerclient.ResolveError); !ok || re.Kind != "PathNotFound" {
		t.Fatalf("got %v (%T), want an Artifact error of kind PathNotFound", err, err)
	}

	data, err := artifactserver.TarGz(map[string]string{"main.k": "_a = 1\n", "../escape.k": "_b = 1\n"})
	if err != nil {
		t.Fatal(err)
	}
	evil, err := w.artifacts.PublishBytes(artifactserver.ArtifactPath("GitRepository", "apps", "evil", ""), data, "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = w.client.Resolve(context.Background(), workerclient.ResolveInput{
		Artifact: workerclient.Artifact{URL: evil.URL, Revision: evil.Revision, Digest: evil.Digest}, Namespace: "apps"})
	if re, ok := err.(*workerclient.ResolveError); !ok || re.Kind != "ArtifactUnsafe" {
		t.Fatalf("got %v (%T), want an Artifact error of kind ArtifactUnsafe", err, err)
	}
}
