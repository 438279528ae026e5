package metricsendpoint_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kcl-lang/flux-kcl-controller/internal/metricsendpoint"
)

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// /metrics carries the service's series, the Go runtime, the process and
// the client-go requests the process made; pprof only when enabled.
func TestMetricsAndPprof(t *testing.T) {
	// One real client-go request, to any HTTP server.
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"major":"1","minor":"37"}`))
	}))
	defer api.Close()
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: api.URL})
	if err != nil {
		t.Fatal(err)
	}
	_, _ = cs.Discovery().RESTClient().Get().AbsPath("/version").Do(context.Background()).Raw()

	own := prometheus.NewRegistry()
	own.MustRegister(prometheus.NewCounter(prometheus.CounterOpts{Name: "fkc_test_total", Help: "test"}))
	srv := httptest.NewServer(metricsendpoint.Handler(own, false))
	defer srv.Close()
	code, body := get(t, srv.URL+"/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics: %d %s", code, body)
	}
	for _, name := range []string{"fkc_test_total", "go_goroutines", "process_cpu_seconds_total", "rest_client_requests_total"} {
		if !strings.Contains(body, "\n"+name) {
			t.Errorf("/metrics has no %s", name)
		}
	}
	if code, _ := get(t, srv.URL+"/debug/pprof/"); code != http.StatusNotFound {
		t.Errorf("pprof without --enable-pprof: %d", code)
	}

	withPprof := httptest.NewServer(metricsendpoint.Handler(own, true))
	defer withPprof.Close()
	if code, body := get(t, withPprof.URL+"/debug/pprof/"); code != http.StatusOK || !strings.Contains(body, "goroutine") {
		t.Errorf("pprof with --enable-pprof: %d", code)
	}
}
