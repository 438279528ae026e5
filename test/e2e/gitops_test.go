package e2e

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kclv1 "github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/gitserver"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/sourcecontroller"
)

const (
	// deliveryTimeout bounds each wait for the controllers; generous because the
	// machine running the suite may be busy. Nothing asserts on speed.
	deliveryTimeout = 3 * time.Minute
	// pollInterval is also the resolution of the latencies the stories log.
	pollInterval = 50 * time.Millisecond
)

// story is one test's own namespace, repository, GitRepository and KCLRun.
type story struct {
	t         *testing.T
	ctx       context.Context
	c         client.Client
	namespace string
	repo      *gitserver.Repository
	source    *sourcev1.GitRepository
	run       *kclv1.KCLRun
}

// newStory creates a namespace and an empty repository named after it.
func newStory(t *testing.T, prefix string) *story {
	t.Helper()
	requireSuite(t)
	ctx := context.Background()
	ns, err := suite.env.CreateNamespace(ctx, prefix)
	if err != nil {
		t.Fatalf("creating namespace: %v", err)
	}
	repo, err := suite.git.NewRepository(ns)
	if err != nil {
		t.Fatal(err)
	}
	return &story{t: t, ctx: ctx, c: suite.env.Client, namespace: ns, repo: repo}
}

// commit commits files and deletes removed in the story's repository, pushes, and returns
// the commit's hash.
func (s *story) commit(message string, files map[string]string, removed ...string) string {
	s.t.Helper()
	hash, err := s.repo.Commit(message, files, removed...)
	if err != nil {
		s.t.Fatal(err)
	}
	return hash
}

// deliver creates the GitRepository following the repository's main branch
// and a KCLRun of the program at its root, pruning, into the story's namespace;
// mutate changes the KCLRun before it is created.
func (s *story) deliver(mutate ...func(*kclv1.KCLRun)) {
	s.t.Helper()
	g := NewWithT(s.t)
	s.source = &sourcev1.GitRepository{
		ObjectMeta: metav1.ObjectMeta{Namespace: s.namespace, Name: "kcl-deployment"},
		Spec: sourcev1.GitRepositorySpec{
			URL:       s.repo.URL,
			Reference: &sourcev1.GitRepositoryRef{Branch: "main"},
			// Long: commits are picked up on request, as `flux reconcile` asks.
			Interval: metav1.Duration{Duration: time.Hour},
		},
	}
	g.Expect(s.c.Create(s.ctx, s.source)).To(Succeed())
	s.run = &kclv1.KCLRun{
		ObjectMeta: metav1.ObjectMeta{Namespace: s.namespace, Name: "kcl-deployment"},
		Spec: kclv1.KCLRunSpec{
			SourceRef:       kclv1.CrossNamespaceSourceReference{Kind: sourcev1.GitRepositoryKind, Name: s.source.Name},
			Interval:        metav1.Duration{Duration: time.Hour},
			Prune:           true,
			TargetNamespace: s.namespace,
		},
	}
	for _, m := range mutate {
		m(s.run)
	}
	g.Expect(s.c.Create(s.ctx, s.run)).To(Succeed())
}

// requestSourceReconcile annotates the GitRepository as `flux reconcile
// source git` does, so source-controller fetches the new commit at once.
func (s *story) requestSourceReconcile() {
	s.t.Helper()
	if err := sourcecontroller.RequestReconcile(s.ctx, s.c, s.source); err != nil {
		s.t.Fatal(err)
	}
}

// change is a pushed commit whose fetch was requested.
type change struct {
	commit string
	// started is when git commit started, requested when the fetch was asked for.
	started, requested time.Time
}

// commitAndReconcile commits, pushes and requests a fetch.
func (s *story) commitAndReconcile(message string, files map[string]string, removed ...string) change {
	s.t.Helper()
	started := time.Now()
	hash := s.commit(message, files, removed...)
	requested := time.Now()
	s.requestSourceReconcile()
	return change{commit: hash, started: started, requested: requested}
}

// waitApplied waits until the KCLRun is Ready with commit applied, and returns
// when source-controller first served it and when the KCLRun first reported it.
func (s *story) waitApplied(commit string) (fetched, applied time.Time) {
	s.t.Helper()
	s.Eventually(func(g Gomega) {
		if fetched.IsZero() {
			var src sourcev1.GitRepository
			g.Expect(s.c.Get(s.ctx, client.ObjectKeyFromObject(s.source), &src)).To(Succeed())
			if src.Status.Artifact != nil && strings.HasSuffix(src.Status.Artifact.Revision, commit) {
				fetched = time.Now()
			}
		}
		run := s.getRun(g)
		g.Expect(run.Status.LastAppliedRevision).To(HaveSuffix(commit), "Ready: %v", readyCondition(run))
		g.Expect(apimeta.IsStatusConditionTrue(run.Status.Conditions, meta.ReadyCondition)).To(BeTrue(), "Ready: %v", readyCondition(run))
	})
	applied = time.Now()
	if fetched.IsZero() {
		fetched = applied // both seen in the same poll
	}
	return fetched, applied
}

// waitAppliedRevision waits until the KCLRun is Ready with a revision ending
// in suffix applied, whatever its source's kind.
func (s *story) waitAppliedRevision(suffix string) {
	s.t.Helper()
	s.Eventually(func(g Gomega) {
		run := s.getRun(g)
		g.Expect(run.Status.LastAppliedRevision).To(HaveSuffix(suffix), "Ready: %v", readyCondition(run))
		g.Expect(apimeta.IsStatusConditionTrue(run.Status.Conditions, meta.ReadyCondition)).To(BeTrue(), "Ready: %v", readyCondition(run))
	})
}

// Eventually polls f at the suite's interval until it passes; it gives up at once if
// source-controller has ended.
func (s *story) Eventually(f func(g Gomega)) {
	s.t.Helper()
	NewWithT(s.t).Eventually(func(g Gomega) {
		select {
		case <-suite.sourceController.Done():
			StopTrying("source-controller has exited; its log is in " + suite.logDir).Now()
		default:
		}
		f(g)
	}).WithTimeout(deliveryTimeout).WithPolling(pollInterval).Should(Succeed())
}

func (s *story) getRun(g Gomega) *kclv1.KCLRun {
	var run kclv1.KCLRun
	g.Expect(s.c.Get(s.ctx, client.ObjectKeyFromObject(s.run), &run)).To(Succeed())
	return &run
}

// deployment returns the Deployment name of the story's namespace.
func (s *story) deployment(g Gomega, name string) *appsv1.Deployment {
	var d appsv1.Deployment
	g.Expect(s.c.Get(s.ctx, client.ObjectKey{Namespace: s.namespace, Name: name}, &d)).To(Succeed())
	return &d
}

// expectGone fails g unless obj no longer exists.
func (s *story) expectGone(g Gomega, obj client.Object) {
	err := s.c.Get(s.ctx, client.ObjectKeyFromObject(obj), obj)
	g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "%T %s still exists (err %v)", obj, obj.GetName(), err)
}

func readyCondition(run *kclv1.KCLRun) *metav1.Condition {
	return apimeta.FindStatusCondition(run.Status.Conditions, meta.ReadyCondition)
}

func containerImages(d *appsv1.Deployment) []string {
	var images []string
	for _, c := range d.Spec.Template.Spec.Containers {
		images = append(images, c.Image)
	}
	return images
}

// readProgram reads a program of testdata as repository files.
func readProgram(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir("testdata/" + dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, e := range entries {
		data, err := os.ReadFile("testdata/" + dir + "/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = string(data)
	}
	return files
}
