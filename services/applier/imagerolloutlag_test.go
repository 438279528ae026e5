package applier_test

import (
	"context"
	"testing"

	"github.com/fluxcd/pkg/apis/meta"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/kubescheme"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
	"github.com/kcl-lang/flux-kcl-controller/services/applier"
)

// TestRolloutRequestReadsItsRolloutLive: the watcher publishes an
// ImageRollout request right after it writes the rollout's status, and the
// applier's ImageRollout informer may not hold that write yet. Given the old
// status, an admitted stage would keep the old image, and the watcher's next
// ask is dropped as a duplicate for two minutes. A cache stopped before the
// write stands in for the lag: a request that the rollout triggered sees the
// write; any other request keeps the cached copy, which costs no read.
func TestRolloutRequestReadsItsRolloutLive(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	ro := &v1alpha1.ImageRollout{ObjectMeta: objectMeta(ns, "web"), Spec: v1alpha1.ImageRolloutSpec{
		ImagePolicyRef: meta.LocalObjectReference{Name: "web"}, Stages: []v1alpha1.RolloutStage{{Name: "all"}}}}
	g.Expect(env.Client.Create(ctx, ro)).To(Succeed())
	t.Cleanup(func() { _ = env.Client.Delete(ctx, ro) })

	scheme, err := kubescheme.New()
	g.Expect(err).NotTo(HaveOccurred())
	cacheCtx, stopCache := context.WithCancel(ctx)
	governing, err := applier.StartImageRollouts(cacheCtx, env.Config, scheme)
	g.Expect(err).NotTo(HaveOccurred())
	stopCache()

	// The watcher's status write, after the cache stopped: the stage is admitted.
	live := &v1alpha1.ImageRollout{}
	g.Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(ro), live)).To(Succeed())
	live.Status.Stages = []v1alpha1.StageStatus{{Name: "all", State: v1alpha1.StageProgressing,
		Image: &v1alpha1.RolloutImage{Name: "ghcr.io/org/web", Tag: "2.0.0"}, Total: 1}}
	g.Expect(env.Client.Status().Update(ctx, live)).To(Succeed())

	policy := ns + "/web"
	triggered := reconcilerequest.Request{Namespace: ns, Name: "app", Reason: reconcilerequest.ReasonImageRolloutChanged,
		Trigger: v1alpha1.ImageRolloutKind + "/" + ns + "/web"}
	got, err := governing(ctx, env.Client, triggered, policy)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(got).NotTo(BeNil())
	g.Expect(got.Status.Stages).To(ConsistOf(HaveField("Image.Tag", "2.0.0")), "the rollout's own request reads its status live")

	other := reconcilerequest.Request{Namespace: ns, Name: "app", Reason: reconcilerequest.ReasonImagePolicyChanged,
		Trigger: "ImagePolicy/" + policy}
	got, err = governing(ctx, env.Client, other, policy)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(got).NotTo(BeNil())
	g.Expect(got.Status.Stages).To(BeEmpty(), "the cache stopped before the write: any other request reads it there")

	// A trigger naming a rollout that is gone falls back to the cache.
	g.Expect(env.Client.Delete(ctx, live)).To(Succeed())
	got, err = governing(ctx, env.Client, triggered, policy)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(got).NotTo(BeNil())
	g.Expect(got.Status.Stages).To(BeEmpty())
}
