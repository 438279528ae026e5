package reconcilerequest

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/kcl-lang/flux-kcl-controller/internal/shard"
)

// Publisher publishes reconcile requests on a shard's stream.
type Publisher struct {
	js    jetstream.JetStream
	shard shard.Name
	now   func() time.Time
}

// NewPublisher returns a publisher on js for shard s. The stream must exist (EnsureStream).
func NewPublisher(js jetstream.JetStream, s shard.Name) *Publisher {
	return &Publisher{js: js, shard: s, now: time.Now}
}

// Published reports the outcome of one publish.
type Published struct {
	// Sequence of the request in the stream.
	Sequence uint64
	// Duplicate is true when JetStream dropped the request because a request
	// with the same id was published within DuplicateWindow.
	Duplicate bool
}

// Publish sends req on its KCLRun's subject with msgID as Nats-Msg-Id.
//
// msgID must be derived from the observed state that caused the request (for
// example "<uid>/generation/<n>"), never from a clock or a counter, so that
// several watchers seeing the same change publish the same id and JetStream
// keeps one. An empty msgID disables de-duplication for this request.
func (p *Publisher) Publish(ctx context.Context, req Request, msgID string) (Published, error) {
	if req.PublishedAt.IsZero() {
		req.PublishedAt = p.now().UTC()
	}
	data, err := Encode(req)
	if err != nil {
		return Published{}, err
	}
	msg := &nats.Msg{Subject: Subject(p.shard, req.Namespace, req.Name), Data: data, Header: nats.Header{}}
	msg.Header.Set(HeaderReason, string(req.Reason))
	var opts []jetstream.PublishOpt
	if msgID != "" {
		opts = append(opts, jetstream.WithMsgID(msgID))
	}
	opts = append(opts, jetstream.WithExpectStream(p.shard.Stream()))
	ack, err := p.js.PublishMsg(ctx, msg, opts...)
	if err != nil {
		return Published{}, fmt.Errorf("publishing reconcile request for %s (%s): %w", req.Key(), req.Reason, err)
	}
	return Published{Sequence: ack.Sequence, Duplicate: ack.Duplicate}, nil
}
