package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/runstatus"
	"github.com/kcl-lang/flux-kcl-controller/internal/inventory"
)

type getFlags struct {
	allNamespaces  bool
	noHeader       bool
	watch          bool
	statusSelector string
	labelSelector  string
	output         string
}

func newGetCommand(g *globals) *cobra.Command {
	get := &cobra.Command{
		Use:   "get",
		Short: "Get KCLRuns and ImageRollouts and their status",
	}
	var f getFlags
	runs := &cobra.Command{
		Use:     "kclruns [NAME]",
		Aliases: []string{"kclrun", "kr"},
		Short:   "Get KCLRun statuses",
		Long: `Print the KCLRuns of a namespace (or all, -A) as flux get kustomizations does: name, applied
revision, suspended, ready and message, then the images the ImagePolicies moved, then the
objects found drifted (spec.driftDetection.mode: warn) and the JSON pointers that differ.`,
		Example: `  flux-kcl-controller get kclruns -n demo
  flux-kcl-controller get kclruns -A --status-selector ready=false
  flux-kcl-controller get kclrun web -n demo -o yaml`,
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: g.completeKCLRuns,
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.get(f, args)
		},
	}
	get.PersistentFlags().BoolVarP(&f.allNamespaces, "all-namespaces", "A", false, "list the requested object(s) across all namespaces")
	get.PersistentFlags().BoolVar(&f.noHeader, "no-header", false, "skip the header when printing the results")
	get.PersistentFlags().BoolVarP(&f.watch, "watch", "w", false, "After listing/getting the requested object, watch for changes.")
	get.PersistentFlags().StringVar(&f.statusSelector, "status-selector", "", "specify the status condition name and the desired state to filter the get result, e.g. ready=false or ready!=true")
	get.PersistentFlags().StringVarP(&f.labelSelector, "label-selector", "l", "", "filter objects by label selector")
	runs.Flags().StringVarP(&f.output, "output", "o", "", "print the objects as yaml or json instead of the table")
	get.AddCommand(runs, newGetImageRolloutsCommand(g, &f))
	return get
}

func (g *globals) get(f getFlags, args []string) error {
	if f.output != "" && f.output != "yaml" && f.output != "json" {
		return fmt.Errorf("unsupported output format %q: want yaml or json", f.output)
	}
	filter, c, opts, err := g.listing(f, args)
	if err != nil {
		return err
	}
	ctx, cancel := g.context()
	defer cancel()
	if f.watch {
		return g.watchRows(ctx, c, v1alpha1.KCLRunKind, &v1alpha1.KCLRunList{}, runHeader(f.allNamespaces), f.noHeader, opts, func(obj client.Object) []string {
			run, ok := obj.(*v1alpha1.KCLRun)
			if !ok || !filter(run.Status.Conditions) {
				return nil
			}
			return runRow(run, f.allNamespaces)
		})
	}
	var list v1alpha1.KCLRunList
	if err := c.List(ctx, &list, opts...); err != nil {
		return describe(err, "listing KCLRuns")
	}
	where := g.where(f)
	if len(list.Items) == 0 {
		if len(args) == 1 {
			return fmt.Errorf("KCLRun %q not found in %s", args[0], where)
		}
		g.log().warning("no KCLRun objects found in %s", where)
		return nil
	}
	if f.output != "" {
		return printObjects(g.streams.Out, f.output, list.Items)
	}
	var rows, held, drifted [][]string
	var images []string
	for i := range list.Items {
		run := &list.Items[i]
		if !filter(run.Status.Conditions) {
			continue
		}
		rows = append(rows, runRow(run, f.allNamespaces))
		images = append(images, imageLines(run, f.allNamespaces)...)
		held = append(held, heldRows(run, f.allNamespaces)...)
		drifted = append(drifted, driftRows(run, f.allNamespaces)...)
	}
	var header []string
	if !f.noHeader {
		header = runHeader(f.allNamespaces)
	}
	printTable(g.streams.Out, header, rows)
	if len(images) > 0 {
		fmt.Fprintln(g.streams.Out)
		var imgHeader []string
		if !f.noHeader {
			imgHeader = []string{"KCLRUN", "IMAGE", "POLICY", "LOCATION"}
		}
		var imgRows [][]string
		for _, l := range images {
			imgRows = append(imgRows, strings.Split(l, "\t"))
		}
		printTable(g.streams.Out, imgHeader, imgRows)
	}
	if len(held) > 0 {
		fmt.Fprintln(g.streams.Out)
		var heldHeader []string
		if !f.noHeader {
			heldHeader = []string{"KCLRUN", "IMAGE", "HELD BACK", "ROLLOUT", "STAGE"}
		}
		printTable(g.streams.Out, heldHeader, held)
	}
	if len(drifted) > 0 {
		fmt.Fprintln(g.streams.Out)
		var driftHeader []string
		if !f.noHeader {
			driftHeader = []string{"KCLRUN", "DRIFTED", "PATHS"}
		}
		printTable(g.streams.Out, driftHeader, drifted)
	}
	return nil
}

