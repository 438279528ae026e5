package localbuild

import (
	"context"
	"fmt"
	"io"
	"sort"

	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/rollout"
	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
)

// followRollout gives a found policy's markers the image the governing
// ImageRollout gives run's stage, as the applier does (rollout.Give): a
// build for a KCLRun held back by a rollout renders the image it runs, not
// the policy's new election. Without the ImageRollout CRD there is none.
func followRollout(ctx context.Context, c client.Reader, run *v1alpha1.KCLRun, p *workerclient.ImagePolicy, noCrossNamespaceRefs bool) (*v1alpha1.KCLRunRollout, error) {
	if !p.Found || noCrossNamespaceRefs && run.Namespace != p.Namespace {
		return nil, nil
	}
	key := p.Namespace + "/" + p.Name
	var list v1alpha1.ImageRolloutList
	if err := c.List(ctx, &list, client.InNamespace(p.Namespace)); err != nil {
		if apimeta.IsNoMatchError(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("listing the ImageRollouts of policy %s: %w", key, err)
	}
	ro := rollout.Governing(list.Items, key)
	img, given, err := rollout.Give(ro, run, key, func() (map[string]string, error) {
		ns := &corev1.Namespace{}
		if err := c.Get(ctx, client.ObjectKey{Name: run.Namespace}, ns); client.IgnoreNotFound(err) != nil {
			return nil, fmt.Errorf("reading namespace %s for ImageRollout %s: %w", run.Namespace, ro.Namespace+"/"+ro.Name, err)
		}
		return ns.Labels, nil
	})
	if err != nil || img == nil {
		return nil, err
	}
	p.LatestRef = &workerclient.LatestRef{Name: img.Name, Tag: img.Tag, Digest: img.Digest}
	return given, nil
}

// logHeld says which images a rollout holds back from the policy's election.
func logHeld(log io.Writer, given map[string]*v1alpha1.KCLRunRollout) {
	policies := make([]string, 0, len(given))
	for p := range given {
		policies = append(policies, p)
	}
	sort.Strings(policies)
	for _, p := range policies {
		g := given[p]
		if g.HeldBack != "" {
			fmt.Fprintf(log, "ImageRollout %s holds stage %s at %s (policy %s elected %s)\n", g.Rollout, stageName(g.Stage), g.Image, g.Policy, g.HeldBack)
		}
	}
}

func stageName(stage string) string {
	if stage == "" {
		return "(none)"
	}
	return stage
}
