package applier_test

import (
	"context"
	"testing"
	"time"

	eventv1 "github.com/fluxcd/pkg/apis/event/v1"
	"github.com/fluxcd/pkg/apis/kustomize"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
	"github.com/kcl-lang/flux-kcl-controller/services/applier"
)

func driftMode(mode string) func(*v1alpha1.KCLRun) {
	return func(k *v1alpha1.KCLRun) { k.Spec.DriftDetection = &v1alpha1.DriftDetection{Mode: mode} }
}

// scaleByHand sets the Deployment's replicas as kubectl edit would.
func scaleByHand(t *testing.T, key types.NamespacedName, replicas int32) {
	t.Helper()
	g := NewWithT(t)
	g.Eventually(func() error {
		deploy := &appsv1.Deployment{}
		if err := env.Client.Get(context.Background(), key, deploy); err != nil {
			return err
		}
		deploy.Spec.Replicas = ptr.To(replicas)
		return env.Client.Update(context.Background(), deploy, client.FieldOwner("kubectl-edit"))
	}, "10s").Should(Succeed())
}

func eventsWithReason(ns, name, reason string) []eventv1.Event {
	var out []eventv1.Event
	for _, e := range events.forObject(ns, name) {
		if e.Reason == reason {
			out = append(out, e)
		}
	}
	return out
}

// warn corrects nothing: status.drift lists the drifted object and the JSON pointers that
// differ (not what spec.ignore leaves out), one warning event is sent per change of the
// drift (not per check) and a gauge counts the objects; undoing the edit by hand clears
// all three with one normal event.
func TestDriftWarnReportsWithoutCorrecting(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	artifact := publishProgram(t, ns, "app", webApp(2, true))
	createKCLRun(t, ns, "web", "app", driftMode(v1alpha1.DriftDetectionWarn), func(k *v1alpha1.KCLRun) {
		k.Spec.Ignore = []v1alpha1.IgnoreRule{{Paths: []string{"/spec/selector"}, Target: &kustomize.Selector{Kind: "Service"}}}
	})
	readyAt(t, ns, "web", artifact.Revision)
	key := types.NamespacedName{Namespace: ns, Name: "web"}

	// An ignored path edited: no drift to report.
	svc := &corev1.Service{}
	g.Expect(env.Client.Get(ctx, key, svc)).To(Succeed())
	svc.Spec.Selector = map[string]string{"app": "canary"}
	g.Expect(env.Client.Update(ctx, svc, client.FieldOwner("kubectl-edit"))).To(Succeed())
	g.Eventually(func() string {
		out := tracker.last(ns + "/web")
		if out.Err != nil {
			return out.Result + ": " + out.Err.Error()
		}
		return out.Result
	}, "1m", "200ms").Should(Equal(applier.ResultDriftChecked))

	scaleByHand(t, key, 7)
	deployment := ns + "_web_apps_Deployment"
	g.Eventually(func(g Gomega) {
		g.Expect(getKCLRun(g, ns, "web").Status.Drift).To(Equal([]v1alpha1.DriftedObject{
			{ID: deployment, Version: "v1", Paths: []string{"/spec/replicas"}},
		}))
	}, "1m", "200ms").Should(Succeed())
	g.Expect(replicasOf(g, ns, "web")).To(BeEquivalentTo(7), "warn corrects nothing")
	g.Expect(readyCondition(getKCLRun(g, ns, "web")).Status).To(BeEquivalentTo("True"))
	g.Eventually(func() []eventv1.Event { return eventsWithReason(ns, "web", v1alpha1.DriftDetectedReason) }, "30s").Should(
		ConsistOf(And(
			HaveField("Severity", eventv1.EventSeverityError),
			HaveField("Message", ContainSubstring("Deployment/"+ns+"/web: /spec/replicas")))))
	drifted := map[string]string{"namespace": ns, "name": "web"}
	g.Eventually(func(g Gomega) {
		families, err := metrics.Gather()
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(sample(families, "fkc_applier_drifted_objects", drifted, nil)).To(HaveField("Gauge.Value", HaveValue(BeNumerically("==", 1))))
	}, "30s").Should(Succeed())

	// Another check finds the same drift: no second event, still not corrected.
	out := requestAndWait(t, ns, "web", reconcilerequest.ReasonDriftDetected)
	g.Expect(out.Result).To(Equal(applier.ResultDriftChecked))
	g.Expect(out.Changes).To(BeEmpty())
	g.Expect(replicasOf(g, ns, "web")).To(BeEquivalentTo(7))
	g.Expect(eventsWithReason(ns, "web", v1alpha1.DriftDetectedReason)).To(HaveLen(1))

	// A Service deleted by hand changes the drift: one more warning.
	g.Expect(env.Client.Delete(ctx, svc)).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(getKCLRun(g, ns, "web").Status.Drift).To(ContainElement(
			v1alpha1.DriftedObject{ID: ns + "_web__Service", Version: "v1", Deleted: true}))
	}, "1m", "200ms").Should(Succeed())
	g.Eventually(func() []eventv1.Event { return eventsWithReason(ns, "web", v1alpha1.DriftDetectedReason) }, "30s").Should(HaveLen(2))
	g.Expect(apierrors.IsNotFound(env.Client.Get(ctx, key, &corev1.Service{}))).To(BeTrue(), "warn recreates nothing")

	// Both undone by hand (the Service first: a creation is no edit the watcher reports,
	// the scale is): the drift is gone, said once.
	recreated := &corev1.Service{ObjectMeta: objectMeta(ns, "web"), Spec: corev1.ServiceSpec{
		Selector: map[string]string{"app": "web"},
		Ports:    []corev1.ServicePort{{Port: 80, TargetPort: svc.Spec.Ports[0].TargetPort}},
	}}
	recreated.Labels = svc.Labels
	g.Expect(env.Client.Create(ctx, recreated, client.FieldOwner("kubectl-edit"))).To(Succeed())
	scaleByHand(t, key, 2)
	g.Eventually(func(g Gomega) {
		g.Expect(getKCLRun(g, ns, "web").Status.Drift).To(BeEmpty())
	}, "1m", "200ms").Should(Succeed())
	g.Eventually(func() []eventv1.Event { return eventsWithReason(ns, "web", v1alpha1.DriftResolvedReason) }, "30s").Should(HaveLen(1))
	g.Eventually(func(g Gomega) {
		families, err := metrics.Gather()
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(sample(families, "fkc_applier_drifted_objects", drifted, nil)).To(BeNil())
	}, "30s").Should(Succeed())
	g.Expect(eventsWithReason(ns, "web", v1alpha1.DriftDetectedReason)).To(HaveLen(2))
	assertNoOverlap(t)
}

