package install_test

import (
	"fmt"
	"strings"

	"github.com/fluxcd/pkg/runtime/logger"
	"github.com/spf13/pflag"

	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/allinone"
	"github.com/kcl-lang/flux-kcl-controller/internal/natsconn"
	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
	"github.com/kcl-lang/flux-kcl-controller/services/applier"
	"github.com/kcl-lang/flux-kcl-controller/services/compiler"
	"github.com/kcl-lang/flux-kcl-controller/services/resolver"
	"github.com/kcl-lang/flux-kcl-controller/services/watcher"
)

// serviceFlags is what a service's main parses, bound to the services' own flag sets, so a
// flag the chart or kustomize passes that the binary does not know fails the tests.
type serviceFlags struct {
	Watcher  watcher.Config
	Applier  applier.Config
	Workers  workerclient.Config
	Compiler compiler.Config
	Resolver resolver.Config
	AllInOne allinone.Config
	NATS     natsconn.Config
}

// parseArgs parses the container args of the binary (watcher, resolver, compiler, applier or
// flux-kcl-controller) as its main does.
func parseArgs(binary string, args []string) (*serviceFlags, error) {
	f := &serviceFlags{
		Watcher: watcher.DefaultConfig(), Applier: applier.DefaultConfig(), Workers: workerclient.DefaultConfig(),
		Compiler: compiler.DefaultConfig(), Resolver: resolver.DefaultConfig(), AllInOne: allinone.DefaultConfig(),
		NATS: natsconn.DefaultConfig(),
	}
	fs := pflag.NewFlagSet(binary, pflag.ContinueOnError)
	var logOpts logger.Options
	logOpts.BindFlags(fs)
	switch binary {
	case "watcher":
		f.Watcher.BindFlags(fs)
		f.NATS.BindFlags(fs)
	case "applier":
		f.Applier.BindFlags(fs)
		f.Workers.BindFlags(fs)
		f.NATS.BindFlags(fs)
	case "compiler":
		f.Compiler.BindFlags(fs)
	case "resolver":
		f.Resolver.BindFlags(fs)
	case "flux-kcl-controller":
		if len(args) == 0 || args[0] != "all-in-one" {
			return nil, fmt.Errorf("flux-kcl-controller args %v: want the all-in-one command first", args)
		}
		args = args[1:]
		f.AllInOne.BindFlags(fs)
	default:
		return nil, fmt.Errorf("unknown binary %q", binary)
	}
	if err := fs.Parse(args); err != nil {
		return nil, fmt.Errorf("%s %s: %w", binary, strings.Join(args, " "), err)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("%s: unexpected arguments %v", binary, fs.Args())
	}
	return f, nil
}
