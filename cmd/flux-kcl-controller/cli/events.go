package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/runevents"
)

// now is the clock the ages are computed from; tests fix it.
var now = time.Now

func newEventsCommand(g *globals) *cobra.Command {
	events := &cobra.Command{Use: "events", Short: "Display the events of KCLRuns"}
	run := &cobra.Command{
		Use:     "kclrun NAME",
		Aliases: []string{"kclruns", "kr"},
		Short:   "Display the events of a KCLRun",
		Long: `Print the events of a KCLRun as flux events does (LAST SEEN, TYPE, REASON, OBJECT,
MESSAGE), oldest first; the images the ImagePolicies moved are listed first, one line each.`,
		Example:           "  flux-kcl-controller events kclrun web -n demo",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: g.completeKCLRuns,
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.events(args[0])
		},
	}
	events.AddCommand(run)
	return events
}

func (g *globals) events(name string) error {
	c, err := g.kubeClient()
	if err != nil {
		return err
	}
	ctx, cancel := g.context()
	defer cancel()
	key := types.NamespacedName{Namespace: g.namespace(), Name: name}
	if _, err := getRun(ctx, c, key); err != nil {
		return err
	}
	events, err := runevents.List(ctx, c, key)
	if err != nil {
		return describe(err, "listing the events of KCLRun "+key.String())
	}
	if len(events) == 0 {
		g.log().warning("no events found for KCLRun %s", key)
		return nil
	}
	t := now()
	var moves [][]string
	for _, e := range events {
		if e.Reason == v1alpha1.ImageUpdatedReason {
			moves = append(moves, []string{runevents.Age(e, t), runevents.ImageMove(e.Message)})
		}
	}
	if len(moves) > 0 {
		printTable(g.streams.Out, []string{"LAST SEEN", "IMAGE MOVED"}, moves)
		fmt.Fprintln(g.streams.Out)
	}
	var rows [][]string
	for _, e := range events {
		rows = append(rows, []string{runevents.Age(e, t), e.Type, e.Reason, e.InvolvedObject.Kind + "/" + e.InvolvedObject.Name, oneLine(e.Message)})
	}
	printTable(g.streams.Out, []string{"LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"}, rows)
	return nil
}

// since is kubectl's age of t.
func since(t metav1.Time) string { return runevents.Since(t.Time, now()) }
