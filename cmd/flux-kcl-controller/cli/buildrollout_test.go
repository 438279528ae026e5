package cli_test

import (
	"testing"

	. "github.com/onsi/gomega"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// build --kclrun resolves markers as the cluster would: a KCLRun that an
// ImageRollout holds back renders the image its stage runs, not the policy's
// new election, and the build says so; one of an admitted stage renders the
// target. diff then finds nothing to change for either: it shares the rule.
func TestBuildForAKCLRunFollowsItsRollout(t *testing.T) {
	g, _ := setup(t)
	f := newRolloutFixture(t, g, "build-rollout",
		v1alpha1.RolloutStage{Name: "canary"},
		v1alpha1.RolloutStage{Name: "rest", Approval: true},
	)
	f.elect(t, "1.7.9")
	f.waitRollout(t, g, "awaits the approval of stage rest", stageState("rest", v1alpha1.StageAwaitingApproval))
	f.waitHeld(t, g, "rest", "nginx:1.7.8", "nginx:1.7.9")

	rest := writeDir(t, program(deployment("rest-1", "nginx:1.7.7", "web")))
	r := run(t, "build", rest, "--kclrun", "rest-1", "-n", f.ns)
	g.Expect(r.code).To(Equal(0), r.err)
	g.Expect(r.out).To(ContainSubstring("image: nginx:1.7.8\n"))
	g.Expect(r.err).To(ContainSubstring("ImageRollout " + f.ns + "/web holds stage rest at nginx:1.7.8 (policy " + f.ns + "/web elected nginx:1.7.9)\n"))

	canary := writeDir(t, program(deployment("canary-1", "nginx:1.7.7", "web")))
	r = run(t, "build", canary, "--kclrun", "canary-1", "-n", f.ns)
	g.Expect(r.code).To(Equal(0), r.err)
	g.Expect(r.out).To(ContainSubstring("image: nginx:1.7.9\n"))
	g.Expect(r.err).NotTo(ContainSubstring("holds stage"))

	// Without a KCLRun there is no stage: the policy's election.
	r = run(t, "build", rest, "-n", f.ns)
	g.Expect(r.code).To(Equal(0), r.err)
	g.Expect(r.out).To(ContainSubstring("image: nginx:1.7.9\n"))

	for stage, dir := range map[string]string{"rest": rest, "canary": canary} {
		r = run(t, "diff", "kclrun", stage+"-1", "-n", f.ns, "--path", dir)
		g.Expect(r.code).To(Equal(0), "%s: stdout:\n%s\nstderr:\n%s", stage, r.out, r.err)
	}
}
