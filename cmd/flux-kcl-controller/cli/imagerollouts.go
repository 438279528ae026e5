package cli

import (
	"fmt"

	"github.com/spf13/cobra"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/runstatus"
)

// newGetImageRolloutsCommand is `get imagerollouts`; it shares get's flags.
func newGetImageRolloutsCommand(g *globals, f *getFlags) *cobra.Command {
	return &cobra.Command{
		Use:     "imagerollouts [NAME]",
		Aliases: []string{"imagerollout", "imgro"},
		Short:   "Get ImageRollout statuses",
		Long: `Print the ImageRollouts of a namespace (or all, -A) as flux get does: the target rolling
out, the last good image, each stage's state (✔ passed, ► progressing with KCLRuns ready/total,
◎ baking, ⏸ awaiting approval, ❄ frozen, ✗ failed, · pending), suspended, ready and message.`,
		Example: `  flux-kcl-controller get imagerollouts -n platform
  flux-kcl-controller get imagerollouts -A --status-selector ready!=true`,
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: g.completeImageRollouts,
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.getImageRollouts(*f, args)
		},
	}
}

func (g *globals) getImageRollouts(f getFlags, args []string) error {
	filter, c, opts, err := g.listing(f, args)
	if err != nil {
		return err
	}
	ctx, cancel := g.context()
	defer cancel()
	row := func(obj client.Object) []string {
		ro, ok := obj.(*v1alpha1.ImageRollout)
		if !ok || !filter(ro.Status.Conditions) {
			return nil
		}
		return rolloutRow(ro, f.allNamespaces)
	}
	if f.watch {
		return g.watchRows(ctx, c, v1alpha1.ImageRolloutKind, &v1alpha1.ImageRolloutList{}, rolloutHeader(f.allNamespaces), f.noHeader, opts, row)
	}
	var list v1alpha1.ImageRolloutList
	if err := c.List(ctx, &list, opts...); err != nil {
		return describe(err, "listing ImageRollouts")
	}
	if len(list.Items) == 0 {
		if len(args) == 1 {
			return fmt.Errorf("ImageRollout %q not found in %s", args[0], g.where(f))
		}
		g.log().warning("no ImageRollout objects found in %s", g.where(f))
		return nil
	}
	var rows [][]string
	for i := range list.Items {
		if r := row(&list.Items[i]); r != nil {
			rows = append(rows, r)
		}
	}
	var header []string
	if !f.noHeader {
		header = rolloutHeader(f.allNamespaces)
	}
	printTable(g.streams.Out, header, rows)
	return nil
}

func rolloutHeader(allNamespaces bool) []string {
	h := []string{"NAME", "TARGET", "LAST GOOD", "STAGES", "SUSPENDED", "READY", "AGE", "MESSAGE"}
	if allNamespaces {
		h = append([]string{"NAMESPACE"}, h...)
	}
	return h
}

// rolloutRow is one ImageRollout: images as status spells them (digests cut to 8), the
// stages on one line.
func rolloutRow(ro *v1alpha1.ImageRollout, allNamespaces bool) []string {
	status, msg := runstatus.ReadyCondition(ro.Status.Conditions)
	suspended := "False"
	if ro.Spec.Suspend {
		suspended = "True"
	}
	row := []string{
		ro.Name,
		orDash(runstatus.TruncateHex(ro.Status.Target.String())),
		orDash(runstatus.TruncateHex(ro.Status.LastGood.String())),
		runstatus.StageSummary(ro),
		suspended, status, since(ro.CreationTimestamp), runstatus.TruncateHex(msg),
	}
	if allNamespaces {
		row = append([]string{ro.Namespace}, row...)
	}
	return row
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
