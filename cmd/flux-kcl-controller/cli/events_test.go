package cli_test

import (
	"strings"
	"testing"

	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	. "github.com/onsi/gomega"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/imagepolicy"
)

// events lists the KCLRun's events, the images its policies moved first.
func TestEventsKCLRun(t *testing.T) {
	g, ctx := setup(t)
	ns := namespace(t, "events")
	policy, err := imagepolicy.Create(ctx, env.Client, ns, "web", imagev1.ImageRef{Name: "nginx", Tag: "1.7.8"})
	g.Expect(err).NotTo(HaveOccurred())
	rev := publish(t, ns, "repo", 1, program(deployment("web", "nginx:1.7.7", "web")))
	web := newRun(t, ns, "web", "repo", func(r *v1alpha1.KCLRun) { r.Spec.TargetNamespace = ns })
	readyAt(t, g, web, rev)
	g.Expect(imagepolicy.SetLatest(ctx, env.Client, policy, imagev1.ImageRef{Name: "nginx", Tag: "1.7.9"})).To(Succeed())
	var r result
	g.Eventually(func() string {
		r = run(t, "events", "kclrun", "web", "-n", ns)
		return r.out
	}, waitTimeout).Should(ContainSubstring("nginx:1.7.8 → 1.7.9, policy " + ns + "/web at main.k:10"))
	g.Expect(r.code).To(Equal(0), r.err)
	golden(t, "events-image-moves", strings.SplitN(r.out, "\n\n", 2)[0]+"\n", ns)
	g.Expect(r.out).To(ContainSubstring("nginx:1.7.7 → 1.7.8, policy " + ns + "/web at main.k:10"))
	g.Expect(r.out).To(MatchRegexp(`(?m)^\S+\s+\tNormal\s*\tImageUpdated\s+\tKCLRun/web\tnginx:1.7.8 → nginx:1.7.9`))
	g.Expect(r.out).To(MatchRegexp(`(?m)\tReconciliationSucceeded\s*\tKCLRun/web\tDeployment/` + ns + `/web (created|configured)`))

	oneClearLine(t, run(t, "events", "kclrun", "nothere", "-n", ns), 1, `KCLRun "nothere" not found`)
}
