package reconcilerequest

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/kcl-lang/flux-kcl-controller/internal/shard"
)

// The stream (shard.Name.Stream) holds a shard's pending reconcile requests; its
// appliers share one durable pull consumer (shard.Name.Consumer), every replica
// binding to it, so each request goes to one of them.
const (
	// DuplicateWindow is how long JetStream remembers a Nats-Msg-Id: a second
	// publish of the same id within it (another watcher replica, a retried
	// publish) is dropped.
	DuplicateWindow = 2 * time.Minute
	// DefaultAckWait is how long a delivered request may stay unacked before
	// JetStream redelivers it. Reconciliations that run longer must send
	// in-progress acks (jetstream.Msg.InProgress). It is also how long a
	// request held by an applier that died waits before another replica gets
	// it, so it is kept short: the living appliers heartbeat every quarter.
	DefaultAckWait = 30 * time.Second
)

// HeaderReason carries Request.Reason, for tools that read headers only.
const HeaderReason = "Fkc-Reason"

// StreamOption adjusts the stream configuration.
type StreamOption func(*jetstream.StreamConfig)

// WithReplicas sets the stream's replica count in a clustered NATS.
func WithReplicas(n int) StreamOption {
	return func(c *jetstream.StreamConfig) { c.Replicas = n }
}

// WithMemoryStorage keeps the stream in memory (tests, throwaway demos).
func WithMemoryStorage() StreamOption {
	return func(c *jetstream.StreamConfig) { c.Storage = jetstream.MemoryStorage }
}

// StreamConfig is the configuration EnsureStream applies to the shard's stream.
//
// Work-queue retention: a request leaves the stream when the applier acks it,
// so the stream's content is exactly the backlog. MaxMsgsPerSubject 1 with
// DiscardOld coalesces: a newer request for a KCLRun replaces its pending one.
func StreamConfig(s shard.Name, opts ...StreamOption) jetstream.StreamConfig {
	cfg := jetstream.StreamConfig{
		Name:              s.Stream(),
		Description:       "flux-kcl-controller reconcile requests, one subject per KCLRun",
		Subjects:          []string{s.SubjectFilter()},
		Retention:         jetstream.WorkQueuePolicy,
		MaxMsgsPerSubject: 1,
		Discard:           jetstream.DiscardOld,
		Storage:           jetstream.FileStorage,
		Duplicates:        DuplicateWindow,
		Replicas:          1,
	}
	for _, o := range opts {
		o(&cfg)
	}
	return cfg
}

// EnsureStream creates the stream or updates it to StreamConfig. Both the
// watcher and the applier call it at start, so either may come up first.
func EnsureStream(ctx context.Context, js jetstream.JetStream, s shard.Name, opts ...StreamOption) (jetstream.Stream, error) {
	st, err := js.CreateOrUpdateStream(ctx, StreamConfig(s, opts...))
	if err != nil {
		return nil, fmt.Errorf("ensuring JetStream stream %s: %w", s.Stream(), err)
	}
	return st, nil
}

// ConsumerConfig is the durable consumer configuration the applier uses:
// explicit acks, redelivery after AckWait, never dropping a request for
// too many deliveries (the next request would replace it anyway).
// MaxAckPending holds several appliers' fair queues (services/applier), each
// of which takes requests ahead so that one namespace's burst does not keep
// another namespace's request out of sight.
func ConsumerConfig(s shard.Name) jetstream.ConsumerConfig {
	return jetstream.ConsumerConfig{
		Durable:       s.Consumer(),
		Description:   "flux-kcl-controller appliers",
		FilterSubject: s.SubjectFilter(),
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       DefaultAckWait,
		MaxDeliver:    -1,
		MaxAckPending: 20000,
		DeliverPolicy: jetstream.DeliverAllPolicy,
	}
}

// EnsureConsumer creates or updates the shard's appliers' durable consumer.
func EnsureConsumer(ctx context.Context, js jetstream.JetStream, s shard.Name) (jetstream.Consumer, error) {
	c, err := js.CreateOrUpdateConsumer(ctx, s.Stream(), ConsumerConfig(s))
	if err != nil {
		return nil, fmt.Errorf("ensuring JetStream consumer %s on %s: %w", s.Consumer(), s.Stream(), err)
	}
	return c, nil
}
