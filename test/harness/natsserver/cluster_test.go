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

// Three nodes, an R3 stream and an R3 bucket: the stream leader is shut down and another
// node leads; a follower goes too and the stream, without a quorum, takes nothing; both
// come back on their ports and stores, and every message and key written is still there.
func TestClusterLeaderAndFollowerShutdownAndRestart(t *testing.T) {
	g := NewWithT(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	c := natsserver.StartClusterT(t)
	g.Expect(c.Nodes()).To(Equal(3))
	g.Expect(c.URLs()).To(HaveLen(3))
	g.Expect(c.MetaLeader()).To(BeNumerically(">=", 0))

	nc, err := c.Connect()
	g.Expect(err).NotTo(HaveOccurred())
	defer nc.Close()
	js, err := jetstream.New(nc)
	g.Expect(err).NotTo(HaveOccurred())
	_, err = js.CreateStream(ctx, jetstream.StreamConfig{
		Name: "SMOKE", Subjects: []string{"smoke.>"}, Storage: jetstream.FileStorage, Replicas: 3,
	})
	g.Expect(err).NotTo(HaveOccurred())
	kv, err := js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: "SMOKE_KV", Replicas: 3})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(c.WaitStreamLeaders(ctx, "SMOKE", natsserver.KVStream("SMOKE_KV"))).To(Succeed())

	publish := func(subject string) error {
		pubCtx, done := context.WithTimeout(ctx, 2*time.Second)
		defer done()
		_, err := js.Publish(pubCtx, subject, []byte(subject))
		return err
	}
	g.Expect(publish("smoke.one")).To(Succeed())
	_, err = kv.Put(ctx, "k", []byte("1"))
	g.Expect(err).NotTo(HaveOccurred())

	leader := c.StreamLeader("SMOKE")
	g.Expect(leader).To(BeNumerically(">=", 0))
	storeDir := c.StoreDir(leader)
	c.Shutdown(leader)
	g.Expect(c.Running(leader)).To(BeFalse())
	g.Expect(c.WaitStreamLeaders(ctx, "SMOKE")).To(Succeed())
	g.Expect(c.StreamLeader("SMOKE")).NotTo(Equal(leader))
	// The client moves to a living node; two of three replicas still make a quorum.
	g.Eventually(func() error { return publish("smoke.two") }, time.Minute, 100*time.Millisecond).Should(Succeed())

	follower := c.StreamFollower("SMOKE")
	g.Expect(follower).To(BeNumerically(">=", 0))
	g.Expect(follower).NotTo(Equal(leader))
	c.Shutdown(follower)
	g.Expect(publish("smoke.lost")).NotTo(Succeed(), "one replica of three accepted a message")

	g.Expect(c.Restart(follower)).To(Succeed())
	g.Expect(c.Restart(leader)).To(Succeed())
	g.Expect(c.StoreDir(leader)).To(Equal(storeDir))
	g.Expect(c.WaitStreamLeaders(ctx, "SMOKE", natsserver.KVStream("SMOKE_KV"))).To(Succeed())
	g.Eventually(nc.Status, 30*time.Second, 50*time.Millisecond).Should(Equal(nats.CONNECTED))
	g.Eventually(func() error { return publish("smoke.three") }, time.Minute, 100*time.Millisecond).Should(Succeed())

	stream, err := js.Stream(ctx, "SMOKE")
	g.Expect(err).NotTo(HaveOccurred())
	for _, subject := range []string{"smoke.one", "smoke.two", "smoke.three"} {
		msg, err := stream.GetLastMsgForSubject(ctx, subject)
		g.Expect(err).NotTo(HaveOccurred(), subject)
		g.Expect(string(msg.Data)).To(Equal(subject))
	}
	info, err := stream.Info(ctx)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(info.Config.Replicas).To(Equal(3))
	g.Expect(info.Cluster.Replicas).To(HaveLen(2), "the leader's two peers")
	entry, err := kv.Get(ctx, "k")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(string(entry.Value())).To(Equal("1"))
}
