package grpcworker

import (
	"context"
	"fmt"
	"net"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/keepalive"
)

// maxConnectionAge bounds how long a client can miss a new replica: connections are
// recycled so clients re-resolve the service name (the DNS resolver does not poll).
const maxConnectionAge = 2 * time.Minute

// ConnectionOptions are the server options every worker needs: connections recycled
// every few minutes, in-flight calls given grace to finish, clients' keepalive pings
// welcome.
func ConnectionOptions(grace time.Duration) []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.KeepaliveParams(keepalive.ServerParameters{
			MaxConnectionAge:      maxConnectionAge,
			MaxConnectionAgeGrace: grace,
		}),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 10 * time.Second, PermitWithoutStream: true}),
	}
}

// Run listens on addr (empty serves no gRPC) and serves w until ctx ends.
func Run(ctx context.Context, addr string, w Worker) error {
	var lis net.Listener
	if addr != "" {
		var err error
		if lis, err = net.Listen("tcp", addr); err != nil {
			return fmt.Errorf("listening on %s: %w", addr, err)
		}
	}
	return Serve(ctx, lis, w)
}
