// Command flux-kcl-controller runs flux-kcl-controller as one process and operates
// KCLRuns, as the flux CLI does Kustomizations:
//
//	flux-kcl-controller all-in-one [flags]        all four services with an embedded NATS server
//	flux-kcl-controller nats-config [flags]       the nats-server authorization for the split services
//	flux-kcl-controller get kclruns [NAME]        statuses (and images moved by policies)
//	flux-kcl-controller reconcile kclrun NAME     request a reconcile, wait for its outcome
//	flux-kcl-controller suspend|resume kclrun …   stop and restart reconciling
//	flux-kcl-controller events|tree kclrun NAME   the events, the applied objects
//	flux-kcl-controller build DIR                 render a program as a KCLRun would
//	flux-kcl-controller diff kclrun NAME --path DIR
//
// Named kubectl-kcl (and kubectl_complete-kcl) it is a kubectl plugin, `kubectl kcl …`;
// named flux-kcl, a Flux CLI plugin (RFC-0013), `flux kcl …`: the same verbs (`make build`
// writes all three names).
//
// The operator verbs live in ./cli, the all-in-one process in ./allinone; main only wires
// the commands.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/fluxcd/pkg/runtime/logger"
	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	ctrl "sigs.k8s.io/controller-runtime"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/allinone"
	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/cli"
	"github.com/kcl-lang/flux-kcl-controller/internal/memorylimit"
)

func main() {
	// Started as kubectl-kcl, kubectl_complete-kcl or flux-kcl, it is a kubectl or flux plugin.
	inv := cli.Invoked(os.Args)
	if len(inv.Args) == 0 || inv.Args[0] != "all-in-one" {
		// The operator verbs log nothing through controller-runtime; all-in-one sets its own.
		ctrllog.SetLogger(logr.Discard())
	}
	streams := cli.Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}
	var servers []*cobra.Command
	if !inv.Plugin {
		servers = append(servers,
			passThrough("all-in-one", "Run the watcher, applier, compiler and resolver in this process, with an embedded NATS server (JetStream) and in-process gRPC", runAllInOne),
			passThrough("nats-config", "Print the nats-server authorization (users, permissions, tls) that gives the watcher and the applier only the subjects they need", runNATSConfig),
		)
	}
	root := cli.NewRootCommand(streams, servers...)
	inv.Name(root)
	os.Exit(cli.Execute(root, inv.Args, os.Stderr))
}

// passThrough is a command that parses its own flags (the services' flag sets).
func passThrough(name, short string, run func([]string) error) *cobra.Command {
	return &cobra.Command{
		Use:                name + " [flags]",
		Short:              short,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := run(args); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			return nil
		},
	}
}

// allInOneMemoryFallback is all-in-one's soft memory limit outside a limited cgroup.
const allInOneMemoryFallback = 400 << 20

func runAllInOne(args []string) error {
	cfg := allinone.DefaultConfig()
	var logOpts logger.Options
	// One process holds every service's caches: without a limit the heap grows to twice
	// the live heap (566 MiB RSS at 10,000 KCLRuns with 226 MiB live).
	memCfg := memorylimit.DefaultConfig(allInOneMemoryFallback)
	fs := pflag.NewFlagSet("all-in-one", pflag.ContinueOnError)
	cfg.BindFlags(fs)
	memCfg.BindFlags(fs)
	logOpts.BindFlags(fs)
	fs.AddGoFlagSet(flag.CommandLine) // --kubeconfig
	if err := fs.Parse(args); err != nil {
		if err == pflag.ErrHelp {
			return nil
		}
		return err
	}

	log := logger.NewLogger(logOpts)
	ctrl.SetLogger(log)
	if err := memCfg.Apply(log); err != nil {
		return err
	}
	restConfig, err := ctrl.GetConfig()
	if err != nil {
		return fmt.Errorf("loading kubeconfig: %w", err)
	}
	proc, err := allinone.New(cfg, allinone.Deps{RestConfig: restConfig, Logger: log})
	if err != nil {
		return err
	}
	return proc.Run(ctrl.SetupSignalHandler())
}
