package applier

import (
	"fmt"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/runtime/conditions"
	runtimemetrics "github.com/fluxcd/pkg/runtime/metrics"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// metrics are Flux's gotk_* gauges per KCLRun (Ready, Reconciling, Stalled,
// suspend), a count of reconcile results and one histogram of reconcile
// durations. Flux's per-object gotk_reconcile_duration_seconds is not
// recorded: twelve series per KCLRun were 130,000 series and about 35 MiB at
// 10,000 KCLRuns (Flux deprecated its per-object series in v2.1 and removed
// them from kustomize-controller).
type metrics struct {
	flux     *runtimemetrics.Recorder
	results  *prometheus.CounterVec
	duration prometheus.Histogram
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		flux: runtimemetrics.NewRecorder(),
		results: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fkc_applier_reconciles_total",
			Help: "KCLRun reconciles by result (applied, noop, failed, stalled, waiting, suspended, deleted, gone).",
		}, []string{"result"}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "fkc_applier_reconcile_duration_seconds",
			Help:    "Duration of KCLRun reconciles, all KCLRuns together.",
			Buckets: prometheus.ExponentialBuckets(0.01, 2.5, 12),
		}),
	}
	for _, c := range append(m.flux.Collectors(), m.results, m.duration) {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("registering metrics: %w", err)
		}
	}
	return m, nil
}

func refOf(namespace, name string) corev1.ObjectReference {
	return corev1.ObjectReference{Kind: v1alpha1.KCLRunKind, Namespace: namespace, Name: name}
}

// record reports a reconcile of obj that began at start.
func (m *metrics) record(obj *v1alpha1.KCLRun, start time.Time) {
	ref := refOf(obj.Namespace, obj.Name)
	m.duration.Observe(time.Since(start).Seconds())
	m.flux.RecordSuspend(ref, obj.Spec.Suspend)
	for _, t := range []string{meta.ReadyCondition, meta.ReconcilingCondition, meta.StalledCondition} {
		if c := conditions.Get(obj, t); c != nil {
			m.flux.RecordCondition(ref, *c)
		} else {
			m.flux.DeleteCondition(ref, t)
		}
	}
}

func (m *metrics) result(result string) { m.results.WithLabelValues(result).Inc() }

// forget drops the series of a deleted KCLRun.
func (m *metrics) forget(key types.NamespacedName) {
	ref := refOf(key.Namespace, key.Name)
	m.flux.DeleteDuration(ref)
	m.flux.DeleteSuspend(ref)
	for _, t := range []string{meta.ReadyCondition, meta.ReconcilingCondition, meta.StalledCondition} {
		m.flux.DeleteCondition(ref, t)
	}
}
