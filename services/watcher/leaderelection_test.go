package watcher

import (
	"context"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/nats-io/nats.go/jetstream"
	. "github.com/onsi/gomega"
	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
	"github.com/kcl-lang/flux-kcl-controller/internal/shard"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/natsserver"
)

// TestLeaderFailover runs two watchers with leader election on their own NATS
// server: the second takes over publishing when the first stops.
func TestLeaderFailover(t *testing.T) {
	g := NewWithT(t)
	srv := natsserver.StartT(t)
	leaseNS := newNamespace(t)
	ns := newNamespace(t)

	start := func() (context.CancelFunc, <-chan error, jetstream.Stream) {
		nc, err := srv.Connect()
		g.Expect(err).NotTo(HaveOccurred())
		t.Cleanup(nc.Close)
		js, err := jetstream.New(nc)
		g.Expect(err).NotTo(HaveOccurred())
		cfg := DefaultConfig()
		cfg.MetricsAddr, cfg.HealthAddr = "0", "0"
		cfg.EnableLeaderElection, cfg.LeaderElectionNamespace = true, leaseNS
		svc, err := New(cfg, Deps{RestConfig: testEnv.Config, JetStream: js, Logger: logr.Discard()})
		g.Expect(err).NotTo(HaveOccurred())
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- svc.Run(ctx) }()
		stream, err := waitForStream(ctx, js, "")
		g.Expect(err).NotTo(HaveOccurred())
		return cancel, done, stream
	}
	pending := func(stream jetstream.Stream, name string) func() uint64 {
		return func() uint64 {
			subject := reconcilerequest.Subject("", ns, name)
			info, err := stream.Info(context.Background(), jetstream.WithSubjectFilter(subject))
			g.Expect(err).NotTo(HaveOccurred())
			return info.State.Subjects[subject]
		}
	}
	holder := func() string {
		var lease coordinationv1.Lease
		key := types.NamespacedName{Namespace: leaseNS, Name: shard.Name("").WatcherLeaderElectionID()}
		if err := k8sClient.Get(context.Background(), key, &lease); err != nil || lease.Spec.HolderIdentity == nil {
			return ""
		}
		return *lease.Spec.HolderIdentity
	}

	stopFirst, firstDone, stream := start()
	newKCLRun(t, ns, "before", "repo")
	g.Eventually(pending(stream, "before"), eventually, 20*time.Millisecond).Should(Equal(uint64(1)))
	first := holder()
	g.Expect(first).NotTo(BeEmpty())

	stopSecond, secondDone, _ := start()
	defer func() {
		stopSecond()
		g.Expect(<-secondDone).To(Succeed())
	}()
	// The first releases its lease on the way out; the second takes it.
	stopFirst()
	g.Expect(<-firstDone).To(Succeed())
	g.Eventually(holder, eventually, 100*time.Millisecond).ShouldNot(SatisfyAny(BeEmpty(), Equal(first)))

	newKCLRun(t, ns, "after", "repo")
	g.Eventually(pending(stream, "after"), eventually, 20*time.Millisecond).Should(Equal(uint64(1)))
}
