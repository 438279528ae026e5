package cli_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fluxcd/pkg/apis/meta"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
)

// reconcile returns once the controller has handled the request, with the revision; a
// program that does not compile fails with its file:line; a request nobody handles times
// out clearly.
func TestReconcileKCLRun(t *testing.T) {
	g, ctx := setup(t)
	ns := namespace(t, "reconcile")
	rev := publish(t, ns, "repo", 1, program(configMap("a", `{x = "1"}`)))
	web := newRun(t, ns, "web", "repo", nil)
	readyAt(t, g, web, rev)

	r := run(t, "reconcile", "kclrun", "web", "-n", ns)
	g.Expect(r.code).To(Equal(0), r.err)
	g.Expect(r.err).To(ContainSubstring("► annotating KCLRun web in " + ns + " namespace"))
	g.Expect(r.err).To(HaveSuffix("✔ applied revision " + rev + "\n"))
	var cur v1alpha1.KCLRun
	g.Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(web), &cur)).To(Succeed())
	requested := cur.Annotations[meta.ReconcileRequestAnnotation]
	g.Expect(requested).NotTo(BeEmpty())
	g.Expect(cur.Status.LastHandledReconcileAt).To(Equal(requested), "it returned before the controller handled the request")

	publish(t, ns, "broken", 1, map[string]string{"main.k": "a = \n"})
	newRun(t, ns, "broken", "broken", nil)
	oneClearLine(t, run(t, "reconcile", "kclrun", "broken", "-n", ns), 1, "reconciliation failed: main.k:1:")

	// The artifact download hangs: the controller cannot finish, the command gives up.
	path := artifactserver.ArtifactPath("GitRepository", ns, "held", "r1.tar.gz")
	publish(t, ns, "held", 1, program(configMap("b", `{x = "1"}`)))
	release := artifacts.Hold(path)
	defer release()
	newRun(t, ns, "held", "held", nil)
	oneClearLine(t, run(t, "reconcile", "kclrun", "held", "-n", ns, "--timeout", "3s"), 1,
		fmt.Sprintf("timed out after 3s waiting for KCLRun %s/held to be reconciled", ns))

	oneClearLine(t, run(t, "reconcile", "kclrun", "nothere", "-n", ns), 1, `KCLRun "nothere" not found in "`+ns+`" namespace`)
}

// suspend and resume patch spec.suspend (one name, several, --all); resume waits for the
// controller as flux resume does.
func TestSuspendResumeKCLRun(t *testing.T) {
	g, ctx := setup(t)
	ns := namespace(t, "suspend")
	rev := publish(t, ns, "repo", 1, program(configMap("a", `{x = "1"}`)))
	one := newRun(t, ns, "one", "repo", nil)
	two := newRun(t, ns, "two", "repo", func(r *v1alpha1.KCLRun) { r.Spec.Prune = false })
	readyAt(t, g, one, rev)
	readyAt(t, g, two, rev)

	r := run(t, "suspend", "kclrun", "one", "-n", ns)
	g.Expect(r.code).To(Equal(0), r.err)
	g.Expect(r.err).To(ContainSubstring("✔ KCLRun suspended"))
	suspended := func(name string) bool {
		var cur v1alpha1.KCLRun
		g.Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &cur)).To(Succeed())
		return cur.Spec.Suspend
	}
	g.Expect(suspended("one")).To(BeTrue())
	g.Expect(run(t, "get", "kclruns", "-n", ns, "--no-header").out).To(MatchRegexp(`(?m)^one\s+\S+\s+True\s+True`))
	oneClearLine(t, run(t, "reconcile", "kclrun", "one", "-n", ns), 1, "is suspended")

	r = run(t, "resume", "kclrun", "one", "-n", ns)
	g.Expect(r.code).To(Equal(0), r.err)
	g.Expect(r.err).To(ContainSubstring("✔ KCLRun one reconciliation completed"))
	g.Expect(r.err).To(HaveSuffix("✔ applied revision " + rev + "\n"))
	g.Expect(suspended("one")).To(BeFalse())

	r = run(t, "suspend", "kclrun", "--all", "-n", ns)
	g.Expect(r.code).To(Equal(0), r.err)
	g.Expect(suspended("one") && suspended("two")).To(BeTrue())
	r = run(t, "resume", "kclrun", "--all", "--wait", "-n", ns)
	g.Expect(r.code).To(Equal(0), r.err)
	g.Expect(strings.Count(r.err, "reconciliation completed")).To(Equal(2), r.err)
	g.Expect(suspended("one") || suspended("two")).To(BeFalse())

	oneClearLine(t, run(t, "suspend", "kclrun", "-n", ns), 1, "name the KCLRuns, or give --all")
}
