// Command journaled-applier is bin/applier with one more flag, --journal: every reconcile
// appends a line to that file when it enters and leaves its KCLRun's lease (see
// fault.Journal), so that fault tests and the load driver can prove that no KCLRun was
// ever reconciled by two processes at once, even across kills and restarts.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/fluxcd/pkg/runtime/logger"
	"github.com/nats-io/nats.go"
	"github.com/spf13/pflag"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
	"github.com/kcl-lang/flux-kcl-controller/loadtest/fault"
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
	var natsURL, journalPath string
	var logOpts logger.Options
	workerCfg := workerclient.DefaultConfig()
	fs := pflag.CommandLine
	cfg.BindFlags(fs)
	workerCfg.BindFlags(fs)
	logOpts.BindFlags(fs)
	fs.StringVar(&natsURL, "nats-url", nats.DefaultURL, "The NATS server carrying reconcile requests.")
	fs.StringVar(&journalPath, "journal", "", "Append a line to this file when a reconcile enters and leaves a KCLRun's lease.")
	pflag.Parse()
	if journalPath == "" {
		return fmt.Errorf("--journal is required")
	}

	log := logger.NewLogger(logOpts)
	ctrl.SetLogger(log)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	journal, err := fault.OpenJournal(journalPath)
	if err != nil {
		return err
	}
	defer journal.Close()
	restCfg, err := ctrl.GetConfig()
	if err != nil {
		return fmt.Errorf("loading kubeconfig: %w", err)
	}
	nc, err := nats.Connect(natsURL, nats.Name("applier"), nats.MaxReconnects(-1))
	if err != nil {
		return fmt.Errorf("connecting to NATS: %w", err)
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
		Hooks: applier.Hooks{
			Enter: journal.Enter,
			Exit:  func(key string, out applier.Outcome) { journal.Exit(key, out.Result) },
		},
	})
	if err != nil {
		return err
	}
	return svc.Run(ctx)
}
