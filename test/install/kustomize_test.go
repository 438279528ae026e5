package install_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// kustomize build deploy/default is accepted by the apiserver.
func TestKustomizeDefaultIsAccepted(t *testing.T) {
	needsAPIServer(t)
	g := NewWithT(t)
	objs := buildKustomization(t, filepath.Join(repoRoot, "deploy", "default"))
	g.Expect(objs).NotTo(BeEmpty())
	g.Expect(dryRunApply(context.Background(), objs)).To(Succeed())
	checkWorkloads(t, objs)
}

// deploy/default and the chart's defaults install the same objects, field for field, but
// for the labels Helm adds.
func TestKustomizeMatchesChartDefaults(t *testing.T) {
	g := NewWithT(t)
	chart := normalized(renderChart(t, nil, nil))
	kustomize := normalized(buildKustomization(t, filepath.Join(repoRoot, "deploy", "default")))
	g.Expect(keys(kustomize)).To(Equal(keys(chart)))
	for key, want := range chart {
		g.Expect(kustomize[key]).To(Equal(want), key)
	}
}

// helmLabels are the labels only the chart sets.
var helmLabels = []string{"helm.sh/chart", "app.kubernetes.io/managed-by", "app.kubernetes.io/instance"}

func normalized(objs []*unstructured.Unstructured) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, o := range objs {
		o = o.DeepCopy()
		labels := o.GetLabels()
		for _, l := range helmLabels {
			delete(labels, l)
		}
		o.SetLabels(labels)
		if len(labels) == 0 {
			unstructured.RemoveNestedField(o.Object, "metadata", "labels")
		}
		out[fmt.Sprintf("%s %s/%s", o.GetKind(), o.GetNamespace(), o.GetName())] = o.Object
	}
	return out
}

func keys(m map[string]map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// deploy/components/nats-cluster on deploy/default installs what the chart does with
// nats.cluster.enabled, field for field, and the apiserver accepts it.
func TestKustomizeNATSClusterMatchesChart(t *testing.T) {
	g := NewWithT(t)
	overlay := t.TempDir()
	rel := func(dir ...string) string { // kustomize takes relative paths only
		r, err := filepath.Rel(overlay, filepath.Join(append([]string{repoRoot}, dir...)...))
		g.Expect(err).NotTo(HaveOccurred())
		return r
	}
	kustomization := fmt.Sprintf("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [%s]\ncomponents: [%s]\n",
		rel("deploy", "default"), rel("deploy", "components", "nats-cluster"))
	g.Expect(os.WriteFile(filepath.Join(overlay, "kustomization.yaml"), []byte(kustomization), 0o600)).To(Succeed())
	objs := buildKustomization(t, overlay)
	chart := normalized(renderChart(t, nil, map[string]any{"nats": map[string]any{"cluster": map[string]any{"enabled": true}}}))
	kustomize := normalized(objs)
	g.Expect(keys(kustomize)).To(Equal(keys(chart)))
	for key, want := range chart {
		g.Expect(kustomize[key]).To(Equal(want), key)
	}
	if !testing.Short() {
		needsAPIServer(t)
		g.Expect(dryRunApply(context.Background(), objs)).To(Succeed())
		checkWorkloads(t, objs)
	}
}
