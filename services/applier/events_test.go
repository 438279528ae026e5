package applier_test

import (
	"fmt"
	"testing"

	eventv1 "github.com/fluxcd/pkg/apis/event/v1"
	"github.com/fluxcd/pkg/apis/meta"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
	"github.com/kcl-lang/flux-kcl-controller/services/applier"
)

// A real HTTP receiver decodes the Flux events of a success and a failure.
func TestEventsReachTheReceiver(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)
	good := publishProgram(t, ns, "app", configMap("settings", "v1"))
	createKCLRun(t, ns, "app", "app")
	readyAt(t, ns, "app", good.Revision)

	revisionKey := v1alpha1.GroupVersion.Group + "/revision"
	g.Eventually(func() []eventv1.Event { return events.forObject(ns, "app") }, "1m").Should(ContainElement(And(
		HaveField("Reason", meta.ReconciliationSucceededReason),
		HaveField("Severity", eventv1.EventSeverityInfo),
		HaveField("Metadata", HaveKeyWithValue(revisionKey, good.Revision)),
		HaveField("Message", ContainSubstring("ConfigMap/"+ns+"/settings created")),
		HaveField("InvolvedObject.Kind", v1alpha1.KCLRunKind),
		HaveField("ReportingController", "flux-kcl-controller"),
	)))

	bad := publishProgram(t, ns, "app", "items = [\n")
	request(t, ns, "app", reconcilerequest.ReasonSourceChanged)
	g.Eventually(func() []eventv1.Event { return events.forObject(ns, "app") }, "1m").Should(ContainElement(And(
		HaveField("Reason", v1alpha1.CompileFailedReason),
		HaveField("Severity", eventv1.EventSeverityError),
		HaveField("Metadata", HaveKeyWithValue(revisionKey, bad.Revision)),
		HaveField("Message", ContainSubstring("main.k")),
	)))
}

// A receiver that hangs delays no reconcile: events leave from a queue.
func TestReconcilesGoOnWhileTheReceiverHangs(t *testing.T) {
	ns := newNamespace(t)
	release := events.hang()
	defer release()
	for i := range 3 {
		a := publishProgram(t, ns, "app", configMap("settings", fmt.Sprintf("%s-%d", ns, i)))
		if i == 0 {
			createKCLRun(t, ns, "app", "app")
		} else {
			request(t, ns, "app", reconcilerequest.ReasonSourceChanged)
		}
		readyAt(t, ns, "app", a.Revision)
	}
	release()
	NewWithT(t).Eventually(func() []eventv1.Event { return events.forObject(ns, "app") }, "1m").ShouldNot(BeEmpty())
}

// Every reconcile that applies a new revision ends with kustomize-controller's
// closing event, carrying the metadata notification-controller updates the
// Git commit status from; a no-op interval sends none.
func TestSuccessEventUpdatesCommitStatus(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)
	first := publishProgram(t, ns, "app", configMap("settings", "v1"))
	createKCLRun(t, ns, "app", "app")
	readyAt(t, ns, "app", first.Revision)

	group := v1alpha1.GroupVersion.Group
	finished := func(revision string) types.GomegaMatcher {
		return And(
			HaveField("Reason", meta.ReconciliationSucceededReason),
			HaveField("Severity", eventv1.EventSeverityInfo),
			HaveField("Message", MatchRegexp(`^Reconciliation finished in \S+, next run in 10m0s$`)),
			HaveField("Metadata", Equal(map[string]string{
				group + "/" + eventv1.MetaRevisionKey:     revision,
				group + "/" + eventv1.MetaCommitStatusKey: eventv1.MetaCommitStatusUpdateValue,
			})),
		)
	}
	g.Eventually(func() []eventv1.Event { return events.forObject(ns, "app") }, "1m").Should(ContainElement(finished(first.Revision)))

	waitQuiet(t, ns+"/app")
	g.Expect(requestAndWait(t, ns, "app", reconcilerequest.ReasonIntervalElapsed).Result).To(Equal(applier.ResultNoOp))

	second := publishProgram(t, ns, "app", configMap("settings", "v2"))
	request(t, ns, "app", reconcilerequest.ReasonSourceChanged)
	readyAt(t, ns, "app", second.Revision)
	// Events leave in order from one queue: what the no-op sent came first.
	g.Eventually(func() []eventv1.Event { return events.forObject(ns, "app") }, "1m").Should(ContainElement(finished(second.Revision)))
	var closing []string
	for _, e := range events.forObject(ns, "app") {
		if e.Metadata[group+"/"+eventv1.MetaCommitStatusKey] != "" {
			closing = append(closing, e.Metadata[group+"/"+eventv1.MetaRevisionKey])
		}
	}
	g.Expect(closing).To(Equal([]string{first.Revision, second.Revision}))
}
