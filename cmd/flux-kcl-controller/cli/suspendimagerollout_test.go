package cli_test

import (
	"testing"

	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// suspend imagerollout holds a new election at its first stage; resume waits until the
// watcher has stepped the rollout, which then admits the stage.
func TestSuspendResumeImageRollout(t *testing.T) {
	g, ctx := setup(t)
	f := newRolloutFixture(t, g, "suspend-rollout", v1alpha1.RolloutStage{Name: "all"})
	suspended := func() bool {
		var ro v1alpha1.ImageRollout
		g.Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: f.ns, Name: "web"}, &ro)).To(Succeed())
		return ro.Spec.Suspend
	}

	r := run(t, "suspend", "imagerollout", "web", "-n", f.ns)
	g.Expect(r.code).To(Equal(0), r.err)
	g.Expect(r.err).To(ContainSubstring("► suspending ImageRollout web in " + f.ns + " namespace"))
	g.Expect(r.err).To(ContainSubstring("✔ ImageRollout suspended"))
	g.Expect(suspended()).To(BeTrue())
	g.Expect(run(t, "get", "imagerollouts", "-n", f.ns, "--no-header").out).To(MatchRegexp(`(?m)^web\s.*✔\s+True\s+True\s`), "SUSPENDED True")

	f.elect(t, "1.7.9")
	ro := f.waitRollout(t, g, "holds stage all while suspended", func(ro *v1alpha1.ImageRollout) bool {
		s := ro.StageStatus("all")
		return ro.Status.Target.String() == "nginx:1.7.9" && s != nil && s.State == v1alpha1.StagePending
	})
	g.Expect(ro.StageStatus("all").Message).To(ContainSubstring("suspended"))
	f.waitHeld(t, g, "all", "nginx:1.7.8", "nginx:1.7.9")

	r = run(t, "resume", "imagerollout", "web", "-n", f.ns)
	g.Expect(r.code).To(Equal(0), r.err)
	g.Expect(r.err).To(ContainSubstring("✔ ImageRollout resumed"))
	g.Expect(r.err).To(ContainSubstring("✔ ImageRollout web reconciliation completed"))
	g.Expect(suspended()).To(BeFalse())
	f.waitRollout(t, g, "completes once resumed", func(ro *v1alpha1.ImageRollout) bool {
		return ro.Status.LastGood.String() == "nginx:1.7.9"
	})

	oneClearLine(t, run(t, "suspend", "imagerollout", "-n", f.ns), 1, "name the ImageRollouts, or give --all")
	oneClearLine(t, run(t, "resume", "imagerollout", "nothere", "-n", f.ns), 1, `ImageRollout "nothere" not found in "`+f.ns+`" namespace`)
}
