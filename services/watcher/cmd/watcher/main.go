// Command watcher publishes reconcile requests for KCLRuns on NATS JetStream.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/fluxcd/pkg/runtime/logger"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/spf13/pflag"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/kcl-lang/flux-kcl-controller/internal/memorylimit"
	"github.com/kcl-lang/flux-kcl-controller/internal/natsconn"
	"github.com/kcl-lang/flux-kcl-controller/services/watcher"
)

func main() {
	cfg := watcher.DefaultConfig()
	natsCfg := natsconn.DefaultConfig()
	var logOpts logger.Options
	cfg.BindFlags(pflag.CommandLine)
	natsCfg.BindFlags(pflag.CommandLine)
	logOpts.BindFlags(pflag.CommandLine)
	memCfg := memorylimit.DefaultConfig(0)
	memCfg.BindFlags(pflag.CommandLine)
	pflag.CommandLine.AddGoFlagSet(flag.CommandLine) // --kubeconfig
	pflag.Parse()

	log := logger.NewLogger(logOpts)
	ctrl.SetLogger(log)
	if err := memCfg.Apply(log); err != nil {
		log.Error(err, "watcher failed")
		os.Exit(1)
	}
	if err := run(ctrl.SetupSignalHandler(), cfg, natsCfg); err != nil {
		log.Error(err, "watcher failed")
		os.Exit(1)
	}
}

func run(ctx context.Context, cfg watcher.Config, natsCfg natsconn.Config) error {
	restConfig, err := ctrl.GetConfig()
	if err != nil {
		return fmt.Errorf("loading kubeconfig: %w", err)
	}
	nc, err := natsCfg.Connect(natsconn.WatcherIdentity, cfg.Shard)
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return fmt.Errorf("creating JetStream client: %w", err)
	}
	svc, err := watcher.New(cfg, watcher.Deps{RestConfig: restConfig, JetStream: js, Logger: ctrl.Log})
	if err != nil {
		return err
	}
	return svc.Run(ctx)
}
