package ui_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/ui"
)

// With the user's kubeconfig the view serves loopback only: another listen address is
// refused, and so is a request naming another host (DNS rebinding), before any page runs.
func TestLocalModeIsLoopbackOnly(t *testing.T) {
	for addr, ok := range map[string]bool{"127.0.0.1:9080": true, "[::1]:9080": true, "localhost:0": true, ":9080": false, "0.0.0.0:9080": false, "10.1.2.3:80": false} {
		if err := ui.CheckAddress(ui.AuthKubeconfig, addr); (err == nil) != ok {
			t.Errorf("CheckAddress(%q) = %v, want allowed %v", addr, err, ok)
		}
	}
	if err := ui.CheckAddress(ui.AuthProxy, ":9080"); err != nil {
		t.Errorf("proxy mode may listen anywhere (the chart puts it on loopback behind the proxy): %v", err)
	}
	srv, err := ui.New(context.Background(), ui.Options{Config: &rest.Config{Host: "https://127.0.0.1:1"}})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://attacker.example/", nil))
	if rec.Code != http.StatusMisdirectedRequest {
		t.Errorf("a request for another host got %d, want %d", rec.Code, http.StatusMisdirectedRequest)
	}
	// A cross-origin POST is refused before it reaches an action (CSRF).
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/kclruns/a/b/suspend", nil)
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	rec = httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden {
		t.Errorf("a cross-site POST got %d, want 403", rec.Code)
	}
}
