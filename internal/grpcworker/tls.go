package grpcworker

import (
	"fmt"

	"github.com/spf13/pflag"
	"google.golang.org/grpc/credentials"

	"github.com/kcl-lang/flux-kcl-controller/internal/tlsfiles"
)

// BindTLSFlags registers a worker's --grpc-tls-cert-file, --grpc-tls-key-file and
// --grpc-tls-ca-file on fs.
func BindTLSFlags(fs *pflag.FlagSet, files *tlsfiles.Files) {
	files.BindFlags(fs, "grpc-tls", "PEM CA bundle; clients (the applier) must present a certificate it signed. Empty serves TLS without client certificates.")
}

func serverCredentials(files tlsfiles.Files) (credentials.TransportCredentials, error) {
	r, err := tlsfiles.NewReloader(files)
	if err != nil {
		return nil, fmt.Errorf("gRPC TLS: %w", err)
	}
	cfg, err := tlsfiles.ServerConfig(r)
	if err != nil {
		return nil, fmt.Errorf("gRPC TLS: %w", err)
	}
	return credentials.NewTLS(cfg), nil
}
