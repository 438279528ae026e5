package resolver

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	resolverv1 "github.com/kcl-lang/flux-kcl-controller/proto/resolver/v1"
)

// Resolve implements resolverv1.ResolverServer. For now every program is
// reported marker-free, so the compiler runs it as written.
func (s *Service) Resolve(ctx context.Context, req *resolverv1.ResolveRequest) (*resolverv1.ResolveResponse, error) {
	artifact := req.GetProgram().GetArtifact()
	if artifact.GetUrl() == "" || artifact.GetDigest() == "" {
		return nil, status.Error(codes.InvalidArgument, "program.artifact.url and program.artifact.digest are required")
	}
	if req.GetNamespace() == "" {
		return nil, status.Error(codes.InvalidArgument, "namespace is required")
	}
	s.requests.WithLabelValues("resolved").Inc()
	return &resolverv1.ResolveResponse{}, nil
}
