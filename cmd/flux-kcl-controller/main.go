// Command flux-kcl-controller runs flux-kcl-controller as one process.
//
//	flux-kcl-controller all-in-one [flags]   all four services with an embedded NATS server
//	flux-kcl-controller build DIR [flags]     render a program as a KCLRun would
//	flux-kcl-controller nats-config [flags]   the nats-server authorization for the split services
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/fluxcd/pkg/runtime/logger"
	"github.com/spf13/pflag"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/kcl-lang/flux-kcl-controller/internal/allinone"
)

const usage = `usage: flux-kcl-controller <command> [flags]

commands:
  all-in-one   run the watcher, applier, compiler and resolver in this process,
               with an embedded NATS server (JetStream) and in-process gRPC

  build DIR    render the KCL program in DIR as a KCLRun would, $imagepolicy markers
               resolved from --image-policy files (or the cluster with --kubeconfig)

  nats-config  print the nats-server authorization (users, permissions, tls) that gives
               the watcher and the applier only the subjects they need

Run 'flux-kcl-controller <command> --help' for the flags of a command.
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	switch os.Args[1] {
	case "all-in-one":
		if err := runAllInOne(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "flux-kcl-controller all-in-one:", err)
			os.Exit(1)
		}
	case "build":
		if err := runBuild(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "flux-kcl-controller build:", err)
			os.Exit(1)
		}
	case "nats-config":
		if err := runNATSConfig(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "flux-kcl-controller nats-config:", err)
			os.Exit(1)
		}
	case "-h", "--help", "help":
		fmt.Print(usage)
	default:
		fmt.Fprintf(os.Stderr, "unknown command %q\n\n%s", os.Args[1], usage)
		os.Exit(2)
	}
}

func runAllInOne(args []string) error {
	cfg := allinone.DefaultConfig()
	var logOpts logger.Options
	fs := pflag.NewFlagSet("all-in-one", pflag.ContinueOnError)
	cfg.BindFlags(fs)
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
