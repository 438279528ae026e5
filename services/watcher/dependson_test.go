package watcher

import (
	"testing"

	"github.com/fluxcd/pkg/apis/meta"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kclv1 "github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
)

func TestDependencyReadyPublishesForDependents(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)
	other := newNamespace(t)
	base := newKCLRun(t, ns, "base", "repo")
	newKCLRun(t, ns, "app", "repo", func(r *kclv1.KCLRun) {
		r.Spec.DependsOn = []meta.DependencyReference{{Name: "base"}}
	})
	newKCLRun(t, other, "remote-app", "repo", func(r *kclv1.KCLRun) {
		r.Spec.DependsOn = []meta.DependencyReference{{Name: "base", Namespace: ns}}
	})
	newKCLRun(t, ns, "unrelated", "repo")
	for _, k := range [][2]string{{ns, "base"}, {ns, "app"}, {other, "remote-app"}, {ns, "unrelated"}} {
		waitForReason(t, k[0], k[1], reconcilerequest.ReasonCreated)
		consume(t, k[0], k[1])
	}

	setReady(t, base, metav1.ConditionTrue, meta.ReconciliationSucceededReason, "main@sha1:1")
	for _, k := range [][2]string{{ns, "app"}, {other, "remote-app"}} {
		req := waitForReason(t, k[0], k[1], reconcilerequest.ReasonDependencyReady)
		g.Expect(req.Trigger).To(Equal("KCLRun/" + ns + "/base"))
	}

	// Barrier: a newly applied revision wakes the dependents again, after
	// anything the first transition queued.
	consume(t, ns, "app")
	setReady(t, base, metav1.ConditionTrue, meta.ReconciliationSucceededReason, "main@sha1:2")
	waitForReason(t, ns, "app", reconcilerequest.ReasonDependencyReady)
	g.Expect(pendingCount(g, ns, "unrelated")).To(BeZero())
	g.Expect(pendingCount(g, ns, "base")).To(BeZero())
}
