package applier_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"

	"github.com/go-logr/logr"
	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/kcl-lang/flux-kcl-controller/services/applier"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/natsserver"
)

// freeAddr is a loopback address nothing listens on.
func freeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// The applier's /readyz says ok only while it can reconcile: once its NATS
// server is gone it is not ready.
func TestReadyzFollowsTheNATSConnection(t *testing.T) {
	g := NewWithT(t)
	srv := natsserver.StartT(t)
	nc, err := srv.Connect()
	g.Expect(err).NotTo(HaveOccurred())
	defer nc.Close()
	cfg := applier.DefaultConfig()
	cfg.MetricsAddr, cfg.HealthAddr = "", freeAddr(t)
	cfg.InstanceName = "readiness"
	svc, err := applier.New(cfg, applier.Deps{
		RESTConfig: env.Config, NATS: nc, Compiler: workers, Resolver: workers,
		Logger: logr.Discard(), Registerer: prometheus.NewRegistry(),
	})
	g.Expect(err).NotTo(HaveOccurred())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = svc.Run(ctx) }()
	defer func() { cancel(); <-done }()
	<-svc.Up()

	readyz := func() (int, string) {
		resp, err := http.Get("http://" + cfg.HealthAddr + "/readyz")
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	g.Eventually(func() int { code, _ := readyz(); return code }, "30s", "100ms").Should(Equal(http.StatusOK))

	srv.Shutdown()
	g.Eventually(func(g Gomega) {
		code, body := readyz()
		g.Expect(code).To(Equal(http.StatusServiceUnavailable))
		g.Expect(body).To(ContainSubstring("NATS connection"))
	}, "30s", "100ms").Should(Succeed())
}
