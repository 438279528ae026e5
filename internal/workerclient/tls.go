package workerclient

import (
	"fmt"

	"google.golang.org/grpc/credentials"

	"github.com/kcl-lang/flux-kcl-controller/internal/tlsfiles"
)

// clientCredentials are the mutual-TLS credentials of the applier towards the workers.
func clientCredentials(cfg Config) (credentials.TransportCredentials, error) {
	r, err := tlsfiles.NewReloader(cfg.TLS)
	if err != nil {
		return nil, fmt.Errorf("worker TLS: %w", err)
	}
	tlsCfg, err := tlsfiles.ClientConfig(r, cfg.TLSServerName)
	if err != nil {
		return nil, fmt.Errorf("worker TLS: %w", err)
	}
	return credentials.NewTLS(tlsCfg), nil
}
