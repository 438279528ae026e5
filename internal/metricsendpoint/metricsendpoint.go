// Package metricsendpoint serves a service's /metrics as Flux controllers
// do: its own series beside the Go runtime, process and client-go ones, and,
// with --enable-pprof, the pprof endpoints under /debug/pprof/.
package metricsendpoint

import (
	"errors"
	"net/http"
	"sort"

	"github.com/fluxcd/pkg/runtime/pprof"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics" // registers client-go's metrics
)

// runtimeMetrics are the Go runtime and process series, once per process.
var runtimeMetrics = func() *prometheus.Registry {
	r := prometheus.NewRegistry()
	r.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return r
}()

// Handler serves /metrics from g, the runtime, process and client-go
// collectors, and the pprof endpoints when enablePprof.
func Handler(g prometheus.Gatherer, enablePprof bool) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(firstOf{g, runtimeMetrics, ctrlmetrics.Registry}, promhttp.HandlerOpts{}))
	if enablePprof {
		for path, h := range pprof.GetHandlers() {
			mux.Handle(path, h)
		}
	}
	return mux
}

// firstOf gathers from every gatherer and keeps the first family of each
// name: controller-runtime's registry carries Go and process collectors
// too when a controller is linked in, and a duplicate would fail the scrape.
type firstOf []prometheus.Gatherer

func (gs firstOf) Gather() ([]*dto.MetricFamily, error) {
	seen := map[string]bool{}
	var out []*dto.MetricFamily
	var errs []error
	for _, g := range gs {
		if g == nil {
			continue
		}
		families, err := g.Gather()
		if err != nil {
			errs = append(errs, err)
		}
		for _, f := range families {
			if !seen[f.GetName()] {
				seen[f.GetName()] = true
				out = append(out, f)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].GetName() < out[j].GetName() })
	return out, errors.Join(errs...)
}

// Registries are where a service registers its metrics and what its /metrics serves: the
// registerer it was given (all-in-one's shared registry, gathered there when it can be),
// or a private registry of its own when given none.
func Registries(given prometheus.Registerer) (prometheus.Registerer, prometheus.Gatherer) {
	if given == nil {
		r := prometheus.NewRegistry()
		return r, r
	}
	g, _ := given.(prometheus.Gatherer)
	return given, g
}
