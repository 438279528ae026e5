package applier

import (
	"sync"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/prometheus/client_golang/prometheus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// objectGauges are Flux's per-object gauges, gotk_reconcile_condition and
// gotk_suspend_status, with the series, labels and values of
// fluxcd/pkg/runtime/metrics.Recorder (three series per condition type, one
// per status, the current one 1; suspend 1 or 0), so Flux's dashboards and
// alerts read KCLRuns as they read Kustomizations. The Recorder keeps every
// series as a gauge with its label pairs, about 550 bytes per series: 22 MiB
// of the live heap at 10,000 KCLRuns. Here each KCLRun is a few bytes of
// state, turned into series only while a scrape collects them.
type objectGauges struct {
	conditionDesc, suspendDesc *prometheus.Desc

	mu      sync.Mutex
	objects map[types.NamespacedName]*objectState
}

// gaugedConditions are the condition types recorded, in the order of objectState.conditions.
var gaugedConditions = [...]string{meta.ReadyCondition, meta.ReconcilingCondition, meta.StalledCondition}

// objectState is what the gauges of one KCLRun say; a condition's status is
// "" when the KCLRun does not have it (no series).
type objectState struct {
	suspended  bool
	conditions [len(gaugedConditions)]metav1.ConditionStatus
}

var conditionStatuses = [...]metav1.ConditionStatus{metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown}

func newObjectGauges() *objectGauges {
	return &objectGauges{
		conditionDesc: prometheus.NewDesc("gotk_reconcile_condition",
			"The current condition status of a GitOps Toolkit resource reconciliation.",
			[]string{"kind", "name", "namespace", "type", "status"}, nil),
		suspendDesc: prometheus.NewDesc("gotk_suspend_status",
			"The current suspend status of a GitOps Toolkit resource.",
			[]string{"kind", "name", "namespace"}, nil),
		objects: map[types.NamespacedName]*objectState{},
	}
}

// set records a KCLRun's state after a reconcile.
func (g *objectGauges) set(key types.NamespacedName, st objectState) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if cur, ok := g.objects[key]; ok {
		*cur = st
		return
	}
	g.objects[key] = &st
}

// forget drops a deleted KCLRun's series.
func (g *objectGauges) forget(key types.NamespacedName) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.objects, key)
}

func (g *objectGauges) Describe(ch chan<- *prometheus.Desc) {
	ch <- g.conditionDesc
	ch <- g.suspendDesc
}

func (g *objectGauges) Collect(ch chan<- prometheus.Metric) {
	type entry struct {
		key types.NamespacedName
		st  objectState
	}
	// A copy, so that reconciles do not wait for the scrape's sends.
	g.mu.Lock()
	entries := make([]entry, 0, len(g.objects))
	for k, st := range g.objects {
		entries = append(entries, entry{k, *st})
	}
	g.mu.Unlock()
	for _, e := range entries {
		suspended := 0.0
		if e.st.suspended {
			suspended = 1
		}
		ch <- prometheus.MustNewConstMetric(g.suspendDesc, prometheus.GaugeValue, suspended, v1alpha1.KCLRunKind, e.key.Name, e.key.Namespace)
		for i, status := range e.st.conditions {
			if status == "" {
				continue
			}
			for _, s := range conditionStatuses {
				v := 0.0
				if s == status {
					v = 1
				}
				ch <- prometheus.MustNewConstMetric(g.conditionDesc, prometheus.GaugeValue, v, v1alpha1.KCLRunKind, e.key.Name, e.key.Namespace, gaugedConditions[i], string(s))
			}
		}
	}
}
