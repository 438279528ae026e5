package install_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
)

// shardsValues is the values set of two shards beside the main controller.
const shardsValues = "ci/shards-values.yaml"

// shardKey is Flux's sharding label.
const shardKey = "sharding.fluxcd.io/key"

// Each shard runs its own watcher and applier with --shard and its selector, the main watcher
// takes only the KCLRuns without the sharding label, and every KCLRun has exactly one watcher:
// the selectors are parsed as the watcher parses --watch-label-selector and matched against
// KCLRun labels.
func TestChartShards(t *testing.T) {
	g := NewWithT(t)
	objs := renderChart(t, []string{shardsValues}, nil)

	want := map[string][]string{ // Deployment → the sharding flags it must carry
		"kcl-watcher":        {"--watch-label-selector=!" + shardKey},
		"kcl-applier":        nil,
		"kcl-watcher-shard1": {"--shard=shard1", "--watch-label-selector=" + shardKey + "=shard1"},
		"kcl-applier-shard1": {"--shard=shard1"},
		"kcl-watcher-shard2": {"--shard=shard2", "--watch-label-selector=" + shardKey + " in (shard2,shard2-eu)"},
		"kcl-applier-shard2": {"--shard=shard2"},
	}
	selectors := map[string]labels.Selector{}
	for name, flags := range want {
		d := deployment(t, find(objs, "Deployment", name))
		args := d.Spec.Template.Spec.Containers[0].Args
		g.Expect(args).To(ContainElements(flags), name)
		g.Expect(countPrefix(args, "--shard=")).To(Equal(countPrefix(flags, "--shard=")), name)
		g.Expect(countPrefix(args, "--watch-label-selector=")).To(Equal(countPrefix(flags, "--watch-label-selector=")), name)
		// The shards' pods run as the services' ServiceAccounts: the same RBAC.
		service := strings.Join(strings.SplitN(name, "-", 3)[:2], "-") // kcl-watcher-shard1 → kcl-watcher
		g.Expect(d.Spec.Template.Spec.ServiceAccountName).To(Equal(service), name)
		for _, a := range args {
			if v, ok := strings.CutPrefix(a, "--watch-label-selector="); ok {
				sel, err := labels.Parse(v)
				g.Expect(err).NotTo(HaveOccurred(), name)
				selectors[name] = sel
			}
		}
	}
	g.Expect(find(objs, "Deployment", "kcl-compiler-shard1")).To(BeNil(), "the workers serve every shard")
	for kclrun, watcher := range map[string]string{"": "kcl-watcher", "shard1": "kcl-watcher-shard1", "shard2": "kcl-watcher-shard2", "shard2-eu": "kcl-watcher-shard2"} {
		set := labels.Set{"app": "demo"}
		if kclrun != "" {
			set[shardKey] = kclrun
		}
		var matched []string
		for name, sel := range selectors {
			if sel.Matches(set) {
				matched = append(matched, name)
			}
		}
		g.Expect(matched).To(Equal([]string{watcher}), "a KCLRun labelled %q", kclrun)
	}
	checkOwnPods(t, objs)

	// The shards' appliers reach the workers, their watchers and appliers the bus.
	for _, worker := range []string{"kcl-compiler", "kcl-resolver"} {
		g.Expect(ingressFrom(t, objs, worker)).To(ContainElements("kcl-applier", "kcl-applier-shard1", "kcl-applier-shard2"), worker)
	}
	g.Expect(ingressFrom(t, objs, "kcl-nats")).To(ConsistOf("kcl-watcher", "kcl-watcher-shard1", "kcl-watcher-shard2", "kcl-applier", "kcl-applier-shard1", "kcl-applier-shard2"))
	for name := range want {
		g.Expect(find(objs, "NetworkPolicy", name)).NotTo(BeNil(), name)
	}
}

