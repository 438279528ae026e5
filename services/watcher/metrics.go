package watcher

import (
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

var (
	requestsPublished = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "fkc_watcher_reconcile_requests_total",
		Help: "Reconcile requests published on JetStream, by reason and by result (published, duplicate).",
	}, []string{"reason", "result"})
	publishErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "fkc_watcher_publish_errors_total",
		Help: "Failed attempts to publish a reconcile request, by reason.",
	}, []string{"reason"})
	scheduledKCLRuns = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "fkc_watcher_scheduled_kclruns",
		Help: "KCLRuns with a pending periodic reconcile request.",
	})
)

// The controller-runtime registry is served by whichever manager exposes
// metrics (the watcher's own, or the all-in-one process's).
func init() {
	metrics.Registry.MustRegister(requestsPublished, publishErrors, scheduledKCLRuns)
}
