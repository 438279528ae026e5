package cli_test

import (
	"strings"
	"time"

	"testing"

	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/yaml"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/imagepolicy"
)

// get kclruns prints flux's columns, the images the policies moved, and filters by status.
func TestGetKCLRuns(t *testing.T) {
	g, ctx := setup(t)
	ns := namespace(t, "get")
	_, err := imagepolicy.Create(ctx, env.Client, ns, "web", imagev1.ImageRef{Name: "nginx", Tag: "1.7.9"})
	g.Expect(err).NotTo(HaveOccurred())
	rev := publish(t, ns, "repo", 1, program(deployment("web", "nginx:1.7.8", "web")))
	web := newRun(t, ns, "web", "repo", func(r *v1alpha1.KCLRun) { r.Spec.TargetNamespace = ns })
	publish(t, ns, "broken", 1, map[string]string{"main.k": "a = \n"})
	broken := newRun(t, ns, "broken", "broken", nil)
	readyAt(t, g, web, rev)
	g.Eventually(func() string {
		return run(t, "get", "kclruns", "-n", ns, "--status-selector", "ready=false").out
	}, waitTimeout).Should(ContainSubstring("InvalidSyntax"))
	_ = broken

	r := run(t, "get", "kclruns", "-n", ns)
	g.Expect(r.code).To(Equal(0), r.err)
	golden(t, "get-kclruns", r.out, ns)

	r = run(t, "get", "kclruns", "-n", ns, "--status-selector", "ready=true")
	g.Expect(r.out).To(ContainSubstring("web"))
	g.Expect(r.out).NotTo(ContainSubstring("broken"))

	r = run(t, "get", "kclruns", "-A", "--status-selector", "ready!=true", "--no-header")
	g.Expect(r.out).To(ContainSubstring(ns + "\tbroken"))
	g.Expect(r.out).NotTo(ContainSubstring("\tweb"))

	r = run(t, "get", "kclrun", "web", "-n", ns, "-o", "yaml")
	g.Expect(r.code).To(Equal(0), r.err)
	var got v1alpha1.KCLRun
	g.Expect(yaml.Unmarshal([]byte(r.out), &got)).To(Succeed())
	g.Expect(got.Kind).To(Equal("KCLRun"))
	g.Expect(got.Status.LastAppliedRevision).To(Equal(rev))

	r = run(t, "get", "kclruns", "-n", ns, "-o", "json")
	g.Expect(r.out).To(ContainSubstring(`"kind": "List"`))

	oneClearLine(t, run(t, "get", "kclrun", "nothere", "-n", ns), 1, `KCLRun "nothere" not found`)

	// --watch: the table, then a row per change, until --timeout.
	go func() {
		time.Sleep(time.Second) // likely after the watch started; either way the row shows it
		_ = run(t, "suspend", "kclrun", "web", "-n", ns)
	}()
	r = run(t, "get", "kclruns", "-n", ns, "--watch", "--timeout", "8s")
	g.Expect(r.code).To(Equal(0), r.err)
	g.Expect(strings.Count(r.out, "NAME")).To(Equal(1), r.out)
	g.Expect(r.out).To(MatchRegexp(`(?m)^web\s+\S+\s+True\s+True`), "the suspended row")

	r = run(t, "__complete", "reconcile", "kclrun", "-n", ns, "")
	g.Expect(r.code).To(Equal(0), r.err)
	g.Expect(r.out).To(HavePrefix("broken\nweb\n:4\n"))
}
