package applier

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	runtimemetrics "github.com/fluxcd/pkg/runtime/metrics"
	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// gaugeCase is one KCLRun's state, written to both Flux's Recorder and objectGauges.
type gaugeCase struct {
	key       types.NamespacedName
	suspended bool
	conds     map[string]metav1.ConditionStatus
}

func recordFlux(r *runtimemetrics.Recorder, c gaugeCase) {
	ref := corev1.ObjectReference{Kind: v1alpha1.KCLRunKind, Namespace: c.key.Namespace, Name: c.key.Name}
	r.RecordSuspend(ref, c.suspended)
	for _, t := range gaugedConditions {
		if s, ok := c.conds[t]; ok {
			r.RecordCondition(ref, metav1.Condition{Type: t, Status: s})
		} else {
			r.DeleteCondition(ref, t)
		}
	}
}

func recordOwn(g *objectGauges, c gaugeCase) {
	st := objectState{suspended: c.suspended}
	for i, t := range gaugedConditions {
		st.conditions[i] = c.conds[t]
	}
	g.set(c.key, st)
}

// exposition is what a scrape of the collectors prints.
func exposition(t *testing.T, cs ...prometheus.Collector) string {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(cs...)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, f := range families {
		if _, err := expfmt.MetricFamilyToText(&b, f); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

// TestObjectGaugesMatchFluxRecorder: a scrape shows the same gotk_* series as Flux's
// Recorder given the same states, through changes and deletions.
func TestObjectGaugesMatchFluxRecorder(t *testing.T) {
	g := NewWithT(t)
	flux, own := runtimemetrics.NewRecorder(), newObjectGauges()
	a := types.NamespacedName{Namespace: "team-a", Name: "app"}
	b := types.NamespacedName{Namespace: "team-b", Name: "web"}
	steps := []gaugeCase{
		{key: a, conds: map[string]metav1.ConditionStatus{"Ready": metav1.ConditionUnknown, "Reconciling": metav1.ConditionTrue}},
		{key: b, suspended: true, conds: map[string]metav1.ConditionStatus{"Ready": metav1.ConditionFalse, "Stalled": metav1.ConditionTrue}},
		{key: a, conds: map[string]metav1.ConditionStatus{"Ready": metav1.ConditionTrue}},
	}
	fluxConditions := func() []prometheus.Collector { return flux.Collectors()[:2] } // without the duration histogram
	for _, c := range steps {
		recordFlux(flux, c)
		recordOwn(own, c)
		g.Expect(exposition(t, own)).To(Equal(exposition(t, fluxConditions()...)))
	}
	ref := corev1.ObjectReference{Kind: v1alpha1.KCLRunKind, Namespace: b.Namespace, Name: b.Name}
	flux.DeleteSuspend(ref)
	for _, ty := range gaugedConditions {
		flux.DeleteCondition(ref, ty)
	}
	own.forget(b)
	g.Expect(exposition(t, own)).To(Equal(exposition(t, fluxConditions()...)))
	g.Expect(exposition(t, own)).To(ContainSubstring(`gotk_reconcile_condition{kind="KCLRun",name="app",namespace="team-a",status="True",type="Ready"} 1`))
}

// BenchmarkObjectGaugesLiveHeap reports the live heap per KCLRun of the gauges of 10,000
// Ready KCLRuns, Flux's Recorder against objectGauges (go test -run ^$ -bench ObjectGauges).
func BenchmarkObjectGaugesLiveHeap(b *testing.B) {
	const n = 10000
	cases := make([]gaugeCase, n)
	for i := range cases {
		cases[i] = gaugeCase{
			key:   types.NamespacedName{Namespace: fmt.Sprintf("tenant-%05d", i), Name: "app"},
			conds: map[string]metav1.ConditionStatus{"Ready": metav1.ConditionTrue},
		}
	}
	liveHeap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	b.Run("flux-recorder", func(b *testing.B) {
		for range b.N {
			before := liveHeap()
			r := runtimemetrics.NewRecorder()
			for _, c := range cases {
				recordFlux(r, c)
			}
			b.ReportMetric(float64(liveHeap()-before)/n, "live-B/KCLRun")
			runtime.KeepAlive(r)
		}
	})
	b.Run("object-gauges", func(b *testing.B) {
		for range b.N {
			before := liveHeap()
			g := newObjectGauges()
			for _, c := range cases {
				recordOwn(g, c)
			}
			b.ReportMetric(float64(liveHeap()-before)/n, "live-B/KCLRun")
			runtime.KeepAlive(g)
		}
	})
}
