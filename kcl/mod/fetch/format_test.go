package fetch_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/kcl-lang/flux-kcl-controller/kcl/mod"
	"github.com/kcl-lang/flux-kcl-controller/kcl/mod/fetch"
	"github.com/kcl-lang/flux-kcl-controller/kcl/mod/registrytest"
)

// The pushed manifest looks like kpm's: artifact and layer types, the layer's
// title, the package annotations with kpm's sum.
func TestPushWritesKpmsFormat(t *testing.T) {
	reg := registrytest.Start(t)
	files := registrytest.K8sLike("1.29")
	reg.Push(t, "kcl-lang/k8s:1.29", files)
	ref, err := name.ParseReference(reg.Host + "/kcl-lang/k8s:1.29")
	if err != nil {
		t.Fatal(err)
	}
	desc, err := remote.Get(ref)
	if err != nil {
		t.Fatal(err)
	}
	var m v1.Manifest
	if err := json.Unmarshal(desc.Manifest, &m); err != nil {
		t.Fatal(err)
	}
	sum, err := mod.Sum(registrytest.WriteFiles(t, files))
	if err != nil {
		t.Fatal(err)
	}
	if m.MediaType != "application/vnd.oci.image.manifest.v1+json" || m.ArtifactType != fetch.MediaTypeLayerTarGzip ||
		m.Config.MediaType != fetch.MediaTypeEmptyConfig || len(m.Layers) != 1 ||
		m.Layers[0].MediaType != fetch.MediaTypeLayerTarGzip || m.Layers[0].Annotations[fetch.AnnotationTitle] != "k8s_1.29.tgz" ||
		m.Annotations[fetch.AnnotationName] != "k8s" || m.Annotations[fetch.AnnotationVersion] != "1.29" ||
		m.Annotations[fetch.AnnotationDescription] != "a tiny k8s" || m.Annotations[fetch.AnnotationSum] != sum ||
		m.Annotations[fetch.AnnotationCreated] == "" {
		t.Fatalf("manifest %s", desc.Manifest)
	}
}

// Packages pushed by kpm before 2026 (uncompressed tar layer) are read too.
func TestLegacyUncompressedPackagesAreRead(t *testing.T) {
	reg := registrytest.Start(t)
	files := registrytest.K8sLike("1.28")
	dir := registrytest.WriteFiles(t, files)
	if _, err := fetch.Push(context.Background(), dir, reg.Host+"/kcl-lang/k8s:1.28", fetch.PushOptions{Legacy: true}); err != nil {
		t.Fatal(err)
	}
	store := newStore(t, reg, nil)
	se := store.Session(nil)
	defer se.Release()
	got, err := se.Fetch(context.Background(), mod.Source{Kind: mod.OCISource, Registry: "ghcr.io", Repository: "kcl-lang/k8s", Tag: "1.28"})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := mod.Sum(dir)
	if got.Sum != want {
		t.Fatalf("sum %s, want %s", got.Sum, want)
	}
}
