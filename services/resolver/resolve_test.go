package resolver

import (
	"context"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	programv1 "github.com/kcl-lang/flux-kcl-controller/proto/program/v1"
	resolverv1 "github.com/kcl-lang/flux-kcl-controller/proto/resolver/v1"
)

func TestResolveReportsNoMarkersYet(t *testing.T) {
	s, err := New(DefaultConfig(), Deps{})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := s.Resolve(context.Background(), &resolverv1.ResolveRequest{
		Program:   &programv1.Program{Artifact: &programv1.ArtifactRef{Url: "http://x/a.tar.gz", Digest: "sha256:0"}},
		Namespace: "default",
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.GetResolved())+len(resp.GetHeld())+len(resp.GetMissing())+len(resp.GetPolicies()) != 0 || resp.GetError() != nil {
		t.Fatalf("got %v, want an empty response", resp)
	}
	_, err = s.Resolve(context.Background(), &resolverv1.ResolveRequest{})
	if status.Code(err) != codes.InvalidArgument {
		t.Fatalf("empty request: got %v, want InvalidArgument", err)
	}
}
