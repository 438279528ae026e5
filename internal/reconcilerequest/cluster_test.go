package reconcilerequest

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/kcl-lang/flux-kcl-controller/internal/shard"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/natsserver"
)

// On a three-node cluster the watcher and the applier both ensure the R3 stream and the
// consumer at every start, a node down or not: each ensure leaves the stream as it was
// (same replicas, same pending requests), so restarts never rebuild or rescale it.
func TestEnsureStreamR3IsIdempotentAcrossRestarts(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := natsserver.StartClusterT(t)
	nc, err := c.Connect()
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ensure := func(what string) {
		t.Helper()
		// A node that just went away or came back may leave the cluster without a leader
		// for a moment; the services retry the same way.
		var err error
		for range 100 {
			if _, err = EnsureStream(ctx, js, "", WithReplicas(3)); err == nil {
				if _, err = EnsureConsumer(ctx, js, ""); err == nil {
					return
				}
			}
			time.Sleep(200 * time.Millisecond)
		}
		t.Fatalf("%s: %v", what, err)
	}
	ensure("first start")
	if _, err := NewPublisher(js, "").Publish(ctx, Request{Namespace: "ns", Name: "app", Reason: ReasonCreated}, "uid/generation/1"); err != nil {
		t.Fatal(err)
	}
	ensure("second service starting")
	check := func(what string) {
		t.Helper()
		s, err := js.Stream(ctx, shard.Name("").Stream())
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		info, err := s.Info(ctx)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if info.Config.Replicas != 3 || info.State.Msgs != 1 {
			t.Fatalf("%s: stream has %d replicas and %d requests, want 3 and 1", what, info.Config.Replicas, info.State.Msgs)
		}
		ci, err := js.Consumer(ctx, shard.Name("").Stream(), shard.Name("").Consumer())
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if ci.CachedInfo().NumPending != 1 {
			t.Fatalf("%s: consumer has %d pending, want 1", what, ci.CachedInfo().NumPending)
		}
	}
	check("after two starts")

	leader := c.StreamLeader(shard.Name("").Stream())
	c.Shutdown(leader)
	if err := c.WaitStreamLeaders(ctx, shard.Name("").Stream()); err != nil {
		t.Fatal(err)
	}
	ensure("restart with the stream leader down")
	check("with the stream leader down")
	if err := c.Restart(leader); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitStreamLeaders(ctx, shard.Name("").Stream()); err != nil {
		t.Fatal(err)
	}
	ensure("restart after the node came back")
	check("after the node came back")
}
