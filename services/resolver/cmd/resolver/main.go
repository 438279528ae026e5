// Command resolver runs the resolver worker on its own.
package main

import (
	"github.com/go-logr/logr"

	"github.com/kcl-lang/flux-kcl-controller/internal/grpcworker"
	"github.com/kcl-lang/flux-kcl-controller/services/resolver"
)

func main() {
	cfg := resolver.DefaultConfig()
	grpcworker.Main("resolver", &cfg, func(log logr.Logger) (grpcworker.Service, error) {
		return resolver.New(cfg, resolver.Deps{Logger: log})
	})
}
