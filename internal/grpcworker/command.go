package grpcworker

import (
	"context"
	"fmt"
	"os"

	"github.com/fluxcd/pkg/runtime/logger"
	"github.com/go-logr/logr"
	"github.com/spf13/pflag"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/kcl-lang/flux-kcl-controller/internal/memorylimit"
)

// Service is a worker the command runs until it is signalled.
type Service interface {
	Run(ctx context.Context) error
}

// Main is the whole main of a worker binary (bin/compiler, bin/resolver): it binds the
// service's flags with the logging and memory-limit ones, parses the command line, builds
// the service with newService once the flags are read, and runs it until SIGTERM. A
// failure is printed as "name: error" and exits 1.
func Main(name string, flags interface{ BindFlags(*pflag.FlagSet) }, newService func(logr.Logger) (Service, error)) {
	flags.BindFlags(pflag.CommandLine)
	var logOpts logger.Options
	logOpts.BindFlags(pflag.CommandLine)
	memCfg := memorylimit.DefaultConfig(0)
	memCfg.BindFlags(pflag.CommandLine)
	pflag.Parse()
	log := logger.NewLogger(logOpts)

	err := memCfg.Apply(log)
	var svc Service
	if err == nil {
		svc, err = newService(log)
	}
	if err == nil {
		err = svc.Run(ctrl.SetupSignalHandler())
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
}
