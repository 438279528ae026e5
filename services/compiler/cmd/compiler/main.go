// Command compiler runs the compiler worker on its own.
package main

import (
	"fmt"
	"os"

	"github.com/fluxcd/pkg/runtime/logger"
	"github.com/spf13/pflag"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/kcl-lang/flux-kcl-controller/internal/memorylimit"
	"github.com/kcl-lang/flux-kcl-controller/services/compiler"
)

func main() {
	cfg := compiler.DefaultConfig()
	cfg.BindFlags(pflag.CommandLine)
	var logOpts logger.Options
	logOpts.BindFlags(pflag.CommandLine)
	memCfg := memorylimit.DefaultConfig(0)
	memCfg.BindFlags(pflag.CommandLine)
	pflag.Parse()
	log := logger.NewLogger(logOpts)

	err := memCfg.Apply(log)
	var svc *compiler.Service
	if err == nil {
		svc, err = compiler.New(cfg, compiler.Deps{Logger: log})
	}
	if err == nil {
		err = svc.Run(ctrl.SetupSignalHandler())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "compiler:", err)
		os.Exit(1)
	}
}
