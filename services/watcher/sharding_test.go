package watcher

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/nats-io/nats.go/jetstream"
	. "github.com/onsi/gomega"
	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/types"

	kclv1 "github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
	"github.com/kcl-lang/flux-kcl-controller/internal/shard"
)

// TestWatchLabelSelectorShards runs a second watcher, shard "b" on the suite's
// NATS server beside the suite's unsharded watcher, that watches only KCLRuns
// labelled shard=b: it publishes them on its own stream and elects its leader
// through its own Lease.
func TestWatchLabelSelectorShards(t *testing.T) {
	g := NewWithT(t)
	ctx, cancel := context.WithCancel(context.Background())
	const b shard.Name = "b"
	leaseNS := newNamespace(t)

	cfg := DefaultConfig()
	cfg.Concurrent = 1
	cfg.MetricsAddr, cfg.HealthAddr = "0", "0"
	cfg.WatchLabelSelector = "shard=b"
	cfg.Shard = b
	cfg.EnableLeaderElection, cfg.LeaderElectionNamespace = true, leaseNS
	svc, err := New(cfg, Deps{RestConfig: testEnv.Config, JetStream: testJS, Logger: logr.Discard()})
	g.Expect(err).NotTo(HaveOccurred())
	done := make(chan error, 1)
	go func() { done <- svc.Run(ctx) }()
	defer func() {
		cancel()
		g.Expect(<-done).To(Succeed())
		g.Expect(testJS.DeleteStream(context.Background(), b.Stream())).To(Succeed())
	}()
	stream, err := waitForStream(ctx, testJS, b)
	g.Expect(err).NotTo(HaveOccurred())

	ns := newNamespace(t)
	label := func(shard string) func(*kclv1.KCLRun) {
		return func(r *kclv1.KCLRun) { r.Labels = map[string]string{"shard": shard} }
	}
	newKCLRun(t, ns, "in-a", "repo", label("a"))
	newKCLRun(t, ns, "unlabelled", "repo")
	// Created after the others: the shard's watcher sees events in order, so
	// once it published for in-b it would have published for them already.
	newKCLRun(t, ns, "in-b", "repo", label("b"))

	pending := func(name string) uint64 {
		subject := reconcilerequest.Subject(b, ns, name)
		info, err := stream.Info(ctx, jetstream.WithSubjectFilter(subject))
		g.Expect(err).NotTo(HaveOccurred())
		return info.State.Subjects[subject]
	}
	g.Eventually(func() uint64 { return pending("in-b") }, eventually, 20*time.Millisecond).Should(Equal(uint64(1)))
	g.Expect(pending("in-a")).To(BeZero())
	g.Expect(pending("unlabelled")).To(BeZero())
	_, err = stream.GetLastMsgForSubject(ctx, reconcilerequest.Subject(b, ns, "in-a"))
	g.Expect(errors.Is(err, jetstream.ErrMsgNotFound)).To(BeTrue())
	info, err := stream.Info(ctx)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(info.Config.Subjects).To(Equal([]string{b.SubjectFilter()}))

	// The suite's unsharded watcher, which watches every KCLRun, published all
	// three on the unsharded stream.
	for _, name := range []string{"in-a", "unlabelled", "in-b"} {
		waitForReason(t, ns, name, reconcilerequest.ReasonCreated)
	}

	var lease coordinationv1.Lease
	g.Eventually(func() error {
		return k8sClient.Get(ctx, types.NamespacedName{Namespace: leaseNS, Name: b.WatcherLeaderElectionID()}, &lease)
	}, eventually, 20*time.Millisecond).Should(Succeed())
}

func TestInvalidShardIsRefused(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Shard = "Shard.B"
	_, err := New(cfg, Deps{RestConfig: testEnv.Config, JetStream: testJS, Logger: logr.Discard()})
	if !errors.Is(err, shard.ErrInvalid) {
		t.Fatalf("New = %v, want shard.ErrInvalid", err)
	}
}
