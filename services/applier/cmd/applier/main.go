// Command applier runs the applier service of flux-kcl-controller on its own.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/fluxcd/pkg/runtime/logger"
	"github.com/spf13/pflag"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/kcl-lang/flux-kcl-controller/internal/memorylimit"
	"github.com/kcl-lang/flux-kcl-controller/internal/natsconn"
	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
	"github.com/kcl-lang/flux-kcl-controller/services/applier"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run() error {
	var cfg applier.Config
	natsCfg := natsconn.DefaultConfig()
	var logOpts logger.Options
	workerCfg := workerclient.DefaultConfig()
	fs := pflag.CommandLine
	cfg.BindFlags(fs)
	workerCfg.BindFlags(fs)
	logOpts.BindFlags(fs)
	natsCfg.BindFlags(fs)
	memCfg := memorylimit.DefaultConfig(0)
	memCfg.BindFlags(fs)
	pflag.Parse()

	log := logger.NewLogger(logOpts)
	ctrl.SetLogger(log)
	if err := memCfg.Apply(log); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	restCfg, err := ctrl.GetConfig()
	if err != nil {
		return fmt.Errorf("loading kubeconfig: %w", err)
	}
	nc, err := natsCfg.Connect(natsconn.ApplierIdentity, cfg.Shard)
	if err != nil {
		return err
	}
	defer nc.Close()
	workers, err := workerclient.Dial(workerCfg)
	if err != nil {
		return fmt.Errorf("dialing the workers: %w", err)
	}
	defer workers.Close()

	svc, err := applier.New(cfg, applier.Deps{
		RESTConfig: restCfg,
		NATS:       nc,
		Compiler:   workers,
		Resolver:   workers,
		Logger:     log,
	})
	if err != nil {
		return err
	}
	return svc.Run(ctx)
}
