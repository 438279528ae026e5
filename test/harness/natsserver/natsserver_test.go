package natsserver_test

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	. "github.com/onsi/gomega"

	"github.com/kcl-lang/flux-kcl-controller/test/harness/natsserver"
)

func TestJetStreamPublishConsumeSurvivesRestart(t *testing.T) {
	g := NewWithT(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	s := natsserver.StartT(t)
	nc, err := s.Connect()
	g.Expect(err).NotTo(HaveOccurred())
	defer nc.Close()
	js, err := jetstream.New(nc)
	g.Expect(err).NotTo(HaveOccurred())

	stream, err := js.CreateStream(ctx, jetstream.StreamConfig{
		Name: "SMOKE", Subjects: []string{"smoke.>"}, Storage: jetstream.FileStorage,
	})
	g.Expect(err).NotTo(HaveOccurred())
	_, err = js.Publish(ctx, "smoke.one", []byte("before restart"))
	g.Expect(err).NotTo(HaveOccurred())

	cons, err := stream.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
		Durable: "smoke", AckPolicy: jetstream.AckExplicitPolicy,
	})
	g.Expect(err).NotTo(HaveOccurred())
	msg := nextMessage(g, cons)
	g.Expect(string(msg.Data())).To(Equal("before restart"))
	g.Expect(msg.Ack()).To(Succeed())

	// The same port and store come back: the client reconnects, the stream and the
	// durable consumer (with its ack floor) are still there.
	port := s.Port()
	g.Expect(s.Restart()).To(Succeed())
	g.Expect(s.Port()).To(Equal(port))
	g.Eventually(nc.Status, 30*time.Second, 50*time.Millisecond).Should(Equal(nats.CONNECTED))

	_, err = js.Publish(ctx, "smoke.two", []byte("after restart"))
	g.Expect(err).NotTo(HaveOccurred())
	cons, err = js.Consumer(ctx, "SMOKE", "smoke")
	g.Expect(err).NotTo(HaveOccurred())
	msg = nextMessage(g, cons)
	g.Expect(string(msg.Data())).To(Equal("after restart"))
	g.Expect(msg.Ack()).To(Succeed())

	info, err := stream.Info(ctx)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(info.State.Msgs).To(Equal(uint64(2)))
}

func nextMessage(g *WithT, cons jetstream.Consumer) jetstream.Msg {
	var msg jetstream.Msg
	g.Eventually(func() error {
		var err error
		msg, err = cons.Next(jetstream.FetchMaxWait(time.Second))
		return err
	}, 30*time.Second).Should(Succeed())
	return msg
}
