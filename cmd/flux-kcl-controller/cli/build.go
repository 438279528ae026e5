package cli

import (
	"context"
	"errors"
	"io"
	"strings"

	ssautils "github.com/fluxcd/pkg/ssa/utils"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/localbuild"
	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/rundiff"
)

// renderFlags are the build flags diff shares: spec.config's options and --image-policy.
type renderFlags struct {
	opts   localbuild.Options
	config v1alpha1.ConfigSpec
}

func (f *renderFlags) bind(fs *pflag.FlagSet) {
	f.opts.Packages = localbuild.DefaultPackages()
	fs.StringArrayVar(&f.opts.PolicyFiles, "image-policy", nil, "A YAML file of ImagePolicy objects whose status.latestRef the markers follow (repeatable).")
	fs.StringArrayVarP(&f.opts.Arguments, "argument", "D", nil, "A top-level argument name=value, as kcl run -D and spec.config.arguments (repeatable).")
	fs.StringArrayVarP(&f.config.Settings, "setting", "Y", nil, "A settings file in the program folder, as kcl run -Y and spec.config.settings (repeatable).")
	fs.StringArrayVarP(&f.config.Overrides, "override", "O", nil, "An override such as app.image=\"v2\", as kcl run -O and spec.config.overrides (repeatable).")
	fs.StringArrayVarP(&f.config.PathSelectors, "path-selector", "S", nil, "A path selector such as a.b.c, as kcl run -S and spec.config.pathSelectors (repeatable).")
	fs.BoolVar(&f.config.SortKeys, "sort-keys", false, "Sort the keys of the output, as spec.config.sortKeys.")
	fs.BoolVar(&f.config.ShowHidden, "show-hidden", false, "Keep hidden (_-prefixed) attributes, as spec.config.showHidden.")
	fs.BoolVar(&f.config.DisableNone, "disable-none", false, "Drop None values from the output, as spec.config.disableNone.")
	fs.BoolVar(&f.opts.Vendor, "vendor", false, "Use the program's vendored KCL packages only, as spec.config.vendor; never touch the network.")
	fs.StringToStringVarP(&f.opts.External, "external", "E", nil, "A KCL package name=folder, as kcl run -E: wins over kcl.mod, never fetched (repeatable). The engine then runs directly: the controller has no -E (a settings file's package_maps is its way).")
	fs.BoolVar(&f.opts.NoCrossNamespaceRefs, "no-cross-namespace-refs", false, "Refuse policies in other namespaces, as the controller flag does.")
	f.opts.Packages.BindFlags(fs)
}

// merged is the KCLRun's spec.config (if any) with the flags' options added.
func (f *renderFlags) merged(run *v1alpha1.KCLRun) *v1alpha1.ConfigSpec {
	c := &v1alpha1.ConfigSpec{}
	if run != nil && run.Spec.Config != nil {
		c = run.Spec.Config.DeepCopy()
	}
	c.Settings = append(c.Settings, f.config.Settings...)
	c.Overrides = append(c.Overrides, f.config.Overrides...)
	c.PathSelectors = append(c.PathSelectors, f.config.PathSelectors...)
	c.SortKeys = c.SortKeys || f.config.SortKeys
	c.ShowHidden = c.ShowHidden || f.config.ShowHidden
	c.DisableNone = c.DisableNone || f.config.DisableNone
	return c
}

