package ui_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/client-go/rest"

	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/ui"
)

// With --health-address the view answers kubelet's /healthz and /readyz on a listener of its
// own, apart from the pages (which, behind the proxy, listen on the pod's loopback).
func TestServeAnswersKubeletsProbes(t *testing.T) {
	g := NewWithT(t)
	ctx, cancel := context.WithCancel(context.Background())
	healthAddr := freeAddress(t)
	served := make(chan error, 1)
	go func() {
		served <- ui.Serve(ctx, ui.Options{
			Config: &rest.Config{Host: "https://127.0.0.1:1"}, Auth: ui.AuthProxy, UserHeader: "X-Forwarded-User",
			HealthAddress: healthAddr,
		}, "127.0.0.1:0", io.Discard)
	}()
	for _, path := range []string{"/healthz", "/readyz"} {
		g.Eventually(func() (int, error) {
			resp, err := http.Get("http://" + healthAddr + path)
			if err != nil {
				return 0, err
			}
			resp.Body.Close()
			return resp.StatusCode, nil
		}, time.Minute, 50*time.Millisecond).Should(Equal(http.StatusOK), path)
	}
	cancel()
	g.Eventually(served, time.Minute).Should(Receive(BeNil()))
}

// freeAddress is a loopback address with a port nothing listens on.
func freeAddress(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
