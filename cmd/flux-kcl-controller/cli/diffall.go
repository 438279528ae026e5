package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// diffAllFlags select the KCLRuns of one source, for a diff on every pull request.
type diffAllFlags struct {
	all           bool
	allNamespaces bool
	source        string
	output        string
}

func (f *diffAllFlags) bind(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.BoolVar(&f.all, "all", false, "diff every KCLRun that uses --source, each compiled from --path at its own spec.path")
	fs.BoolVarP(&f.allNamespaces, "all-namespaces", "A", false, "with --all, KCLRuns of any namespace (the source stays in -n)")
	fs.StringVar(&f.source, "source", "", "with --all, the source as KIND/NAME (GitRepository, OCIRepository, Bucket, ExternalArtifact) in -n")
	fs.StringVarP(&f.output, "output", "o", "", "with --all, markdown writes one pull-request comment instead of the text diff")
}

func (f diffAllFlags) check(args []string) error {
	switch {
	case !f.all && len(args) != 1:
		return errors.New("a KCLRun NAME, or --all --source KIND/NAME, is required")
	case !f.all && (f.source != "" || f.output != "" || f.allNamespaces):
		return errors.New("--source, -o and -A go with --all")
	case f.all && len(args) > 0:
		return errors.New("--all takes no KCLRun NAME")
	case f.all && f.source == "":
		return errors.New("--all needs --source KIND/NAME: the source whose checkout --path is")
	case f.output != "" && f.output != "markdown":
		return fmt.Errorf("unsupported output format %q: want markdown", f.output)
	}
	_, _, err := f.sourceRef()
	return err
}

// sourceRef is --source as kind and name.
func (f diffAllFlags) sourceRef() (kind, name string, err error) {
	if f.source == "" {
		return "", "", nil
	}
	kind, name, ok := strings.Cut(f.source, "/")
	if !ok || name == "" || strings.Contains(name, "/") {
		return "", "", fmt.Errorf("--source %q: want KIND/NAME, such as GitRepository/fleet", f.source)
	}
	for _, k := range []string{"GitRepository", "OCIRepository", "Bucket", "ExternalArtifact"} {
		if strings.EqualFold(kind, k) {
			return k, name, nil
		}
	}
	return "", "", fmt.Errorf("--source %q: kind %q is not GitRepository, OCIRepository, Bucket or ExternalArtifact", f.source, kind)
}

// runDiff is the diff of one KCLRun.
type runDiff struct {
	run     *v1alpha1.KCLRun
	text    string
	changed bool
	err     error
}

// diffAll diffs every KCLRun of the source, each compiled from dir at its spec.path, and
// writes them as text or one markdown comment. It reports whether anything would change;
// the error says how many KCLRuns could not be diffed (each one's error is in the output).
func (g *globals) diffAll(f *renderFlags, all diffAllFlags, dir string) (bool, error) {
	ctx, cancel := g.context()
	defer cancel()
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return false, fmt.Errorf("--path %q is not a folder", dir)
	}
	kind, name, _ := all.sourceRef()
	sourceNS := g.namespace()
	c, err := g.kubeClient()
	if err != nil {
		return false, err
	}
	var list v1alpha1.KCLRunList
	var opts []client.ListOption
	if !all.allNamespaces {
		opts = append(opts, client.InNamespace(sourceNS))
	}
	if err := c.List(ctx, &list, opts...); err != nil {
		return false, describe(err, "listing KCLRuns")
	}
	var diffs []runDiff
	for i := range list.Items {
		run := &list.Items[i]
		ref := run.Spec.SourceRef
		if ref.Kind != kind || ref.Name != name || run.SourceNamespace() != sourceNS {
			continue
		}
		diffs = append(diffs, g.diffOne(ctx, f, c, run, dir))
	}
	sort.Slice(diffs, func(i, j int) bool {
		return diffs[i].run.Namespace+"/"+diffs[i].run.Name < diffs[j].run.Namespace+"/"+diffs[j].run.Name
	})
	source := kind + "/" + sourceNS + "/" + name
	if all.output == "markdown" {
		_, err = io.WriteString(g.streams.Out, markdownComment(source, diffs, maxCommentLength))
	} else {
		err = writeDiffText(g.streams.Out, source, diffs)
	}
	if err != nil {
		return false, err
	}
	changed, failed := false, 0
	for _, d := range diffs {
		changed = changed || d.changed
		if d.err != nil {
			failed++
		}
	}
	if failed > 0 {
		return changed, fmt.Errorf("%d of %d KCLRuns on %s could not be diffed", failed, len(diffs), source)
	}
	if len(diffs) == 0 {
		g.log().warning("no KCLRun uses %s", source)
	}
	return changed, nil
}

// diffOne compiles the checkout dir at the KCLRun's spec.path and dry-runs it.
func (g *globals) diffOne(ctx context.Context, f *renderFlags, c client.Client, run *v1alpha1.KCLRun, dir string) runDiff {
	d := runDiff{run: run}
	// The checkout stands for the artifact: settings and entries may lie anywhere in it.
	at := *f
	at.opts.Path = run.Spec.Path
	objects, sensitive, err := g.renderFor(ctx, &at, c, run, run.Namespace, dir)
	if err != nil {
		d.err = err
		return d
	}
	var out bytes.Buffer
	d.changed, d.err = diffObjects(ctx, c, run, objects, sensitive, &out)
	d.text = out.String()
	return d
}

// writeDiffText is the text output of --all: each KCLRun's diff under a heading line.
func writeDiffText(w io.Writer, source string, diffs []runDiff) error {
	for _, d := range diffs {
		head := fmt.Sprintf("=== KCLRun %s/%s (%s, spec.path %q)", d.run.Namespace, d.run.Name, source, d.run.Spec.Path)
		body := d.text
		switch {
		case d.err != nil:
			body += "✗ " + d.err.Error() + "\n"
		case !d.changed:
			body += "no changes\n"
		}
		if _, err := fmt.Fprintf(w, "%s\n%s", head, body); err != nil {
			return err
		}
	}
	return nil
}
