package compiler

import (
	"fmt"
	"testing"

	compilerv1 "github.com/kcl-lang/flux-kcl-controller/proto/compiler/v1"
	programv1 "github.com/kcl-lang/flux-kcl-controller/proto/program/v1"
)

func TestResultCacheEvictsLeastRecentlyUsed(t *testing.T) {
	object := &compilerv1.Object{Json: make([]byte, 1000)}
	c := newResultCache(3500)
	for i := range 3 {
		c.put(fmt.Sprint(i), &compilerv1.CompileResponse{Objects: []*compilerv1.Object{object}})
	}
	if _, ok := c.get("0"); !ok { // 0 becomes the most recent
		t.Fatal("entry 0 missing")
	}
	c.put("3", &compilerv1.CompileResponse{Objects: []*compilerv1.Object{object}})
	if _, ok := c.get("1"); ok {
		t.Error("entry 1 should have been evicted")
	}
	for _, k := range []string{"0", "2", "3"} {
		if _, ok := c.get(k); !ok {
			t.Errorf("entry %s missing", k)
		}
	}
	c.put("huge", &compilerv1.CompileResponse{Objects: []*compilerv1.Object{{Json: make([]byte, 5000)}}})
	if _, ok := c.get("huge"); ok || c.len() != 3 {
		t.Error("an entry bigger than the cache must not be stored")
	}
}

func TestCacheKeyCoversInputs(t *testing.T) {
	base := func() *compilerv1.CompileRequest {
		return &compilerv1.CompileRequest{
			Program:   &programv1.Program{Artifact: &programv1.ArtifactRef{Url: "http://a/x.tar.gz", Revision: "r1", Digest: "sha256:1"}},
			Config:    &compilerv1.Config{Arguments: []string{"a=1"}},
			Arguments: []*compilerv1.Argument{{Name: "s", Value: "x", Sensitive: true}},
		}
	}
	key := cacheKey(base(), ".")
	same := base()
	same.Program.Artifact.Url = "http://b/y.tar.gz" // same content elsewhere
	same.Program.Artifact.Revision = "r2"
	same.Kclrun = "ns/other"
	if cacheKey(same, ".") != key {
		t.Error("URL, revision and caller must not change the key")
	}
	for name, change := range map[string]func(*compilerv1.CompileRequest){
		"digest":       func(r *compilerv1.CompileRequest) { r.Program.Artifact.Digest = "sha256:2" },
		"arguments":    func(r *compilerv1.CompileRequest) { r.Config.Arguments = []string{"a=2"} },
		"split":        func(r *compilerv1.CompileRequest) { r.Config.Arguments = []string{"a=", "1"} },
		"secret":       func(r *compilerv1.CompileRequest) { r.Arguments[0].Value = "y" },
		"sort keys":    func(r *compilerv1.CompileRequest) { r.Config.SortKeys = true },
		"substitution": func(r *compilerv1.CompileRequest) { r.Substitutions = []*programv1.Substitution{{File: "main.k"}} },
	} {
		r := base()
		change(r)
		if cacheKey(r, ".") == key {
			t.Errorf("%s does not change the key", name)
		}
	}
	if cacheKey(base(), "sub") == key {
		t.Error("path does not change the key")
	}
}
