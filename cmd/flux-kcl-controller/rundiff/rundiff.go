// Package rundiff compares a KCLRun's program with the cluster, as `flux-kcl-controller diff`
// prints it and the web view shows it: the program is compiled with the KCLRun's own inputs
// (config, argument ConfigMaps and Secrets, registry credentials, ImagePolicies), each object is
// server-side dry-run with the applier's rules (internal/applyrules), and what would be
// created, changed or pruned is written out, Secret values masked.
package rundiff

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/fluxcd/cli-utils/pkg/object"
	"github.com/fluxcd/pkg/ssa"
	ssautils "github.com/fluxcd/pkg/ssa/utils"
	"github.com/pmezard/go-difflib/difflib"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/inventorytree"
	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/localbuild"
	"github.com/kcl-lang/flux-kcl-controller/internal/applyrules"
	"github.com/kcl-lang/flux-kcl-controller/internal/arguments"
	"github.com/kcl-lang/flux-kcl-controller/internal/inventory"
	"github.com/kcl-lang/flux-kcl-controller/internal/objectprep"
	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
)

// WithRun fills opts with run's inputs as the controller reads them from the cluster: its
// arguments (ConfigMaps and Secrets), its registry credentials, and the preparation of the
// objects as the applier applies them (target namespace, common metadata, owner labels).
// The caller sets opts.Config (run's spec.config, with whatever it adds).
func WithRun(ctx context.Context, c client.Client, run *v1alpha1.KCLRun, opts *localbuild.Options) error {
	key := run.Namespace + "/" + run.Name
	opts.Cluster = c
	opts.Run = run
	opts.Namespace = run.Namespace
	var err error
	if opts.ReferencedArguments, _, err = arguments.Read(ctx, c, run); err != nil {
		return fmt.Errorf("reading the arguments of KCLRun %s: %w", key, err)
	}
	if opts.RegistryCredentials, err = localbuild.ReadRegistryCredentials(ctx, c, run); err != nil {
		return fmt.Errorf("reading the registry secret of KCLRun %s: %w", key, err)
	}
	mapper := c.RESTMapper()
	opts.Prepare = func(objects []*unstructured.Unstructured) error {
		return objectprep.Prepare(run, mapper, objects)
	}
	return nil
}

// minMaskedLength spares very short values (a "1" would mask every digit).
const minMaskedLength = 3

// SensitiveValues are the Secret-sourced argument values, to mask wherever objects are shown.
func SensitiveValues(args []workerclient.Argument) []string {
	var values []string
	for _, a := range args {
		if a.Sensitive && len(a.Value) >= minMaskedLength {
			values = append(values, a.Value)
		}
	}
	return values
}

// Mask replaces every one of values in the objects' strings with ***.
func Mask(objects []*unstructured.Unstructured, values []string) {
	if len(values) == 0 {
		return
	}
	for _, o := range objects {
		o.Object = maskValue(o.Object, values).(map[string]any)
	}
}

func maskValue(v any, values []string) any {
	switch v := v.(type) {
	case string:
		for _, s := range values {
			v = strings.ReplaceAll(v, s, "***")
		}
		return v
	case map[string]any:
		for k, x := range v {
			v[k] = maskValue(x, values)
		}
		return v
	case []any:
		for i, x := range v {
			v[i] = maskValue(x, values)
		}
		return v
	}
	return v
}

// Diff dry-runs the rendered objects of run against the cluster as c's user and writes, as
// flux diff does, "► Kind/ns/name created|drifted|skipped|deleted", with a unified diff under
// each drifted object (Secret data masked by the manager, sensitive values by Mask). It
// reports whether anything would change.
func Diff(ctx context.Context, c client.Client, run *v1alpha1.KCLRun, objects []*unstructured.Unstructured, sensitive []string, out io.Writer) (bool, error) {
	mgr := ssa.NewResourceManager(c, nil, applyrules.Owner)
	opts := applyrules.Diff(run)
	sort.Sort(ssa.SortableUnstructureds(objects))
	changed := false
	var errs []error
	for _, obj := range objects {
		entry, live, merged, err := mgr.Diff(ctx, obj, opts)
		if err != nil {
			errs = append(errs, fmt.Errorf("dry-run of %s: %w", ssautils.FmtUnstructured(obj), err))
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
	if !run.Spec.Prune {
		return changed, nil
	}
	rendered, err := inventory.FromObjects(objects)
	if err != nil {
		return changed, err
	}
	stale, err := inventory.Stale(run.Status.Inventory, rendered)
	if err != nil {
		return changed, err
	}
	for _, o := range stale {
		live, err := inventorytree.Get(ctx, c, object.UnstructuredToObjMetadata(o), o.GroupVersionKind().Version)
		if err != nil {
			return changed, err
		}
		if live == nil || !applyrules.Prunable(run, live) {
			continue
		}
		fmt.Fprintf(out, "► %s deleted\n", ssautils.FmtUnstructured(o))
		changed = true
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
	Mask([]*unstructured.Unstructured{u}, sensitive)
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
