package compiler

import (
	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the compiler's Prometheus series.
type metrics struct {
	duration prometheus.Histogram
	cache    *prometheus.CounterVec
	errors   *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "flux_kcl_compile_duration_seconds",
			Help:    "Duration of KCL compilations that ran the engine (cache misses), artifact fetch included.",
			Buckets: []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60},
		}),
		cache: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "flux_kcl_compile_cache_total",
			Help: "Compile requests answered from the result cache (hit) or by compiling (miss).",
		}, []string{"result"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "flux_kcl_compile_errors_total",
			Help: "Compile requests that produced no objects, by error kind.",
		}, []string{"kind"}),
	}
	for _, c := range []prometheus.Collector{m.duration, m.cache, m.errors} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	m.cache.WithLabelValues("hit")
	m.cache.WithLabelValues("miss")
	return m, nil
}
