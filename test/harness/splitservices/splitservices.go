// Package splitservices starts what the process-level suites (test/faults, test/tenancy, test/shards)
// share: a real kube-apiserver and the split services built as binaries, the build
// running while the apiserver starts.
package splitservices

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/kcl-lang/flux-kcl-controller/test/harness/kube"
)

const module = "github.com/kcl-lang/flux-kcl-controller/"

// Compiler, Resolver, Watcher and Applier are the services' main packages.
const (
	Compiler = module + "services/compiler/cmd/compiler"
	Resolver = module + "services/resolver/cmd/resolver"
	Watcher  = module + "services/watcher/cmd/watcher"
	Applier  = module + "services/applier/cmd/applier"
	// JournaledApplier is the applier that also writes the reconcile journal (loadtest/fault).
	JournaledApplier = module + "loadtest/fault/cmd/journaled-applier"
)

// Suite is a started apiserver and a folder of built binaries, named as their packages' last element.
type Suite struct {
	Env *kube.Env
	Bin string
}

// Start builds pkgs (one go build, one shared cache) into a temporary folder while the
// apiserver starts; Stop removes both.
func Start(ctx context.Context, pkgs ...string) (*Suite, error) {
	bin, err := os.MkdirTemp("", "fkc-services-bin-")
	if err != nil {
		return nil, err
	}
	start := time.Now()
	built := make(chan error, 1)
	go func() { built <- build(bin, pkgs) }()
	env, err := kube.Start(ctx)
	if err = errors.Join(err, <-built); err != nil {
		if env != nil {
			_ = env.Stop()
		}
		_ = os.RemoveAll(bin)
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "apiserver started and services built in %s\n", time.Since(start).Round(time.Millisecond))
	return &Suite{Env: env, Bin: bin}, nil
}

// Stop stops the apiserver and removes the binaries.
func (s *Suite) Stop() error {
	return errors.Join(s.Env.Stop(), os.RemoveAll(s.Bin))
}

func build(dir string, pkgs []string) error {
	cmd := exec.Command("go", append([]string{"build", "-o", dir + string(filepath.Separator)}, pkgs...)...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("building the services: %w", err)
	}
	return nil
}
