package e2e

import (
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestQuickStart is the original project's quick start: a GitRepository and a
// KCLRun deploy nginx; a commit changing the image and the Deployment's name
// is followed, and the old Deployment is pruned.
func TestQuickStart(t *testing.T) {
	s := newStory(t, "quickstart")
	program := readProgram(t, "kcl-deployment")
	first := s.commit("nginx 1.7.7", program)
	s.deliver()

	s.waitApplied(first)
	s.Eventually(func(g Gomega) {
		g.Expect(containerImages(s.deployment(g, "nginx-deployment"))).To(Equal([]string{"nginx:1.7.7"}))
	})

	updated := strings.NewReplacer(`"nginx:1.7.7"`, `"nginx:1.7.8"`, `"nginx-deployment"`, `"nginx-deployment-1"`).
		Replace(program["main.k"])
	second := s.commitAndReconcile("nginx 1.7.8", map[string]string{"main.k": updated})
	fetched, applied := s.waitApplied(second.commit)
	s.Eventually(func(g Gomega) {
		g.Expect(containerImages(s.deployment(g, "nginx-deployment-1"))).To(Equal([]string{"nginx:1.7.8"}))
		s.expectGone(g, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: s.namespace, Name: "nginx-deployment"}})
	})
	ms := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	t.Logf("commit→applied latency: %s (git commit+push %s, reconcile request→artifact %s, artifact→applied %s; poll resolution %s)",
		ms(applied.Sub(second.started)), ms(second.requested.Sub(second.started)),
		ms(fetched.Sub(second.requested)), ms(applied.Sub(fetched)), pollInterval)
}
