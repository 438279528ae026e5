package applier_test

import (
	"testing"

	. "github.com/onsi/gomega"
	dto "github.com/prometheus/client_model/go"
)

// The Flux gotk_* gauges describe each KCLRun; durations go into one histogram.
func TestFluxMetrics(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)
	artifact := publishProgram(t, ns, "app", configMap("settings", "metrics-"+ns))
	createKCLRun(t, ns, "app", "app")
	readyAt(t, ns, "app", artifact.Revision)

	labels := map[string]string{"kind": "KCLRun", "name": "app", "namespace": ns}
	g.Eventually(func(g Gomega) {
		families, err := metrics.Gather()
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(sample(families, "gotk_reconcile_condition", labels, map[string]string{"type": "Ready", "status": "True"})).To(
			HaveField("Gauge.Value", HaveValue(BeNumerically("==", 1))))
		g.Expect(sample(families, "gotk_suspend_status", labels, nil)).To(HaveField("Gauge.Value", HaveValue(BeNumerically("==", 0))))
		g.Expect(sample(families, "fkc_applier_reconcile_duration_seconds", nil, nil)).To(
			HaveField("Histogram.SampleCount", HaveValue(BeNumerically(">", 0))))
		g.Expect(sample(families, "gotk_reconcile_duration_seconds", labels, nil)).To(BeNil(), "no per-KCLRun histogram")
	}, "1m").Should(Succeed())
}

// sample finds the series of family name whose labels include all of want and extra.
func sample(families []*dto.MetricFamily, name string, want, extra map[string]string) *dto.Metric {
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	next:
		for _, m := range f.GetMetric() {
			have := map[string]string{}
			for _, l := range m.GetLabel() {
				have[l.GetName()] = l.GetValue()
			}
			for _, set := range []map[string]string{want, extra} {
				for k, v := range set {
					if have[k] != v {
						continue next
					}
				}
			}
			return m
		}
	}
	return nil
}