// driftRows are the objects found drifted: the KCLRun, Kind/namespace/name, the pointers.
func driftRows(run *v1alpha1.KCLRun, allNamespaces bool) [][]string {
	name := run.Name
	if allNamespaces {
		name = run.Namespace + "/" + run.Name
	}
	var rows [][]string
	for _, d := range run.Status.Drift {
		what := strings.Join(d.Paths, " ")
		if d.Deleted {
			what = "(deleted)"
		}
		rows = append(rows, []string{name, inventory.Subject(d.ID), what})
	}
	return rows
}

// listing is what every get starts from: the --status-selector filter, the client, and the
// list options (the namespace or -A, NAME and --label-selector).
func (g *globals) listing(f getFlags, args []string) (func([]metav1.Condition) bool, client.WithWatch, []client.ListOption, error) {
	filter, err := parseStatusSelector(f.statusSelector)
	if err != nil {
		return nil, nil, nil, err
	}
	c, err := g.kubeClient()
	if err != nil {
		return nil, nil, nil, err
	}
	opts, err := g.listOptions(f, args)
	return filter, c, opts, err
}

func (g *globals) listOptions(f getFlags, args []string) ([]client.ListOption, error) {
	var opts []client.ListOption
	if !f.allNamespaces {
		opts = append(opts, client.InNamespace(g.namespace()))
	}
	if len(args) == 1 {
		opts = append(opts, client.MatchingFieldsSelector{Selector: fields.OneTermEqualSelector("metadata.name", args[0])})
	}
	if f.labelSelector != "" {
		sel, err := metav1.ParseToLabelSelector(f.labelSelector)
		if err != nil {
			return nil, fmt.Errorf("unable to parse label selector: %w", err)
		}
		s, err := metav1.LabelSelectorAsSelector(sel)
		if err != nil {
			return nil, err
		}
		opts = append(opts, client.MatchingLabelsSelector{Selector: s})
	}
	return opts, nil
}

// where names what get listed, for "not found" and "no objects" messages.
func (g *globals) where(f getFlags) string {
	if f.allNamespaces {
		return "any namespace"
	}
	return fmt.Sprintf("%q namespace", g.namespace())
}

// watchRows prints the table once, then a row per change, as flux get --watch does, until
// --timeout ends it (not an error) or the command is interrupted. row returns nil for an
// object the filters leave out.
func (g *globals) watchRows(ctx context.Context, c client.WithWatch, kind string, list client.ObjectList, header []string, noHeader bool, opts []client.ListOption, row func(client.Object) []string) error {
	w, err := c.Watch(ctx, list, opts...)
	if err != nil {
		return describe(err, "watching "+kind+"s")
	}
	defer w.Stop()
	if noHeader {
		header = nil
	}
	for ev := range w.ResultChan() {
		switch ev.Type {
		case watch.Error:
			return describe(apierrors.FromObject(ev.Object), "watching "+kind+"s")
		case watch.Added, watch.Modified:
			obj, ok := ev.Object.(client.Object)
			if !ok {
				continue
			}
			if r := row(obj); r != nil {
				printTable(g.streams.Out, header, [][]string{r})
				header = nil
			}
		}
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return nil
	}
	return ctx.Err()
}

func runHeader(allNamespaces bool) []string {
	h := []string{"NAME", "REVISION", "SUSPENDED", "READY", "MESSAGE"}
	if allNamespaces {
		h = append([]string{"NAMESPACE"}, h...)
	}
	return h
}

