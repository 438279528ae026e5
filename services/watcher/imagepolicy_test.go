package watcher

import (
	"context"
	"testing"

	"github.com/fluxcd/pkg/apis/meta"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"

	kclv1 "github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
)

func newImagePolicy(t *testing.T, namespace, name string) *imagev1.ImagePolicy {
	t.Helper()
	p := &imagev1.ImagePolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: imagev1.ImagePolicySpec{
			ImageRepositoryRef: meta.NamespacedObjectReference{Name: name},
			Policy:             imagev1.ImagePolicyChoice{SemVer: &imagev1.SemVerPolicy{Range: ">=1.0.0"}},
		},
	}
	if err := k8sClient.Create(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	return p
}

func setLatestRef(t *testing.T, p *imagev1.ImagePolicy, tag string) {
	t.Helper()
	ctx := context.Background()
	NewWithT(t).Eventually(func() error {
		var cur imagev1.ImagePolicy
		if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(p), &cur); err != nil {
			return err
		}
		cur.Status.LatestRef = &imagev1.ImageRef{Name: "ghcr.io/example/app", Tag: tag}
		return k8sClient.Status().Update(ctx, &cur)
	}, eventually).Should(Succeed())
}

// setImagePolicies writes status.imagePolicies as the applier does after resolving markers.
func setImagePolicies(t *testing.T, run *kclv1.KCLRun, policies ...string) {
	t.Helper()
	ctx := context.Background()
	NewWithT(t).Eventually(func() error {
		var cur kclv1.KCLRun
		if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(run), &cur); err != nil {
			return err
		}
		cur.Status.ImagePolicies = policies
		return k8sClient.Status().Update(ctx, &cur)
	}, eventually).Should(Succeed())
}

func TestImagePolicyChangeRequestsOnlyKCLRunsUsingIt(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)
	policy := newImagePolicy(t, ns, "app")
	newImagePolicy(t, ns, "other")

	user := newKCLRun(t, ns, "user", "repo")
	otherUser := newKCLRun(t, ns, "other-user", "repo")
	newKCLRun(t, ns, "bystander", "repo")
	setImagePolicies(t, user, ns+"/app", ns+"/other")
	setImagePolicies(t, otherUser, ns+"/other")
	for _, name := range []string{"user", "other-user", "bystander"} {
		waitForReason(t, ns, name, reconcilerequest.ReasonCreated)
		consume(t, ns, name)
	}

	setLatestRef(t, policy, "1.0.1")
	req := waitForReason(t, ns, "user", reconcilerequest.ReasonImagePolicyChanged)
	g.Expect(req.Trigger).To(Equal("ImagePolicy/" + ns + "/app"))

	// Barrier: the next tag reaches user after anything the first change queued.
	consume(t, ns, "user")
	setLatestRef(t, policy, "1.0.2")
	waitForReason(t, ns, "user", reconcilerequest.ReasonImagePolicyChanged)
	g.Expect(pendingCount(g, ns, "other-user")).To(BeZero())
	g.Expect(pendingCount(g, ns, "bystander")).To(BeZero())
}

// Deleting a policy changes what its markers resolve to (the KCLRun must hold), and so
// does creating one a held KCLRun waits for: both publish for the KCLRuns using it only.
func TestImagePolicyDeletionAndCreationRequestKCLRunsUsingIt(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	policy := newImagePolicy(t, ns, "app")
	user := newKCLRun(t, ns, "user", "repo")
	newKCLRun(t, ns, "bystander", "repo")
	setImagePolicies(t, user, ns+"/app")
	for _, name := range []string{"user", "bystander"} {
		waitForReason(t, ns, name, reconcilerequest.ReasonCreated)
		consume(t, ns, name)
	}

	g.Expect(k8sClient.Delete(ctx, policy)).To(Succeed())
	req := waitForReason(t, ns, "user", reconcilerequest.ReasonImagePolicyChanged)
	g.Expect(req.Trigger).To(Equal("ImagePolicy/" + ns + "/app"))
	consume(t, ns, "user")

	// Recreated without a latestRef yet: the held KCLRun hears of it at once.
	newImagePolicy(t, ns, "app")
	waitForReason(t, ns, "user", reconcilerequest.ReasonImagePolicyChanged)
	g.Expect(pendingCount(g, ns, "bystander")).To(BeZero())
}
