package cli

import (
	"context"
	"errors"
	"io"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/rundiff"
)

func newDiffCommand(g *globals) *cobra.Command {
	diff := &cobra.Command{Use: "diff", Short: "Diff a KCLRun's program against the cluster"}
	var f renderFlags
	var all diffAllFlags
	var path string
	run := &cobra.Command{
		Use:     "kclrun (NAME | --all --source KIND/NAME) --path DIR",
		Aliases: []string{"kclruns", "kr"},
		Short:   "Diff a local copy of a KCLRun's program against the cluster",
		Long: `Compile DIR with the KCLRun's own config, arguments (ConfigMaps, Secrets) and the cluster's
ImagePolicies, server-side dry-run the objects against the cluster and print each object that
would be created or changed (Secret data masked) and those that would be pruned, as flux diff
kustomization does.

With --all --source KIND/NAME, DIR is a checkout of that source (a pull request's head, say):
every KCLRun of the namespace (-n, or any namespace with -A) that uses the source, in -n, is
compiled from DIR at its own spec.path. -o markdown writes one pull-request comment: a
collapsed section per KCLRun, program errors with their file:line, cut with a note to stay
within a comment's 65,536 characters.

Exit status: 0 No differences were found. 1 Differences were found. >1 diff failed with an error.`,
		Example: `  flux-kcl-controller diff kclrun web -n demo --path ./program
  flux-kcl-controller diff kclrun --all --source GitRepository/fleet -n flux-system -A --path . -o markdown`,
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: g.completeKCLRuns,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(f.opts.External) > 0 {
				return &ExitError{Code: 2, Err: errors.New("-E is not supported by diff: the controller reads given packages from a settings file's package_maps")}
			}
			if path == "" {
				return &ExitError{Code: 2, Err: errors.New("--path is required: the local program folder")}
			}
			if err := all.check(args); err != nil {
				return &ExitError{Code: 2, Err: err}
			}
			var changed bool
			var err error
			if all.all {
				changed, err = g.diffAll(&f, all, path)
			} else {
				changed, err = g.diff(cmd, &f, args[0], path)
			}
			if err != nil {
				return &ExitError{Code: 2, Err: err}
			}
			if changed {
				return &ExitError{Code: 1, Err: errors.New("identified at least one change, exiting with non-zero exit code")}
			}
			return nil
		},
	}
	run.Flags().StringVar(&path, "path", "", "the local folder of the KCLRun's program (its spec.path); with --all, the checkout of the source")
	all.bind(run)
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
	return diffObjects(ctx, c, run, objects, sensitive, g.streams.Out)
}

// diffObjects dry-runs the rendered objects of run with `rundiff` (the web view's diff too)
// and writes what an apply and prune would change; it reports whether anything would.
func diffObjects(ctx context.Context, c client.Client, run *v1alpha1.KCLRun, objects []*unstructured.Unstructured, sensitive []string, out io.Writer) (bool, error) {
	changed, err := rundiff.Diff(ctx, c, run, objects, sensitive, out)
	if err != nil {
		return changed, describe(err, "diffing KCLRun "+run.Namespace+"/"+run.Name)
	}
	return changed, nil
}
