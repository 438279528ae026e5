package applier_test

import (
	"context"
	"fmt"
	"testing"

	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
)

func markedWebApp(namespace string) string {
	return fmt.Sprintf(`items = [{
    apiVersion = "apps/v1"
    kind = "Deployment"
    metadata = {name = "web"}
    spec = {
        selector = {matchLabels = {app = "web"}}
        template = {
            metadata = {labels = {app = "web"}}
            spec = {containers = [{
                name = "web"
                image = "ghcr.io/org/web:1.0.0" # {"$imagepolicy": "%s:web"}
            }]}
        }
    }
}]
`, namespace)
}

// A $imagepolicy marker follows the ImagePolicy's latestRef without a commit:
// a new latestRef is a change (not a no-op) and is applied.
func TestImagePolicyMarkersFollowLatestRef(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	policy := &imagev1.ImagePolicy{
		ObjectMeta: objectMeta(ns, "web"),
		Spec: imagev1.ImagePolicySpec{
			ImageRepositoryRef: meta.NamespacedObjectReference{Name: "web"},
			Policy:             imagev1.ImagePolicyChoice{SemVer: &imagev1.SemVerPolicy{Range: ">=1.0.0"}},
		},
	}
	g.Expect(env.Client.Create(ctx, policy)).To(Succeed())
	setLatest := func(tag string) {
		policy.Status.LatestRef = &imagev1.ImageRef{Name: "ghcr.io/org/web", Tag: tag}
		g.Expect(env.Client.Status().Update(ctx, policy)).To(Succeed())
	}
	setLatest("2.0.0")

	artifact := publishProgram(t, ns, "app", markedWebApp(ns))
	createKCLRun(t, ns, "web", "app")
	obj := readyAt(t, ns, "web", artifact.Revision)
	g.Expect(obj.Status.ImagePolicies).To(Equal([]string{ns + "/web"}))
	g.Expect(obj.Status.Images).To(ConsistOf(HaveField("To", "ghcr.io/org/web:2.0.0")))
	g.Expect(conditionOf(obj, v1alpha1.ImagesResolvedCondition)).To(HaveField("Status", metav1.ConditionTrue))
	deploy := &appsv1.Deployment{}
	key := types.NamespacedName{Namespace: ns, Name: "web"}
	g.Expect(env.Client.Get(ctx, key, deploy)).To(Succeed())
	g.Expect(deploy.Spec.Template.Spec.Containers[0].Image).To(Equal("ghcr.io/org/web:2.0.0"))

	setLatest("2.1.0")
	request(t, ns, "web", reconcilerequest.ReasonImagePolicyChanged)
	g.Eventually(func(g Gomega) {
		g.Expect(env.Client.Get(ctx, key, deploy)).To(Succeed())
		g.Expect(deploy.Spec.Template.Spec.Containers[0].Image).To(Equal("ghcr.io/org/web:2.1.0"))
	}, "1m").Should(Succeed())
	assertNoOverlap(t)
}
