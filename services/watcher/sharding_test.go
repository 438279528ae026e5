package watcher

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/nats-io/nats.go/jetstream"
	. "github.com/onsi/gomega"

	kclv1 "github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/harness/natsserver"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
)

// TestWatchLabelSelectorShards runs a second watcher, on its own NATS server,
// that watches only KCLRuns labelled shard=b.
func TestWatchLabelSelectorShards(t *testing.T) {
	g := NewWithT(t)
	ctx, cancel := context.WithCancel(context.Background())
	srv := natsserver.StartT(t)
	nc, err := srv.Connect()
	g.Expect(err).NotTo(HaveOccurred())
	defer nc.Close()
	js, err := jetstream.New(nc)
	g.Expect(err).NotTo(HaveOccurred())

	cfg := DefaultConfig()
	cfg.Concurrent = 1
	cfg.MetricsAddr, cfg.HealthAddr = "0", "0"
	cfg.WatchLabelSelector = "shard=b"
	svc, err := New(cfg, Deps{RestConfig: testEnv.Config, JetStream: js, Logger: logr.Discard()})
	g.Expect(err).NotTo(HaveOccurred())
	done := make(chan error, 1)
	go func() { done <- svc.Run(ctx) }()
	defer func() {
		cancel()
		g.Expect(<-done).To(Succeed())
	}()
	stream, err := waitForStream(ctx, js)
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
		subject := reconcilerequest.Subject(ns, name)
		info, err := stream.Info(ctx, jetstream.WithSubjectFilter(subject))
		g.Expect(err).NotTo(HaveOccurred())
		return info.State.Subjects[subject]
	}
	g.Eventually(func() uint64 { return pending("in-b") }, eventually, 20*time.Millisecond).Should(Equal(uint64(1)))
	g.Expect(pending("in-a")).To(BeZero())
	g.Expect(pending("unlabelled")).To(BeZero())
	_, err = stream.GetLastMsgForSubject(ctx, reconcilerequest.Subject(ns, "in-a"))
	g.Expect(errors.Is(err, jetstream.ErrMsgNotFound)).To(BeTrue())
}
