package cli_test

import (
	"context"
	"testing"
	"time"

	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/imagepolicy"
)

// stageLabel puts a KCLRun in a stage of the fixtures' rollouts.
const stageLabel = "rollout.example.com/stage"

// rolloutFixture is an ImagePolicy web at nginx:1.7.8, one KCLRun per stage following it
// (each applying its own Deployment), and an ImageRollout web of those stages, up to date.
type rolloutFixture struct {
	ns     string
	policy *imagev1.ImagePolicy
	runs   map[string]*v1alpha1.KCLRun // by stage
}

// newRolloutFixture builds the fixture; the last stage has no selector (the rest).
func newRolloutFixture(t *testing.T, g Gomega, prefix string, stages ...v1alpha1.RolloutStage) *rolloutFixture {
	t.Helper()
	ctx := context.Background()
	f := &rolloutFixture{ns: namespace(t, prefix), runs: map[string]*v1alpha1.KCLRun{}}
	var err error
	f.policy, err = imagepolicy.Create(ctx, env.Client, f.ns, "web", imagev1.ImageRef{Name: "nginx", Tag: "1.7.8"})
	g.Expect(err).NotTo(HaveOccurred())
	revs := map[string]string{}
	for i, st := range stages {
		name := st.Name + "-1"
		revs[st.Name] = publish(t, f.ns, name, 1, program(deployment(name, "nginx:1.7.7", "web")))
		f.runs[st.Name] = newRun(t, f.ns, name, name, func(r *v1alpha1.KCLRun) {
			r.Spec.TargetNamespace = f.ns
			if i < len(stages)-1 {
				r.Labels = map[string]string{stageLabel: st.Name}
			}
		})
		if i < len(stages)-1 {
			stages[i].Selector = &metav1.LabelSelector{MatchLabels: map[string]string{stageLabel: st.Name}}
		}
	}
	for _, st := range stages {
		readyAt(t, g, f.runs[st.Name], revs[st.Name])
	}
	ro := &v1alpha1.ImageRollout{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: "web"},
		Spec: v1alpha1.ImageRolloutSpec{
			ImagePolicyRef: meta.LocalObjectReference{Name: "web"},
			Stages:         stages,
		},
	}
	g.Expect(env.Client.Create(ctx, ro)).To(Succeed())
	// A rollout left awaiting approval would show in the next test's `-A` listings.
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), ro) })
	f.waitRollout(t, g, "up to date at nginx:1.7.8", func(ro *v1alpha1.ImageRollout) bool {
		return ro.Status.LastGood.String() == "nginx:1.7.8" && ro.Status.Target.String() == "nginx:1.7.8"
	})
	return f
}

// elect moves the policy's latestRef, as image-reflector-controller would.
func (f *rolloutFixture) elect(t *testing.T, tag string) {
	t.Helper()
	if err := imagepolicy.SetLatest(context.Background(), env.Client, f.policy, imagev1.ImageRef{Name: "nginx", Tag: tag}); err != nil {
		t.Fatal(err)
	}
}

// waitRollout waits until the rollout satisfies ok and returns it.
func (f *rolloutFixture) waitRollout(t *testing.T, g Gomega, what string, ok func(*v1alpha1.ImageRollout) bool) *v1alpha1.ImageRollout {
	t.Helper()
	ro := &v1alpha1.ImageRollout{}
	g.Eventually(func() bool {
		if err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: f.ns, Name: "web"}, ro); err != nil {
			return false
		}
		return ok(ro)
	}, waitTimeout, 200*time.Millisecond).Should(BeTrue(), "ImageRollout %s/web %s; status %+v", f.ns, what, &ro.Status)
	return ro
}

// stageState is a waitRollout condition: the stage is in state.
func stageState(stage, state string) func(*v1alpha1.ImageRollout) bool {
	return func(ro *v1alpha1.ImageRollout) bool {
		s := ro.StageStatus(stage)
		return s != nil && s.State == state
	}
}

// waitHeld waits until the rollout holds the stage's KCLRun at image, back from target.
func (f *rolloutFixture) waitHeld(t *testing.T, g Gomega, stage, image, target string) {
	t.Helper()
	run := &v1alpha1.KCLRun{}
	g.Eventually(func() []v1alpha1.KCLRunRollout {
		_ = env.Client.Get(context.Background(), client.ObjectKeyFromObject(f.runs[stage]), run)
		return run.Status.ImageRollouts
	}, waitTimeout, 200*time.Millisecond).Should(ContainElement(v1alpha1.KCLRunRollout{
		Rollout: f.ns + "/web", Policy: f.ns + "/web", Stage: stage, Image: image, HeldBack: target,
	}))
}
