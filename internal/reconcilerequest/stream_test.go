package reconcilerequest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/kcl-lang/flux-kcl-controller/internal/shard"
)

// runJetStream starts a real in-process nats-server with JetStream on a temp dir.
func runJetStream(t testing.TB) jetstream.JetStream {
	t.Helper()
	srv, err := server.NewServer(&server.Options{
		Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	t.Cleanup(srv.Shutdown)
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server did not start")
	}
	nc, err := nats.Connect(srv.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

func TestBurstCoalescesToOnePendingRequest(t *testing.T) {
	ctx := context.Background()
	js := runJetStream(t)
	stream, err := EnsureStream(ctx, js, "")
	if err != nil {
		t.Fatal(err)
	}
	// EnsureStream is idempotent: the applier calls it too.
	if _, err := EnsureStream(ctx, js, ""); err != nil {
		t.Fatal(err)
	}
	pub := NewPublisher(js, "")
	for gen := int64(1); gen <= 20; gen++ {
		req := Request{Namespace: "default", Name: "app.one", Generation: gen, Reason: ReasonGenerationChanged}
		if _, err := pub.Publish(ctx, req, fmt.Sprintf("uid/generation/%d", gen)); err != nil {
			t.Fatal(err)
		}
	}
	other := Request{Namespace: "default", Name: "two", Reason: ReasonCreated}
	if _, err := pub.Publish(ctx, other, "uid2/generation/1"); err != nil {
		t.Fatal(err)
	}

	info, err := stream.Info(ctx, jetstream.WithSubjectFilter(shard.Name("").SubjectFilter()))
	if err != nil {
		t.Fatal(err)
	}
	if got := info.State.Subjects[Subject("", "default", "app.one")]; got != 1 {
		t.Fatalf("pending requests for default/app.one = %d, want 1", got)
	}
	if info.State.Msgs != 2 {
		t.Fatalf("stream holds %d requests, want 2", info.State.Msgs)
	}

	consumer, err := EnsureConsumer(ctx, js, "")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]Request{}
	for _, msg := range fetchAtLeast(t, consumer, 2) {
		req, err := Decode(msg.Data())
		if err != nil {
			t.Fatal(err)
		}
		if msg.Headers().Get(HeaderReason) != string(req.Reason) {
			t.Errorf("header %s = %q, want %q", HeaderReason, msg.Headers().Get(HeaderReason), req.Reason)
		}
		seen[req.Key()] = req
		if err := msg.DoubleAck(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if len(seen) != 2 || seen["default/app.one"].Generation != 20 {
		t.Fatalf("consumed %+v, want the latest request of each KCLRun", seen)
	}
	info, err = stream.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != 0 {
		t.Fatalf("stream holds %d requests after acks, want 0 (work queue)", info.State.Msgs)
	}
}

func TestSameMsgIDIsPublishedOnce(t *testing.T) {
	ctx := context.Background()
	js := runJetStream(t)
	if _, err := EnsureStream(ctx, js, "", WithMemoryStorage()); err != nil {
		t.Fatal(err)
	}
	pub := NewPublisher(js, "")
	req := Request{Namespace: "ns", Name: "app", Reason: ReasonSourceChanged, Revision: "main@sha1:1"}
	first, err := pub.Publish(ctx, req, "uid/source/rv1")
	if err != nil {
		t.Fatal(err)
	}
	// A second watcher replica saw the same change.
	second, err := pub.Publish(ctx, req, "uid/source/rv1")
	if err != nil {
		t.Fatal(err)
	}
	if first.Duplicate || !second.Duplicate {
		t.Fatalf("first duplicate=%v second duplicate=%v, want false, true", first.Duplicate, second.Duplicate)
	}
}

// Shards share one server: each has its own stream and consumer, and a request
// published for one shard is delivered to that shard's consumer only.
func TestShardsShareOneServer(t *testing.T) {
	ctx := context.Background()
	js := runJetStream(t)
	shards := []shard.Name{"", "a", "b"}
	consumers := map[shard.Name]jetstream.Consumer{}
	for _, s := range shards {
		if _, err := EnsureStream(ctx, js, s, WithMemoryStorage()); err != nil {
			t.Fatalf("shard %q: %v", s, err)
		}
		c, err := EnsureConsumer(ctx, js, s)
		if err != nil {
			t.Fatalf("shard %q: %v", s, err)
		}
		consumers[s] = c
	}
	for _, s := range shards {
		req := Request{Namespace: "default", Name: "app-" + string(s), Reason: ReasonCreated}
		if _, err := NewPublisher(js, s).Publish(ctx, req, ""); err != nil {
			t.Fatalf("shard %q: %v", s, err)
		}
	}
	for _, s := range shards {
		var got []string
		for _, msg := range fetchAtLeast(t, consumers[s], 1) {
			ns, name, err := ParseSubject(s, msg.Subject())
			if err != nil {
				t.Fatalf("shard %q: %v", s, err)
			}
			got = append(got, ns+"/"+name)
			_ = msg.Ack()
		}
		if want := "default/app-" + string(s); len(got) != 1 || got[0] != want {
			t.Errorf("shard %q consumed %v, want [%s]", s, got, want)
		}
	}
}

// fetchAtLeast pulls until n messages have come (or 10s pass), then takes
// whatever else is already there. A no-wait fetch alone can race the
// consumer learning of a message the stream has just stored.
func fetchAtLeast(t *testing.T, c jetstream.Consumer, n int) []jetstream.Msg {
	t.Helper()
	var msgs []jetstream.Msg
	deadline := time.Now().Add(10 * time.Second)
	for len(msgs) < n && time.Now().Before(deadline) {
		batch, err := c.Fetch(n-len(msgs), jetstream.FetchMaxWait(time.Second))
		if err != nil {
			t.Fatal(err)
		}
		for msg := range batch.Messages() {
			msgs = append(msgs, msg)
		}
	}
	batch, err := c.FetchNoWait(10)
	if err != nil {
		t.Fatal(err)
	}
	for msg := range batch.Messages() {
		msgs = append(msgs, msg)
	}
	return msgs
}
