package cli_test

import (
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// With spec.driftDetection.mode warn, get kclruns lists the drifted object and its JSON
// pointers, and events shows the one warning, while the edit stays.
func TestGetAndEventsShowDrift(t *testing.T) {
	g, ctx := setup(t)
	ns := namespace(t, "drift")
	rev := publish(t, ns, "repo", 1, program(deployment("web", "nginx:1.27", "")))
	web := newRun(t, ns, "web", "repo", func(r *v1alpha1.KCLRun) {
		r.Spec.TargetNamespace = ns
		r.Spec.DriftDetection = &v1alpha1.DriftDetection{Mode: v1alpha1.DriftDetectionWarn}
	})
	readyAt(t, g, web, rev)

	deploy := &appsv1.Deployment{}
	g.Expect(env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "web"}, deploy)).To(Succeed())
	deploy.Spec.Template.Spec.Containers[0].Image = "nginx:1.28"
	g.Expect(env.Client.Update(ctx, deploy, client.FieldOwner("kubectl-edit"))).To(Succeed())

	g.Eventually(func() string { return run(t, "get", "kclruns", "-n", ns).out }, waitTimeout).Should(
		MatchRegexp(`(?m)^KCLRUN\s+DRIFTED\s+PATHS\n^web\s+Deployment/` + ns + `/web\s+/spec/template/spec/containers/0/image$`))
	r := run(t, "events", "kclrun", "web", "-n", ns)
	g.Expect(r.code).To(Equal(0), r.err)
	g.Expect(r.out).To(MatchRegexp(`(?m)\tWarning\s*\tDriftDetected\s+\tKCLRun/web\tDrift detected in 1 objects`))
	g.Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(deploy), deploy)).To(Succeed())
	g.Expect(deploy.Spec.Template.Spec.Containers[0].Image).To(Equal("nginx:1.28"))
}