func newBuildCommand(g *globals) *cobra.Command {
	var f renderFlags
	var kclrun string
	cmd := &cobra.Command{
		Use:   "build DIR",
		Short: "Render a KCL program as a KCLRun would",
		Long: `Render the KCL program in DIR with the controller's own resolver and compiler, in this process:
$imagepolicy markers resolved from --image-policy files (or the cluster's ImagePolicies with
--kubeconfig/--context or --kclrun), every spec.config option as a flag. With --kclrun NAME the
KCLRun's config, arguments (its ConfigMaps and Secrets) and policies come from the cluster,
an ImageRollout governing a policy gives the image of the KCLRun's stage (what it holds back
is said on stderr), and the objects are printed as the controller applies them (target namespace, common
metadata, owner labels). Secret-sourced argument values are masked in the output.`,
		Example: `  flux-kcl-controller build ./program -D env=prod -Y settings.yaml
  flux-kcl-controller build ./repo --path ./dev -Y kcl.yaml
  flux-kcl-controller build ./program --kclrun web -n demo`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := g.context()
			defer cancel()
			if len(f.opts.External) > 0 {
				return g.buildExternal(ctx, cmd, &f, kclrun, args[0])
			}
			objects, sensitive, err := g.render(ctx, cmd, &f, kclrun, args[0])
			if err != nil {
				return err
			}
			rundiff.Mask(objects, sensitive)
			text, err := ssautils.ObjectsToYAML(objects)
			if err != nil {
				return err
			}
			_, err = io.WriteString(g.streams.Out, strings.TrimSuffix(text, "---\n"))
			return err
		},
	}
	f.bind(cmd.Flags())
	cmd.Flags().StringVar(&f.opts.Path, "path", "", "The program folder inside DIR, as the KCLRun's spec.path: DIR then stands for the whole artifact, and settings files and the entry files they list may lie anywhere in it (a base/overlay layout), never outside it.")
	cmd.Flags().StringVar(&kclrun, "kclrun", "", "Take config, arguments and policies from this KCLRun (in -n) and print the objects as the controller applies them.")
	_ = cmd.RegisterFlagCompletionFunc("kclrun", g.completeKCLRuns)
	return cmd
}

// buildExternal is a build with -E packages, which only the engine itself takes.
func (g *globals) buildExternal(ctx context.Context, cmd *cobra.Command, f *renderFlags, kclrun, dir string) error {
	if kclrun != "" {
		return errors.New("-E cannot be combined with --kclrun: the controller reads given packages from a settings file's package_maps")
	}
	opts := f.opts
	opts.Dir, opts.Namespace, opts.Config = dir, g.namespace(), f.merged(nil)
	if cmd.Flags().Changed("kubeconfig") || cmd.Flags().Changed("context") {
		c, err := g.kubeClient()
		if err != nil {
			return err
		}
		opts.Cluster = c
	}
	return localbuild.Build(ctx, opts, g.streams.Out, g.streams.Err)
}

// render builds DIR, with the KCLRun's inputs when kclrun names one; it also returns the
// Secret-sourced argument values, to mask.
func (g *globals) render(ctx context.Context, cmd *cobra.Command, f *renderFlags, kclrun, dir string) ([]*unstructured.Unstructured, []string, error) {
	flags := cmd.Flags()
	if kclrun == "" && !flags.Changed("kubeconfig") && !flags.Changed("context") {
		opts := f.opts
		opts.Dir, opts.Namespace, opts.Config = dir, g.namespace(), f.merged(nil)
		objects, err := localbuild.BuildObjects(ctx, opts, g.streams.Err)
		return objects, nil, err
	}
	c, err := g.kubeClient()
	if err != nil {
		return nil, nil, err
	}
	var run *v1alpha1.KCLRun
	if kclrun != "" {
		if run, err = getRun(ctx, c, types.NamespacedName{Namespace: g.namespace(), Name: kclrun}); err != nil {
			return nil, nil, err
		}
	}
	return g.renderFor(ctx, f, c, run, g.namespace(), dir)
}

// renderFor builds DIR against the cluster c, with run's config, arguments, registry
// credentials and object preparation when run is not nil.
func (g *globals) renderFor(ctx context.Context, f *renderFlags, c client.Client, run *v1alpha1.KCLRun, namespace, dir string) ([]*unstructured.Unstructured, []string, error) {
	opts := f.opts
	opts.Dir = dir
	opts.Namespace = namespace
	opts.Cluster = c
	if run != nil {
		if err := rundiff.WithRun(ctx, c, run, &opts); err != nil {
			return nil, nil, describe(err, "reading the inputs of KCLRun "+run.Namespace+"/"+run.Name)
		}
		opts.Namespace = namespace
	}
	opts.Config = f.merged(run)
	objects, err := localbuild.BuildObjects(ctx, opts, g.streams.Err)
	if err != nil {
		return nil, nil, err
	}
	return objects, rundiff.SensitiveValues(opts.ReferencedArguments), nil
}
