package e2e

import (
	"strings"
	"testing"

	"github.com/fluxcd/pkg/apis/meta"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestSyntaxErrorKeepsObjectsUntilFixed: a commit that does not parse turns
// the KCLRun Ready=False with the file and line in the message and leaves the
// applied objects alone; the fixing commit is applied.
func TestSyntaxErrorKeepsObjectsUntilFixed(t *testing.T) {
	s := newStory(t, "syntax")
	program := readProgram(t, "kcl-deployment")
	first := s.commit("nginx 1.7.7", program)
	s.deliver()
	s.waitApplied(first)
	var before string
	s.Eventually(func(g Gomega) {
		d := s.deployment(g, "nginx-deployment")
		g.Expect(containerImages(d)).To(Equal([]string{"nginx:1.7.7"}))
		before = d.ResourceVersion
	})

	// Line 3 of main.k becomes `kind = = "Deployment"`: column 8 is unexpected.
	broken := strings.Replace(program["main.k"], `kind = "Deployment"`, `kind = = "Deployment"`, 1)
	if broken == program["main.k"] {
		t.Fatal("the program no longer has the line this test breaks")
	}
	bad := s.commitAndReconcile("break the program", map[string]string{"main.k": broken})
	s.Eventually(func(g Gomega) {
		run := s.getRun(g)
		g.Expect(run.Status.LastAttemptedRevision).To(HaveSuffix(bad.commit))
		ready := readyCondition(run)
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
		g.Expect(ready.Message).To(ContainSubstring("main.k:3:8"))
		g.Expect(run.Status.LastAppliedRevision).To(HaveSuffix(first))
	})
	d := s.deployment(NewWithT(t), "nginx-deployment")
	NewWithT(t).Expect(d.ResourceVersion).To(Equal(before), "the Deployment was written while the program was broken")
	t.Logf("Ready=False message: %s", readyCondition(s.getRun(NewWithT(t))).Message)

	fixed := strings.Replace(program["main.k"], `"nginx:1.7.7"`, `"nginx:1.7.8"`, 1)
	good := s.commitAndReconcile("fix the program", map[string]string{"main.k": fixed})
	s.waitApplied(good.commit)
	s.Eventually(func(g Gomega) {
		g.Expect(containerImages(s.deployment(g, "nginx-deployment"))).To(Equal([]string{"nginx:1.7.8"}))
		g.Expect(readyCondition(s.getRun(g)).Reason).To(Equal(meta.ReconciliationSucceededReason))
	})
}
