package watcher

import (
	"testing"
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kclv1 "github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
)

func TestIntervalElapsedPublishes(t *testing.T) {
	ns := newNamespace(t)
	newKCLRun(t, ns, "periodic", "repo", func(r *kclv1.KCLRun) {
		r.Spec.Interval = metav1.Duration{Duration: time.Second}
	})
	waitForReason(t, ns, "periodic", reconcilerequest.ReasonCreated)
	consume(t, ns, "periodic")
	waitForReason(t, ns, "periodic", reconcilerequest.ReasonIntervalElapsed)
}

func TestRetryIntervalAfterFailure(t *testing.T) {
	ns := newNamespace(t)
	run := newKCLRun(t, ns, "failing", "repo", func(r *kclv1.KCLRun) {
		r.Spec.RetryInterval = &metav1.Duration{Duration: time.Second}
	})
	waitForReason(t, ns, "failing", reconcilerequest.ReasonCreated)
	consume(t, ns, "failing")

	setReady(t, run, metav1.ConditionFalse, kclv1.CompileFailedReason, "main@sha1:1")
	// The interval is an hour: only the retry interval can bring this.
	waitForReason(t, ns, "failing", reconcilerequest.ReasonRetryIntervalElapsed)
}

func TestSuspendedKCLRunGetsNoPeriodicRequests(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)
	newKCLRun(t, ns, "suspended", "repo", func(r *kclv1.KCLRun) {
		r.Spec.Interval = metav1.Duration{Duration: time.Second}
		r.Spec.Suspend = true
	})
	// A suspended KCLRun still gets its Created request: the applier records
	// the suspension in its status.
	waitForReason(t, ns, "suspended", reconcilerequest.ReasonCreated)
	consume(t, ns, "suspended")
	// Barrier: a periodic KCLRun with the same interval, created after, fires.
	newKCLRun(t, ns, "ticking", "repo", func(r *kclv1.KCLRun) {
		r.Spec.Interval = metav1.Duration{Duration: time.Second}
	})
	waitForReason(t, ns, "ticking", reconcilerequest.ReasonIntervalElapsed)
	g.Expect(pendingCount(g, ns, "suspended")).To(BeZero())
}
