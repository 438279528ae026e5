package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/ui"
)

func newUICommand(g *globals) *cobra.Command {
	var addr, healthAddr, auth, userHeader, groupHeader string
	cmd := &cobra.Command{
		Use:   "ui",
		Short: "Serve the web view of KCLRuns and image rollouts",
		Long: `Serve the web view: an overview of the KCLRuns by state, a list of all of them, a page per
KCLRun (conditions, source, inventory tree with health, events, image moves, history, diff)
and per ImageRollout, updated live, with reconcile, suspend, resume and approve.

Locally it acts as you, with your kubeconfig, on 127.0.0.1 only. In the cluster (the chart's
ui.enabled) every request acts as the signed-in user: --auth=proxy impersonates the user an
authenticating proxy names in --user-header/--group-header, --auth=token uses the bearer token
the browser sends. See docs/web-view.md.`,
		Example: `  flux-kcl-controller ui
  flux-kcl-controller ui --context prod --address 127.0.0.1:8081`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := g.restConfig()
			if err != nil {
				return err
			}
			own, err := g.kubeClient()
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return ui.Serve(ctx, ui.Options{
				Config: cfg, Auth: ui.Auth(auth), UserHeader: userHeader, GroupHeader: groupHeader,
				Cluster:       g.contextName(),
				HealthAddress: healthAddr,
				Namespaces:    g.candidateNamespaces(own),
			}, addr, g.streams.Out)
		},
	}
	cmd.Flags().StringVar(&addr, "address", "127.0.0.1:9080", "the address to serve on (loopback only with --auth=kubeconfig)")
	cmd.Flags().StringVar(&healthAddr, "health-address", "", "where to answer /healthz and /readyz (kubelet's probes in the cluster); off when empty")
	cmd.Flags().StringVar(&auth, "auth", string(ui.AuthKubeconfig), "who the requests act as: kubeconfig (you), proxy (the user an authenticating proxy names) or token (the browser's bearer token)")
	cmd.Flags().StringVar(&userHeader, "user-header", "X-Forwarded-User", "with --auth=proxy, the only header that names the user")
	cmd.Flags().StringVar(&groupHeader, "group-header", "X-Forwarded-Groups", "with --auth=proxy, the only header that names the user's groups")
	return cmd
}

// candidateNamespaces are where the view looks for a user who may list neither KCLRuns
// cluster-wide nor namespaces: every namespace this process may list (in the cluster, the
// view's ServiceAccount may; each is then tried as the user), else the -n namespace.
func (g *globals) candidateNamespaces(own client.Client) func(context.Context) ([]string, error) {
	return func(ctx context.Context) ([]string, error) {
		var list corev1.NamespaceList
		if err := own.List(ctx, &list); err != nil {
			return []string{g.namespace()}, nil
		}
		names := make([]string, 0, len(list.Items))
		for _, ns := range list.Items {
			names = append(names, ns.Name)
		}
		return names, nil
	}
}

// contextName is the kubeconfig context the view shows, or "in-cluster".
func (g *globals) contextName() string {
	if g.kube.Context != nil && *g.kube.Context != "" {
		return *g.kube.Context
	}
	if raw, err := g.kube.ToRawKubeConfigLoader().RawConfig(); err == nil && raw.CurrentContext != "" {
		return raw.CurrentContext
	}
	return "in-cluster"
}
