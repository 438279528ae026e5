package watcher

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	. "github.com/onsi/gomega"

	"github.com/kcl-lang/flux-kcl-controller/test/harness/natsserver"
)

// /readyz is ok only once the informer caches have synced and while the
// NATS connection is up: a watcher of its own on the real apiserver, with a
// nats-server that goes away and comes back.
func TestReadyzFollowsCachesAndNATS(t *testing.T) {
	g := NewWithT(t)
	srv := natsserver.StartT(t)
	nc, err := srv.Connect(nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond))
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	g.Expect(err).NotTo(HaveOccurred())

	l, err := net.Listen("tcp", "127.0.0.1:0")
	g.Expect(err).NotTo(HaveOccurred())
	addr := l.Addr().String()
	g.Expect(l.Close()).To(Succeed())
	cfg := DefaultConfig()
	cfg.MetricsAddr, cfg.HealthAddr = "0", addr
	svc, err := New(cfg, Deps{RestConfig: testEnv.Config, JetStream: js, Logger: logr.Discard()})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(svc.ready(nil)).To(MatchError(ContainSubstring("not synced")), "nothing has listed before Run")

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- svc.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})

	status := func() int {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err != nil {
			return 0
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		return resp.StatusCode
	}

	g.Eventually(status, "1m").Should(Equal(http.StatusOK))
	g.Expect(svc.readiness.cachesSynced.Load()).To(BeTrue())
	// Ready can come before the election (a standby is ready with its
	// caches); once elected, ready again only with the handlers synced.
	g.Eventually(svc.mgr.Elected(), "1m").Should(BeClosed())
	g.Eventually(status, "1m").Should(Equal(http.StatusOK))
	g.Expect(svc.readiness.handlersSynced.Load()).To(BeTrue())

	srv.Shutdown()
	g.Eventually(status, "30s").Should(Equal(http.StatusInternalServerError)) // controller-runtime's failed check
	// The HTTP answer withholds the reason; the check itself names it.
	g.Expect(svc.ready(nil)).To(MatchError(ContainSubstring("not connected to NATS")))

	g.Expect(srv.Restart()).To(Succeed())
	g.Eventually(status, "30s").Should(Equal(http.StatusOK))
}
