package applier_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
	"github.com/kcl-lang/flux-kcl-controller/internal/shard"
	"github.com/kcl-lang/flux-kcl-controller/services/applier"
)

// An applier of shard s1 beside the package's unsharded one, on the same NATS: it
// consumes its own stream, keeps its own buckets, and leaves a KCLRun outside its
// --watch-label-selector untouched even when a request for it arrives.
func TestShardAppliesOnlyItsKCLRuns(t *testing.T) {
	g := NewWithT(t)
	const s1 shard.Name = "s1"
	own := newTracker()
	stop, err := startApplierWith(mainCtx, "applier-s1", "", nil, workers, func(cfg *applier.Config, deps *applier.Deps) {
		cfg.Shard, cfg.WatchLabelSelector = s1, "shard=s1"
		deps.Hooks = applier.Hooks{Enter: own.enter, Exit: own.exit}
	})
	g.Expect(err).NotTo(HaveOccurred())
	defer stop()

	ns := newNamespace(t)
	artifact := publishProgram(t, ns, "app", configMap("cm", "v1"))
	ctx := context.Background()
	for name, labels := range map[string]map[string]string{"inside": {"shard": "s1"}, "outside": nil} {
		obj := &v1alpha1.KCLRun{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
			Spec: v1alpha1.KCLRunSpec{
				SourceRef: v1alpha1.CrossNamespaceSourceReference{Kind: "GitRepository", Name: "app"},
				Interval:  metav1.Duration{Duration: 10 * time.Minute},
			},
		}
		g.Expect(env.Client.Create(ctx, obj)).To(Succeed())
		publishOn(t, s1, ns, name, reconcilerequest.ReasonCreated)
	}
	readyAt(t, ns, "inside", artifact.Revision)
	g.Eventually(func() string { return own.last(ns + "/outside").Result }, "1m").Should(Equal(applier.ResultOtherShard))
	outside := getKCLRun(g, ns, "outside")
	g.Expect(outside.Finalizers).To(BeEmpty())
	g.Expect(outside.Status.Conditions).To(BeEmpty())
	// The package's unsharded applier got no request for either.
	g.Expect(tracker.count(ns + "/inside")).To(BeZero())
	g.Expect(tracker.count(ns + "/outside")).To(BeZero())

	js, done := suiteJetStream(t)
	defer done()
	for _, bucket := range []string{s1.LeaseBucket(), s1.FingerprintBucket()} {
		_, err := js.KeyValue(ctx, bucket)
		g.Expect(err).NotTo(HaveOccurred(), bucket)
	}
	_, err = js.Consumer(ctx, s1.Stream(), s1.Consumer())
	g.Expect(err).NotTo(HaveOccurred())

	// The shard's applier finalizes its KCLRun on deletion.
	g.Expect(env.Client.Delete(ctx, getKCLRun(g, ns, "inside"))).To(Succeed())
	publishOn(t, s1, ns, "inside", reconcilerequest.ReasonDeleting)
	g.Eventually(func() string { return own.last(ns + "/inside").Result }, "1m").Should(Equal(applier.ResultDeleted))
	g.Expect(env.Client.Delete(ctx, outside)).To(Succeed())
}

// publishOn publishes a reconcile request on shard s's stream, as its watcher would.
func publishOn(t testing.TB, s shard.Name, namespace, name string, reason reconcilerequest.Reason) {
	t.Helper()
	js, done := suiteJetStream(t)
	defer done()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	id := fmt.Sprintf("test/%s/%s/%s/%d", s, namespace, name, requestSeq.Add(1))
	if _, err := reconcilerequest.NewPublisher(js, s).Publish(ctx, reconcilerequest.Request{Namespace: namespace, Name: name, Reason: reason}, id); err != nil {
		t.Fatal(err)
	}
}
