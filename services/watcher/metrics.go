package watcher

import (
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	kclv1 "github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/rollout"
)

var (
	requestsPublished = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "fkc_watcher_reconcile_requests_total",
		Help: "Reconcile requests published on JetStream, by reason and by result (published, duplicate, skipped: a rollout's request taken moments ago, not sent again).",
	}, []string{"reason", "result"})
	publishErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "fkc_watcher_publish_errors_total",
		Help: "Failed attempts to publish a reconcile request, by reason.",
	}, []string{"reason"})
	scheduledKCLRuns = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "fkc_watcher_scheduled_kclruns",
		Help: "KCLRuns with a pending periodic reconcile request.",
	})
	rolloutTransitions = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "fkc_imagerollout_transitions_total",
		Help: "ImageRollout transitions recorded as events, by reason (StageAdmitted, StagePassed, StageFailed, RolledBack, RolloutCompleted, ...).",
	}, []string{"reason"})
	rolloutStageKCLRuns = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "fkc_imagerollout_stage_kclruns",
		Help: "KCLRuns of an ImageRollout's stage, by state (the stage's) and whether they are Ready at the stage's image.",
	}, []string{"namespace", "name", "stage", "state", "ready"})
	rolloutHeldKCLRuns = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "fkc_imagerollout_held_kclruns",
		Help: "KCLRuns of stages an ImageRollout holds at last good while its target differs.",
	}, []string{"namespace", "name"})
)

// The controller-runtime registry is served by whichever manager exposes
// metrics (the watcher's own, or the all-in-one process's).
func init() {
	metrics.Registry.MustRegister(requestsPublished, publishErrors, scheduledKCLRuns,
		rolloutTransitions, rolloutStageKCLRuns, rolloutHeldKCLRuns)
}

// observeRollout sets the gauges of a rollout after a Step.
func observeRollout(ro *kclv1.ImageRollout, _ rollout.Result) {
	forgetRolloutMetrics(ro)
	var held int32
	for _, st := range ro.Status.Stages {
		rolloutStageKCLRuns.WithLabelValues(ro.Namespace, ro.Name, st.Name, st.State, "true").Set(float64(st.Ready))
		rolloutStageKCLRuns.WithLabelValues(ro.Namespace, ro.Name, st.Name, st.State, "false").Set(float64(st.Total - st.Ready))
		if !rollout.ImageFor(ro, st.Name).Equal(ro.Status.Target) {
			held += st.Total
		}
	}
	rolloutHeldKCLRuns.WithLabelValues(ro.Namespace, ro.Name).Set(float64(held))
}

// forgetRolloutMetrics drops a rollout's series.
func forgetRolloutMetrics(ro *kclv1.ImageRollout) {
	labels := prometheus.Labels{"namespace": ro.Namespace, "name": ro.Name}
	rolloutStageKCLRuns.DeletePartialMatch(labels)
	rolloutHeldKCLRuns.DeletePartialMatch(labels)
}
