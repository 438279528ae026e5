package cli_test

import (
	"io"
	"log"
	"os/exec"
	"testing"
	"time"

	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/gitserver"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/sourcecontroller"
)

// reconcile --with-source asks the real source-controller first and waits for its fetch,
// so a commit pushed a moment ago is applied without waiting for the source's interval.
func TestReconcileWithSource(t *testing.T) {
	g, ctx := setup(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	log.SetOutput(io.Discard) // the Git server logs every request
	git, err := gitserver.Start()
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(git.Stop)
	sc, err := sourcecontroller.Start(ctx, env, sourcecontroller.Options{})
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = sc.Stop() })

	ns := namespace(t, "withsource")
	repo, err := git.NewRepository("web")
	g.Expect(err).NotTo(HaveOccurred())
	first, err := repo.Commit("nginx 1.7.7", program(deployment("web", "nginx:1.7.7", "")))
	g.Expect(err).NotTo(HaveOccurred())
	src := &sourcev1.GitRepository{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
		Spec: sourcev1.GitRepositorySpec{
			URL: repo.URL, Reference: &sourcev1.GitRepositoryRef{Branch: gitserver.Branch},
			Interval: metav1.Duration{Duration: time.Hour}, // only a request fetches the next commit
		},
	}
	g.Expect(env.Client.Create(ctx, src)).To(Succeed())
	web := newRun(t, ns, "web", "web", func(r *v1alpha1.KCLRun) { r.Spec.TargetNamespace = ns })
	readyAt(t, g, web, gitserver.Branch+"@sha1:"+first)

	second, err := repo.Commit("nginx 1.7.8", program(deployment("web", "nginx:1.7.8", "")))
	g.Expect(err).NotTo(HaveOccurred())
	r := run(t, "reconcile", "kclrun", "web", "-n", ns, "--with-source")
	g.Expect(r.code).To(Equal(0), r.err)
	want := gitserver.Branch + "@sha1:" + second
	g.Expect(r.err).To(ContainSubstring("► annotating GitRepository web in " + ns + " namespace\n"))
	g.Expect(r.err).To(ContainSubstring("✔ fetched revision " + want + "\n"))
	g.Expect(r.err).To(HaveSuffix("✔ applied revision " + want + "\n"))
}