// runRow is flux's kustomization row: revision and message with hex digests cut to 8.
func runRow(run *v1alpha1.KCLRun, allNamespaces bool) []string {
	status, msg := runstatus.ReadyCondition(run.Status.Conditions)
	suspended := "False"
	if run.Spec.Suspend {
		suspended = "True"
	}
	row := []string{run.Name, runstatus.TruncateHex(run.Status.LastAppliedRevision), suspended, status, runstatus.TruncateHex(msg)}
	if allNamespaces {
		row = append([]string{run.Namespace}, row...)
	}
	return row
}

// imageLines are the images the policies moved, one "kclrun\timage\tpolicy\tlocation" each.
func imageLines(run *v1alpha1.KCLRun, allNamespaces bool) []string {
	name := run.Name
	if allNamespaces {
		name = run.Namespace + "/" + run.Name
	}
	var lines []string
	for _, img := range run.Status.Images {
		lines = append(lines, strings.Join([]string{name, runstatus.ImageMove(img), img.Policy, img.Location}, "\t"))
	}
	return lines
}

// heldRows are the images ImageRollouts hold the KCLRun back from: what it runs, the
// rollout's target, the rollout and the KCLRun's stage ("-" when no stage selects it).
func heldRows(run *v1alpha1.KCLRun, allNamespaces bool) [][]string {
	name := run.Name
	if allNamespaces {
		name = run.Namespace + "/" + run.Name
	}
	var rows [][]string
	for _, given := range run.Status.ImageRollouts {
		if given.HeldBack == "" {
			continue
		}
		stage := given.Stage
		if stage == "" {
			stage = "-"
		}
		rows = append(rows, []string{name, runstatus.TruncateHex(given.Image), runstatus.TruncateHex(given.HeldBack), given.Rollout, stage})
	}
	return rows
}

// parseStatusSelector reads type=status or type!=status (case-insensitive), as flux does.
func parseStatusSelector(s string) (func([]metav1.Condition) bool, error) {
	if s == "" {
		return func([]metav1.Condition) bool { return true }, nil
	}
	sep, negate := "=", false
	if strings.Contains(s, "!=") {
		sep, negate = "!=", true
	}
	typ, want, ok := strings.Cut(s, sep)
	if !ok || typ == "" || want == "" {
		return nil, fmt.Errorf("expected status selector in type=status or type!=status format, but found: %s", s)
	}
	return func(conds []metav1.Condition) bool {
		matched := false
		for _, c := range conds {
			if strings.EqualFold(c.Type, typ) {
				matched = strings.EqualFold(string(c.Status), want)
			}
		}
		return matched != negate
	}, nil
}

// printObjects writes the KCLRuns as kubectl get -o does: one object as itself, several
// as a List.
func printObjects(w io.Writer, format string, items []v1alpha1.KCLRun) error {
	for i := range items {
		items[i].SetGroupVersionKind(v1alpha1.GroupVersion.WithKind(v1alpha1.KCLRunKind))
		items[i].ManagedFields = nil
	}
	var obj any = &items[0]
	if len(items) > 1 {
		obj = map[string]any{"apiVersion": "v1", "kind": "List", "items": items}
	}
	var out []byte
	var err error
	if format == "json" {
		out, err = json.MarshalIndent(obj, "", "    ")
		out = append(out, '\n')
	} else {
		out, err = yaml.Marshal(obj)
	}
	if err != nil {
		return err
	}
	_, err = w.Write(out)
	return err
}

// describe turns a client error into one sentence: what was done, and what went wrong.
func describe(err error, doing string) error {
	switch {
	case err == nil:
		return nil
	case apierrors.IsForbidden(err):
		return fmt.Errorf("%s: permission denied: %s", doing, apiMessage(err))
	case apierrors.IsUnauthorized(err):
		return fmt.Errorf("%s: the cluster did not accept the credentials: %s", doing, apiMessage(err))
	case apimeta.IsNoMatchError(err):
		kind := v1alpha1.KCLRunKind
		var noKind *apimeta.NoKindMatchError
		if errors.As(err, &noKind) {
			kind = noKind.GroupKind.Kind
		}
		return fmt.Errorf("%s: the cluster does not serve %ss (is the CRD installed?)", doing, kind)
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return fmt.Errorf("%s: %s", doing, apiMessage(err))
	}
	return fmt.Errorf("%s: cannot reach the cluster: %w", doing, err)
}

func apiMessage(err error) string {
	var status apierrors.APIStatus
	if errors.As(err, &status) && status.Status().Message != "" {
		return status.Status().Message
	}
	return err.Error()
}
