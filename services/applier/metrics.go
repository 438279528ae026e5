package applier

import (
	"fmt"
	"time"

	"github.com/fluxcd/pkg/runtime/conditions"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// metrics are Flux's gotk_* gauges per KCLRun (Ready, Reconciling, Stalled,
// suspend; objectGauges), a count of reconcile results and one histogram of
// reconcile durations. Flux's per-object gotk_reconcile_duration_seconds is
// not recorded: twelve series per KCLRun were 130,000 series and about 35 MiB
// at 10,000 KCLRuns (Flux deprecated its per-object series in v2.1 and
// removed them from kustomize-controller).
type metrics struct {
	objects  *objectGauges
	results  *prometheus.CounterVec
	duration prometheus.Histogram
	// drifted has a series only for a KCLRun in warn mode whose objects drifted.
	drifted *prometheus.GaugeVec
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		objects: newObjectGauges(),
		results: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fkc_applier_reconciles_total",
			Help: "KCLRun reconciles by result (applied, noop, drift-checked, failed, stalled, waiting, suspended, deleted, gone).",
		}, []string{"result"}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "fkc_applier_reconcile_duration_seconds",
			Help:    "Duration of KCLRun reconciles, all KCLRuns together.",
			Buckets: prometheus.ExponentialBuckets(0.01, 2.5, 12),
		}),
	}
	m.drifted = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "fkc_applier_drifted_objects",
		Help: "Objects of a KCLRun in spec.driftDetection.mode warn that differ from what was last applied, as of its last check.",
	}, []string{"namespace", "name"})
	for _, c := range []prometheus.Collector{m.objects, m.results, m.duration, m.drifted} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("registering metrics: %w", err)
		}
	}
	return m, nil
}

// record reports a reconcile of obj that began at start.
func (m *metrics) record(obj *v1alpha1.KCLRun, start time.Time) {
	m.duration.Observe(time.Since(start).Seconds())
	st := objectState{suspended: obj.Spec.Suspend}
	for i, t := range gaugedConditions {
		if c := conditions.Get(obj, t); c != nil {
			st.conditions[i] = c.Status
		}
	}
	m.objects.set(types.NamespacedName{Namespace: obj.Namespace, Name: obj.Name}, st)
}

func (m *metrics) result(result string) { m.results.WithLabelValues(result).Inc() }

// drift sets the drifted objects of obj; none drops its series.
func (m *metrics) drift(obj *v1alpha1.KCLRun, n int) {
	if n == 0 {
		m.drifted.DeleteLabelValues(obj.Namespace, obj.Name)
		return
	}
	m.drifted.WithLabelValues(obj.Namespace, obj.Name).Set(float64(n))
}

// forget drops the series of a deleted KCLRun.
func (m *metrics) forget(key types.NamespacedName) {
	m.objects.forget(key)
	m.drifted.DeleteLabelValues(key.Namespace, key.Name)
}