// All-in-one: one more Deployment per shard, each with its own embedded NATS store.
func TestChartShardsAllInOne(t *testing.T) {
	needsAPIServer(t)
	g := NewWithT(t)
	objs := renderChart(t, []string{"ci/all-in-one-values.yaml", shardsValues}, nil)
	for name, flags := range map[string][]string{
		"flux-kcl-controller":        {"--watch-label-selector=!" + shardKey},
		"flux-kcl-controller-shard1": {"--shard=shard1", "--watch-label-selector=" + shardKey + "=shard1"},
		"flux-kcl-controller-shard2": {"--shard=shard2", "--watch-label-selector=" + shardKey + " in (shard2,shard2-eu)"},
	} {
		d := deployment(t, find(objs, "Deployment", name))
		g.Expect(d.Spec.Template.Spec.Containers[0].Args).To(ContainElements(flags), name)
		g.Expect(d.Spec.Template.Spec.Volumes).To(ContainElement(HaveField("VolumeSource.PersistentVolumeClaim.ClaimName", name+"-data")), name)
		g.Expect(find(objs, "PersistentVolumeClaim", name+"-data")).NotTo(BeNil(), name)
		g.Expect(find(objs, "NetworkPolicy", name)).NotTo(BeNil(), name)
	}
	g.Expect(find(objs, "Deployment", "kcl-watcher-shard1")).To(BeNil())
	checkOwnPods(t, objs)
	g.Expect(dryRunApply(context.Background(), objs)).To(Succeed())
	checkWorkloads(t, objs)
}

// Names that cannot name Deployments and streams, twice the same name, and shards with the
// bundled server's users (granted the unsharded names only) are refused at render.
func TestChartShardsRefused(t *testing.T) {
	g := NewWithT(t)
	for _, tc := range []struct {
		values map[string]any
		err    string
	}{
		{map[string]any{"shards": []any{map[string]any{"name": "Shard_1"}}}, "must be a DNS label"},
		{map[string]any{"shards": []any{map[string]any{"name": "a-very-long-shard-name-that-names-too-much"}}}, "must be a DNS label"},
		{map[string]any{"shards": []any{map[string]any{"name": "s1"}, map[string]any{"name": "s1"}}}, "appears twice"},
		{map[string]any{"shards": []any{map[string]any{"name": "s1"}}, "nats": map[string]any{"auth": map[string]any{"enabled": true}}}, "nats.auth.enabled"},
	} {
		_, err := renderChartObjects(nil, tc.values)
		g.Expect(err).To(MatchError(ContainSubstring(tc.err)), "%v", tc.values)
	}
	// Without shards nothing changes: no selector, no shard.
	for _, name := range []string{"kcl-watcher", "kcl-applier"} {
		args := deployment(t, find(renderChart(t, nil, nil), "Deployment", name)).Spec.Template.Spec.Containers[0].Args
		g.Expect(countPrefix(args, "--shard")+countPrefix(args, "--watch-label-selector")).To(BeZero(), name)
	}
}

// checkOwnPods: each Deployment's selector matches its own pods only, so that no two
// Deployments (a shard's and the main one) fight over pods.
func checkOwnPods(t *testing.T, objs []*unstructured.Unstructured) {
	t.Helper()
	g := NewWithT(t)
	for _, o := range objs {
		if o.GetKind() != "Deployment" {
			continue
		}
		sel := labels.SelectorFromSet(deployment(t, o).Spec.Selector.MatchLabels)
		for _, other := range objs {
			if other.GetKind() != "Deployment" || other.GetName() == o.GetName() {
				continue
			}
			podLabels := labels.Set(deployment(t, other).Spec.Template.Labels)
			g.Expect(sel.Matches(podLabels)).To(BeFalse(), "%s selects the pods of %s", o.GetName(), other.GetName())
		}
	}
}

// ingressFrom are the pod names (app.kubernetes.io/name) a NetworkPolicy admits by selector.
func ingressFrom(t *testing.T, objs []*unstructured.Unstructured, policy string) []string {
	t.Helper()
	var out []string
	for _, rule := range networkPolicy(t, objs, policy).Spec.Ingress {
		for _, from := range rule.From {
			if from.PodSelector != nil {
				if name := from.PodSelector.MatchLabels["app.kubernetes.io/name"]; name != "kcl-nats" {
					out = append(out, name)
				}
			}
		}
	}
	return out
}

func countPrefix(args []string, prefix string) int {
	return len(slices.DeleteFunc(slices.Clone(args), func(a string) bool { _, ok := strings.CutPrefix(a, prefix); return !ok }))
}
