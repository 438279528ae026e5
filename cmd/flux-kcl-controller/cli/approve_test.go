package cli_test

import (
	"context"
	"fmt"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// approve annotates the stage awaiting approval with the target and the user the apiserver
// says the credentials are (alice, impersonated, who may only read and patch
// ImageRollouts), and the rollout admits the stage naming her.
func TestApproveImageRollout(t *testing.T) {
	g, ctx := setup(t)
	f := newRolloutFixture(t, g, "approve",
		v1alpha1.RolloutStage{Name: "canary"},
		v1alpha1.RolloutStage{Name: "rest", Approval: true},
	)
	const alice = "alice@example.com"
	allowApprovals(t, g, f.ns, alice)
	f.elect(t, "1.7.9")
	f.waitRollout(t, g, "awaits the approval of stage rest", stageState("rest", v1alpha1.StageAwaitingApproval))

	r := run(t, "approve", "imagerollout", "web", "-n", f.ns, "--as", alice)
	g.Expect(r.code).To(Equal(0), r.err)
	g.Expect(r.err).To(ContainSubstring("► approving stage rest of ImageRollout web in " + f.ns + " namespace for nginx:1.7.9\n"))
	g.Expect(r.err).To(HaveSuffix("✔ stage rest approved for nginx:1.7.9 by " + alice + "\n"))

	var ro v1alpha1.ImageRollout
	g.Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: f.ns, Name: "web"}, &ro)).To(Succeed())
	approval, err := v1alpha1.ParseApproval(ro.Annotations[v1alpha1.ApprovalAnnotation("rest")])
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(approval.Target).To(Equal("nginx:1.7.9"))
	g.Expect(approval.By).To(Equal(alice))
	g.Expect(approval.At.IsZero()).To(BeFalse())

	done := f.waitRollout(t, g, "completes", func(ro *v1alpha1.ImageRollout) bool {
		return ro.Status.LastGood.String() == "nginx:1.7.9"
	})
	g.Expect(done.StageStatus("rest").ApprovedBy).To(Equal(alice))
	g.Eventually(func() []string {
		var events corev1.EventList
		_ = env.Client.List(ctx, &events, client.InNamespace(f.ns))
		var msgs []string
		for _, e := range events.Items {
			if e.InvolvedObject.Kind == v1alpha1.ImageRolloutKind && e.Reason == v1alpha1.ApprovedReason {
				msgs = append(msgs, e.Message)
			}
		}
		return msgs
	}, waitTimeout).Should(ContainElement(ContainSubstring("approved by " + alice)))
}

// approve with nothing to approve, a stage that needs none, no such stage or no such
// rollout: one clear line and exit 1, no annotation.
func TestApproveWithNoStageWaiting(t *testing.T) {
	g, ctx := setup(t)
	f := newRolloutFixture(t, g, "approve-none",
		v1alpha1.RolloutStage{Name: "canary"},
		v1alpha1.RolloutStage{Name: "rest", Approval: true},
	)
	oneClearLine(t, run(t, "approve", "imagerollout", "web", "-n", f.ns), 1,
		fmt.Sprintf("ImageRollout %s/web: no stage awaits approval: nothing rolls out, every stage runs nginx:1.7.8", f.ns))
	oneClearLine(t, run(t, "approve", "imagerollout", "web", "-n", f.ns, "--stage", "canary"), 1, "stage canary needs no approval")
	oneClearLine(t, run(t, "approve", "imagerollout", "web", "-n", f.ns, "--stage", "nope"), 1, `no stage "nope" (stages: canary, rest)`)
	oneClearLine(t, run(t, "approve", "imagerollout", "nothere", "-n", f.ns), 1, `ImageRollout "nothere" not found in "`+f.ns+`" namespace`)
	oneClearLine(t, run(t, "approve", "imagerollout"), 1, "accepts 1 arg(s)")

	var ro v1alpha1.ImageRollout
	g.Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: f.ns, Name: "web"}, &ro)).To(Succeed())
	g.Expect(ro.Annotations).NotTo(HaveKey(v1alpha1.ApprovalAnnotation("rest")))
}

// allowApprovals lets user read and patch the namespace's ImageRollouts, nothing more.
func allowApprovals(t *testing.T, g Gomega, ns, user string) {
	t.Helper()
	ctx := context.Background()
	role := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "approver"},
		Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{v1alpha1.GroupVersion.Group}, Resources: []string{"imagerollouts"},
			Verbs: []string{"get", "patch"},
		}},
	}
	g.Expect(env.Client.Create(ctx, role)).To(Succeed())
	g.Expect(env.Client.Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "approver"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "approver"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	})).To(Succeed())
}
