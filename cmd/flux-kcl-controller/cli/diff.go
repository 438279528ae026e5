package cli

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/fluxcd/cli-utils/pkg/object"
	"github.com/fluxcd/pkg/ssa"
	ssautils "github.com/fluxcd/pkg/ssa/utils"
	"github.com/pmezard/go-difflib/difflib"
	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"github.com/kcl-lang/flux-kcl-controller/internal/applyrules"
	"github.com/kcl-lang/flux-kcl-controller/internal/inventory"
)

func newDiffCommand(g *globals) *cobra.Command {
	diff := &cobra.Command{Use: "diff", Short: "Diff a KCLRun's program against the cluster"}
	var f renderFlags
	var path string
	run := &cobra.Command{
		Use:     "kclrun NAME --path DIR",
		Aliases: []string{"kclruns", "kr"},
		Short:   "Diff a local copy of a KCLRun's program against the cluster",
		Long: `Compile DIR with the KCLRun's own config, arguments (ConfigMaps, Secrets) and the cluster's
ImagePolicies, server-side dry-run the objects against the cluster and print each object that
would be created or changed (Secret data masked) and those that would be pruned, as flux diff
kustomization does.

Exit status: 0 No differences were found. 1 Differences were found. >1 diff failed with an error.`,
		Example:           "  flux-kcl-controller diff kclrun web -n demo --path ./program",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: g.completeKCLRuns,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(f.opts.External) > 0 {
				return &ExitError{Code: 2, Err: errors.New("-E is not supported by diff: the controller reads given packages from a settings file's package_maps")}
			}
			if path == "" {
				return &ExitError{Code: 2, Err: errors.New("--path is required: the local program folder")}
			}
			changed, err := g.diff(cmd, &f, args[0], path)
			if err != nil {
				return &ExitError{Code: 2, Err: err}
			}
			if changed {
				return &ExitError{Code: 1, Err: errors.New("identified at least one change, exiting with non-zero exit code")}
			}
			return nil
		},
	}
	run.Flags().StringVar(&path, "path", "", "the local folder of the KCLRun's program (its spec.path)")
	f.bind(run.Flags())
	diff.AddCommand(run)
	return diff
}

func (g *globals) diff(cmd *cobra.Command, f *renderFlags, name, dir string) (bool, error) {
	ctx, cancel := g.context()
	defer cancel()
	objects, sensitive, err := g.render(ctx, cmd, f, name, dir)
	if err != nil {
		return false, err
	}
	c, err := g.kubeClient()
	if err != nil {
		return false, err
	}
	run, err := getRun(ctx, c, types.NamespacedName{Namespace: g.namespace(), Name: name})
	if err != nil {
		return false, err
	}
	mgr := ssa.NewResourceManager(c, nil, applyrules.Owner)
	opts := applyrules.Diff(run)
	sort.Sort(ssa.SortableUnstructureds(objects))
	out := g.streams.Out
	changed := false
	var errs []error
	for _, obj := range objects {
		entry, live, merged, err := mgr.Diff(ctx, obj, opts)
		if err != nil {
			errs = append(errs, describe(err, "dry-run of "+ssautils.FmtUnstructured(obj)))
			continue
		}
		switch entry.Action {
		case ssa.SkippedAction:
			fmt.Fprintf(out, "► %s skipped\n", entry.Subject)
		case ssa.CreatedAction:
			fmt.Fprintf(out, "► %s created\n", entry.Subject)
			changed = true
		case ssa.ConfiguredAction:
			fmt.Fprintf(out, "► %s drifted\n", entry.Subject)
			if err := writeDiff(out, live, merged, sensitive); err != nil {
				return changed, err
			}
			changed = true
		}
	}
	if len(errs) > 0 {
		return changed, errors.Join(errs...)
	}
	if run.Spec.Prune {
		rendered, err := inventory.FromObjects(objects)
		if err != nil {
			return changed, err
		}
		stale, err := inventory.Stale(run.Status.Inventory, rendered)
		if err != nil {
			return changed, err
		}
		for _, o := range stale {
			live, err := getObject(ctx, c, object.UnstructuredToObjMetadata(o), o.GroupVersionKind().Version)
			if err != nil {
				return changed, err
			}
			if live == nil || !applyrules.Prunable(run, live) {
				continue
			}
			fmt.Fprintf(out, "► %s deleted\n", ssautils.FmtUnstructured(o))
			changed = true
		}
	}
	return changed, nil
}

// writeDiff prints a unified diff of the live object and the dry-run result, without the
// server's bookkeeping; Secret data comes masked from the manager.
func writeDiff(w io.Writer, live, merged *unstructured.Unstructured, sensitive []string) error {
	a, err := diffYAML(live, sensitive)
	if err != nil {
		return err
	}
	b, err := diffYAML(merged, sensitive)
	if err != nil {
		return err
	}
	text, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: difflib.SplitLines(a), B: difflib.SplitLines(b),
		FromFile: "live", ToFile: "merged", Context: 3,
	})
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, text)
	return err
}

func diffYAML(u *unstructured.Unstructured, sensitive []string) (string, error) {
	u = u.DeepCopy()
	maskObjects([]*unstructured.Unstructured{u}, sensitive)
	for _, f := range []string{"managedFields", "resourceVersion", "generation", "uid", "creationTimestamp"} {
		unstructured.RemoveNestedField(u.Object, "metadata", f)
	}
	unstructured.RemoveNestedField(u.Object, "status")
	data, err := yaml.Marshal(u.Object)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(string(data), "\n") + "\n", nil
}
