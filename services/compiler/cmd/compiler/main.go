// Command compiler runs the compiler worker on its own.
package main

import (
	"github.com/go-logr/logr"

	"github.com/kcl-lang/flux-kcl-controller/internal/grpcworker"
	"github.com/kcl-lang/flux-kcl-controller/services/compiler"
)

func main() {
	cfg := compiler.DefaultConfig()
	grpcworker.Main("compiler", &cfg, func(log logr.Logger) (grpcworker.Service, error) {
		return compiler.New(cfg, compiler.Deps{Logger: log})
	})
}
