package cli_test

import (
	"testing"

	. "github.com/onsi/gomega"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// get imagerollouts prints target, last good and each stage's state on one line: here the
// canary passed and the next stage waits for an approval.
func TestGetImageRollouts(t *testing.T) {
	g, _ := setup(t)
	f := newRolloutFixture(t, g, "get-rollouts",
		v1alpha1.RolloutStage{Name: "canary"},
		v1alpha1.RolloutStage{Name: "early", Approval: true},
		v1alpha1.RolloutStage{Name: "rest"},
	)
	r := run(t, "get", "imagerollouts", "-n", f.ns)
	g.Expect(r.code).To(Equal(0), r.err)
	g.Expect(r.out).To(MatchRegexp(`(?m)^web\s+nginx:1.7.8\s+nginx:1.7.8\s+canary ✔ early ✔ rest ✔\s+False\s+True\s`))

	f.elect(t, "1.7.9")
	f.waitRollout(t, g, "awaits the approval of stage early", stageState("early", v1alpha1.StageAwaitingApproval))
	r = run(t, "get", "imagerollouts", "-n", f.ns)
	g.Expect(r.code).To(Equal(0), r.err)
	golden(t, "get-imagerollouts", r.out, f.ns)

	r = run(t, "get", "imagerollout", "web", "-A", "--status-selector", "ready!=true", "--no-header")
	g.Expect(r.code).To(Equal(0), r.err)
	g.Expect(r.out).To(HavePrefix(f.ns + "\tweb\t"))
	g.Expect(run(t, "get", "imagerollouts", "-n", f.ns, "--status-selector", "ready=true").out).NotTo(ContainSubstring("web"))

	oneClearLine(t, run(t, "get", "imagerollout", "nothere", "-n", f.ns), 1, `ImageRollout "nothere" not found in "`+f.ns+`" namespace`)
}
