package cli_test

import (
	"testing"

	. "github.com/onsi/gomega"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// get kclruns lists, below the images, the KCLRuns an ImageRollout holds back: the image
// they run, the target held back, the rollout and their stage.
func TestGetKCLRunsShowsHeldImages(t *testing.T) {
	g, _ := setup(t)
	f := newRolloutFixture(t, g, "get-held",
		v1alpha1.RolloutStage{Name: "canary"},
		v1alpha1.RolloutStage{Name: "rest", Approval: true},
	)
	r := run(t, "get", "kclruns", "-n", f.ns)
	g.Expect(r.code).To(Equal(0), r.err)
	g.Expect(r.out).NotTo(ContainSubstring("HELD BACK"), "nothing is held while the rollout is up to date")

	f.elect(t, "1.7.9")
	f.waitRollout(t, g, "awaits the approval of stage rest", stageState("rest", v1alpha1.StageAwaitingApproval))
	f.waitHeld(t, g, "rest", "nginx:1.7.8", "nginx:1.7.9")
	r = run(t, "get", "kclruns", "-n", f.ns)
	g.Expect(r.code).To(Equal(0), r.err)
	golden(t, "get-kclruns-held", r.out, f.ns)
}
