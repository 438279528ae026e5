package kcl

import (
	"context"
	"errors"
)

// run is replaced by the real pipeline as the engine lands.
func run(ctx context.Context, opts Options) (*Result, error) {
	return nil, errors.New("kcl: engine not implemented yet")
}
