package install_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kcl-lang/flux-kcl-controller/internal/natsconn"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
	"github.com/kcl-lang/flux-kcl-controller/internal/shard"
	"github.com/kcl-lang/flux-kcl-controller/services/applier/lease"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/pki"
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
		"kcl-applier":        {"--watch-label-selector=!" + shardKey},
		"kcl-watcher-shard1": {"--shard=shard1", "--watch-label-selector=" + shardKey + "=shard1"},
		"kcl-applier-shard1": {"--shard=shard1", "--watch-label-selector=" + shardKey + "=shard1"},
		"kcl-watcher-shard2": {"--shard=shard2", "--watch-label-selector=" + shardKey + " in (shard2,shard2-eu)"},
		"kcl-applier-shard2": {"--shard=shard2", "--watch-label-selector=" + shardKey + " in (shard2,shard2-eu)"},
	}
	// The parsed flags, as each binary's main reads them.
	for name := range want {
		binary := strings.TrimPrefix(strings.Join(strings.SplitN(name, "-", 3)[:2], "-"), "kcl-")
		flags := serviceArgs(t, objs, name, binary)
		wantShard := strings.TrimPrefix(strings.TrimPrefix(name, "kcl-"+binary), "-")
		if binary == "watcher" {
			g.Expect(string(flags.Watcher.Shard)).To(Equal(wantShard), name)
		} else {
			g.Expect(string(flags.Applier.Shard)).To(Equal(wantShard), name)
		}
	}
	selectors := map[string]labels.Selector{} // the watchers'; the appliers' are the same
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
			if v, ok := strings.CutPrefix(a, "--watch-label-selector="); ok && strings.HasPrefix(name, "kcl-watcher") {
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

// Names that cannot name Deployments and streams, and twice the same name, are refused at
// render.
func TestChartShardsRefused(t *testing.T) {
	g := NewWithT(t)
	for _, tc := range []struct {
		values map[string]any
		err    string
	}{
		{map[string]any{"shards": []any{map[string]any{"name": "Shard_1"}}}, "must be a DNS label"},
		{map[string]any{"shards": []any{map[string]any{"name": "a-very-long-shard-name-that-names-too-much"}}}, "must be a DNS label"},
		{map[string]any{"shards": []any{map[string]any{"name": "s1"}, map[string]any{"name": "s1"}}}, "appears twice"},
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

// With users on the bundled server, the shards share the watcher's and the applier's users,
// granted the main instance's and every shard's names: exactly what internal/natsconn grants
// each identity for each shard (internal/shard's names), nothing more; and on a server of
// that configuration every shard's services set up their own stream, consumer and bucket.
func TestChartShardsNATSPermissions(t *testing.T) {
	g := NewWithT(t)
	objs := renderChart(t, []string{shardsValues}, map[string]any{"nats": map[string]any{"auth": map[string]any{"enabled": true}}})
	opts := parseNATSConfig(t, objs, "kcl-nats-0")
	want := map[string]natsconn.Permissions{}
	for _, s := range []shard.Name{"", "shard1", "shard2"} {
		for who, p := range map[string]natsconn.Permissions{"WATCHER": natsconn.WatcherPermissions(s), "APPLIER": natsconn.ApplierPermissions(s, true)} {
			w := want[who]
			w.Publish = append(w.Publish, p.Publish...)
			w.Subscribe = append(w.Subscribe, p.Subscribe...)
			want[who] = w
		}
	}
	g.Expect(opts.Users).To(HaveLen(2))
	for _, u := range opts.Users {
		g.Expect(want).To(HaveKey(u.Username))
		g.Expect(u.Permissions.Publish.Allow).To(ConsistOf(slices.Compact(slices.Sorted(slices.Values(want[u.Username].Publish)))), u.Username)
		g.Expect(u.Permissions.Subscribe.Allow).To(ConsistOf(want[u.Username].Subscribe), u.Username)
	}

	// The bundled server from that configuration (TLS too, on loopback): each shard's watcher
	// and applier, with the chart's flags, set up their own stream, consumer and lease bucket.
	objs = renderChart(t, []string{shardsValues}, map[string]any{"nats": map[string]any{"auth": map[string]any{"enabled": true}, "tls": map[string]any{"enabled": true}}})
	certs := pki.NewCA(t, "nats CA").Issue(t, "kcl-nats", "127.0.0.1")
	opts = parseNATSConfigWith(t, objs, "kcl-nats-0", certs)
	opts.Host, opts.Port, opts.HTTPPort = "127.0.0.1", -1, 0
	opts.StoreDir, opts.NoLog, opts.NoSigs = filepath.Join(t.TempDir(), "jetstream"), true, true
	srv, err := server.NewServer(opts)
	g.Expect(err).NotTo(HaveOccurred())
	srv.Start()
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	g.Expect(srv.ReadyForConnections(10 * time.Second)).To(BeTrue())
	urls := []string{srv.ClientURL()}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, s := range []string{"", "-shard1", "-shard2"} {
		watcher := serviceArgs(t, objs, "kcl-watcher"+s, "watcher")
		_, err := reconcilerequest.EnsureStream(ctx, connectAs(t, "watcher", watcher.NATS, watcher.Watcher.Shard, urls, certs), watcher.Watcher.Shard)
		g.Expect(err).NotTo(HaveOccurred(), "kcl-watcher"+s)
		applierFlags := serviceArgs(t, objs, "kcl-applier"+s, "applier")
		sh := applierFlags.Applier.Shard
		g.Expect(sh).To(Equal(watcher.Watcher.Shard))
		js := connectAs(t, "applier", applierFlags.NATS, sh, urls, certs)
		_, err = reconcilerequest.EnsureStream(ctx, js, sh)
		g.Expect(err).NotTo(HaveOccurred(), "kcl-applier"+s)
		_, err = reconcilerequest.EnsureConsumer(ctx, js, sh)
		g.Expect(err).NotTo(HaveOccurred(), "kcl-applier"+s)
		_, err = lease.Open(ctx, js, lease.Config{Bucket: sh.LeaseBucket(), TTL: time.Minute, Holder: "kcl-applier" + s})
		g.Expect(err).NotTo(HaveOccurred(), "kcl-applier"+s)
		stream, err := js.Stream(ctx, sh.Stream())
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(stream.CachedInfo().Config.Subjects).To(ConsistOf(sh.SubjectFilter()), "kcl-applier"+s)
	}
}
