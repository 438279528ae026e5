package cli

import (
	"fmt"
	"regexp"
	"sort"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/duration"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
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
	var list corev1.EventList
	err = c.List(ctx, &list, client.InNamespace(key.Namespace), client.MatchingFieldsSelector{Selector: fields.AndSelectors(
		fields.OneTermEqualSelector("involvedObject.kind", v1alpha1.KCLRunKind),
		fields.OneTermEqualSelector("involvedObject.name", name),
	)})
	if err != nil {
		return describe(err, "listing the events of KCLRun "+key.String())
	}
	events := list.Items
	sort.SliceStable(events, func(i, j int) bool { return lastSeen(events[i]).Before(lastSeen(events[j])) })
	if len(events) == 0 {
		g.log().warning("no events found for KCLRun %s", key)
		return nil
	}
	var moves [][]string
	for _, e := range events {
		if e.Reason == v1alpha1.ImageUpdatedReason {
			moves = append(moves, []string{age(e), imageMove(e.Message)})
		}
	}
	if len(moves) > 0 {
		printTable(g.streams.Out, []string{"LAST SEEN", "IMAGE MOVED"}, moves)
		fmt.Fprintln(g.streams.Out)
	}
	var rows [][]string
	for _, e := range events {
		rows = append(rows, []string{age(e), e.Type, e.Reason, e.InvolvedObject.Kind + "/" + e.InvolvedObject.Name, oneLine(e.Message)})
	}
	printTable(g.streams.Out, []string{"LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"}, rows)
	return nil
}

// moveMessage is the applier's "from → to (policy ns/name, file:line)".
var moveMessage = regexp.MustCompile(`^(\S+) → (\S+) \(policy ([^,]+), ([^)]+)\)$`)

// imageMove shortens an ImageUpdated message to "nginx:1.7.8 → 1.7.9, policy demo/web at
// main.k:12"; another message stays as it is.
func imageMove(msg string) string {
	m := moveMessage.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	return fmt.Sprintf("%s → %s, policy %s at %s", m[1], imageTail(m[1], m[2]), m[3], m[4])
}

func lastSeen(e corev1.Event) time.Time {
	switch {
	case e.Series != nil && !e.Series.LastObservedTime.IsZero():
		return e.Series.LastObservedTime.Time
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	}
	return e.FirstTimestamp.Time
}

// age is kubectl's "LAST SEEN": 5m, or 5m (x3 over 1h).
func age(e corev1.Event) string {
	t := lastSeen(e)
	if t.IsZero() {
		return "<unknown>"
	}
	s := since(metav1.NewTime(t))
	if e.Count > 1 && !e.FirstTimestamp.IsZero() {
		s = fmt.Sprintf("%s (x%d over %s)", s, e.Count, since(e.FirstTimestamp))
	}
	return s
}

func since(t metav1.Time) string { return duration.HumanDuration(now().Sub(t.Time)) }
