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

// metrics are Flux's gotk_* series plus a count of reconcile results.
type metrics struct {
	flux    *runtimemetrics.Recorder
	results *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		flux: runtimemetrics.NewRecorder(),
		results: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fkc_applier_reconciles_total",
			Help: "KCLRun reconciles by result (applied, noop, failed, stalled, waiting, suspended, deleted, gone).",
		}, []string{"result"}),
	}
	for _, c := range append(m.flux.Collectors(), m.results) {
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
	m.flux.RecordDuration(ref, start)
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