// enabled, spelled out, is today's behaviour: the edit is undone at once.
func TestDriftEnabledCorrects(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)
	artifact := publishProgram(t, ns, "app", webApp(2, false))
	createKCLRun(t, ns, "web", "app", driftMode(v1alpha1.DriftDetectionEnabled))
	readyAt(t, ns, "web", artifact.Revision)
	key := types.NamespacedName{Namespace: ns, Name: "web"}

	scaleByHand(t, key, 7)
	g.Eventually(func(g Gomega) { g.Expect(replicasOf(g, ns, "web")).To(BeEquivalentTo(2)) }, "1m", "200ms").Should(Succeed())
	g.Expect(getKCLRun(g, ns, "web").Status.Drift).To(BeEmpty())
	g.Expect(eventsWithReason(ns, "web", v1alpha1.DriftDetectedReason)).To(BeEmpty())
}

// disabled watches nothing: an edit, and the edit undone by hand, start no reconcile, and
// even a drift request finds nothing to do; a new revision is applied as always.
func TestDriftDisabledWatchesNothing(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)
	artifact := publishProgram(t, ns, "app", webApp(2, false))
	createKCLRun(t, ns, "web", "app", driftMode(v1alpha1.DriftDetectionDisabled))
	readyAt(t, ns, "web", artifact.Revision)
	key := types.NamespacedName{Namespace: ns, Name: "web"}
	reconciles := tracker.count(ns + "/web")

	scaleByHand(t, key, 7)
	g.Consistently(func(g Gomega) { g.Expect(replicasOf(g, ns, "web")).To(BeEquivalentTo(7)) }, "3s", "200ms").Should(Succeed())
	scaleByHand(t, key, 5)
	g.Consistently(func(g Gomega) { g.Expect(replicasOf(g, ns, "web")).To(BeEquivalentTo(5)) }, "3s", "200ms").Should(Succeed())
	g.Expect(tracker.count(ns+"/web")).To(Equal(reconciles), "no drift watch")

	g.Expect(requestAndWait(t, ns, "web", reconcilerequest.ReasonDriftDetected).Result).To(Equal(applier.ResultNoOp))
	g.Expect(replicasOf(g, ns, "web")).To(BeEquivalentTo(5))
	g.Expect(getKCLRun(g, ns, "web").Status.Drift).To(BeEmpty())

	next := publishProgram(t, ns, "app", webApp(3, false))
	request(t, ns, "web", reconcilerequest.ReasonSourceChanged)
	readyAt(t, ns, "web", next.Revision)
	g.Expect(replicasOf(g, ns, "web")).To(BeEquivalentTo(3))
}

// The CRD refuses an unknown mode.
func TestDriftModeUnknownRefused(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)
	obj := &v1alpha1.KCLRun{
		ObjectMeta: objectMeta(ns, "web"),
		Spec: v1alpha1.KCLRunSpec{
			SourceRef:      v1alpha1.CrossNamespaceSourceReference{Kind: "GitRepository", Name: "app"},
			Interval:       metav1.Duration{Duration: 10 * time.Minute},
			DriftDetection: &v1alpha1.DriftDetection{Mode: "audit"},
		},
	}
	err := env.Client.Create(context.Background(), obj)
	g.Expect(apierrors.IsInvalid(err)).To(BeTrue(), "%v", err)
	g.Expect(err.Error()).To(ContainSubstring(`spec.driftDetection.mode: Unsupported value: "audit"`))
}
