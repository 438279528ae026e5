package cli

import (
	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/inventorytree"
)

func newTreeCommand(g *globals) *cobra.Command {
	tree := &cobra.Command{Use: "tree", Short: "Print the objects KCLRuns manage"}
	run := &cobra.Command{
		Use:     "kclrun NAME",
		Aliases: []string{"kclruns", "kr"},
		Short:   "Print the inventory of a KCLRun as a tree",
		Long: `Print the objects a KCLRun applied (its status.inventory) as flux tree kustomization does;
the Kustomizations, HelmReleases and KCLRuns among them are followed into their own objects.`,
		Example:           "  flux-kcl-controller tree kclrun web -n demo",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: g.completeKCLRuns,
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.tree(args[0])
		},
	}
	tree.AddCommand(run)
	return tree
}

func (g *globals) tree(name string) error {
	c, err := g.kubeClient()
	if err != nil {
		return err
	}
	ctx, cancel := g.context()
	defer cancel()
	key := types.NamespacedName{Namespace: g.namespace(), Name: name}
	run, err := getRun(ctx, c, key)
	if err != nil {
		return err
	}
	root, err := inventorytree.Build(ctx, c, run)
	if err != nil {
		return describe(err, "reading the inventory of KCLRun "+key.String())
	}
	return inventorytree.Print(g.streams.Out, root)
}
