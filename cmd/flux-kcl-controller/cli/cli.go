// Package cli is the operator's command line of flux-kcl-controller: the verbs the flux CLI
// has for Kustomizations (get, reconcile, suspend, resume, events, tree, build, diff), for
// KCLRuns, with the same flags and output shapes, get, approve, suspend and resume for
// ImageRollouts, and the web view (ui, package ui). It talks to the cluster with
// controller-runtime's client and the project's API types; cmd/flux-kcl-controller only
// wires it.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/internal/kubescheme"
)

// defaultTimeout bounds one command, as flux's --timeout does.
const defaultTimeout = 5 * time.Minute

// pollInterval is how often reconcile and resume read the object while they wait.
const pollInterval = time.Second

// Streams are where a command reads and writes; tests pass buffers.
type Streams struct {
	In       io.Reader
	Out, Err io.Writer
}

// globals are the flags every verb shares: the kubeconfig flags (--kubeconfig, --context,
// -n/--namespace, …) and --timeout.
type globals struct {
	kube    *genericclioptions.ConfigFlags
	timeout time.Duration
	streams Streams
	// client and config are made once per command line.
	client client.WithWatch
	config *rest.Config
}

// ExitError ends the program with Code after printing Err (if any), as flux's
// RequestError does: diff exits 1 when it finds differences, 2 when it fails.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// NewRootCommand builds `flux-kcl-controller` with the operator verbs and the extra
// commands main adds (all-in-one, nats-config).
func NewRootCommand(streams Streams, extra ...*cobra.Command) *cobra.Command {
	g := &globals{kube: genericclioptions.NewConfigFlags(false), streams: streams}
	root := &cobra.Command{
		Use:           "flux-kcl-controller",
		Short:         "Deliver KCL programs with Flux, and operate the KCLRuns",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(streams.In)
	root.SetOut(streams.Out)
	root.SetErr(streams.Err)
	g.kube.AddFlags(root.PersistentFlags())
	root.PersistentFlags().DurationVar(&g.timeout, "timeout", defaultTimeout, "timeout for this operation")
	_ = root.RegisterFlagCompletionFunc("namespace", g.completeNamespaces)
	root.AddCommand(
		newGetCommand(g),
		newReconcileCommand(g),
		newSuspendCommand(g),
		newResumeCommand(g),
		newEventsCommand(g),
		newTreeCommand(g),
		newBuildCommand(g),
		newDiffCommand(g),
		newApproveCommand(g),
		newUICommand(g),
	)
	root.AddCommand(extra...)
	return root
}

// Execute runs the command line and returns the exit code; an error is printed as one
// line ("✗ …"), never a stack trace.
func Execute(root *cobra.Command, args []string, stderr io.Writer) int {
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return 0
	}
	var exit *ExitError
	if errors.As(err, &exit) {
		if exit.Err != nil {
			mark := "✗"
			if exit.Code == 1 {
				mark = "⚠️"
			}
			fmt.Fprintf(stderr, "%s %s\n", mark, oneLine(exit.Err.Error()))
		}
		return exit.Code
	}
	fmt.Fprintf(stderr, "✗ %s\n", oneLine(err.Error()))
	return 1
}

// oneLine keeps an error message on one line (the apiserver's may span several).
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

// kubeClient connects once per command line.
func (g *globals) kubeClient() (client.WithWatch, error) {
	if g.client != nil {
		return g.client, nil
	}
	cfg, err := g.restConfig()
	if err != nil {
		return nil, err
	}
	scheme, err := kubescheme.New()
	if err != nil {
		return nil, err
	}
	c, err := client.NewWithWatch(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, fmt.Errorf("connecting to the cluster: %w", err)
	}
	g.client = c
	return c, nil
}

func (g *globals) restConfig() (*rest.Config, error) {
	if g.config != nil {
		return g.config, nil
	}
	cfg, err := g.kube.ToRESTConfig()
	if err != nil {
		return nil, fmt.Errorf("loading the kubeconfig: %w", err)
	}
	cfg.QPS, cfg.Burst = 50, 100
	cfg.WarningHandler = rest.NoWarnings{}
	g.config = cfg
	return cfg, nil
}

// namespace is -n, else the kubeconfig context's namespace, else "default".
func (g *globals) namespace() string {
	if g.kube.Namespace != nil && *g.kube.Namespace != "" {
		return *g.kube.Namespace
	}
	if ns, _, err := g.kube.ToRawKubeConfigLoader().Namespace(); err == nil && ns != "" {
		return ns
	}
	return "default"
}

// context is bounded by --timeout.
func (g *globals) context() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), g.timeout)
}

// logger prints flux's progress marks on stderr.
type logger struct{ w io.Writer }

func (l logger) action(format string, a ...any)  { fmt.Fprintf(l.w, "► "+format+"\n", a...) }
func (l logger) success(format string, a ...any) { fmt.Fprintf(l.w, "✔ "+format+"\n", a...) }
func (l logger) waiting(format string, a ...any) { fmt.Fprintf(l.w, "◎ "+format+"\n", a...) }
func (l logger) warning(format string, a ...any) { fmt.Fprintf(l.w, "⚠️ "+format+"\n", a...) }

func (g *globals) log() logger { return logger{w: g.streams.Err} }
