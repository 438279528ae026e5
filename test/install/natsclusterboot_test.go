package install_test

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"
	. "github.com/onsi/gomega"

	"github.com/kcl-lang/flux-kcl-controller/internal/natsconn"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
	"github.com/kcl-lang/flux-kcl-controller/internal/shard"
	"github.com/kcl-lang/flux-kcl-controller/services/applier/lease"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/pki"
)

// The rendered cluster runs: three nats-servers in-process, each from its pod's nats.conf as
// nats-server parses it (mutual-TLS routes, the per-service users), only moved to loopback
// ports because the pods' DNS names do not resolve here. The watcher and the applier, with the
// replicas and the TLS and user flags the chart gives them, create the reconcile-request
// stream, the appliers' consumer and the lease bucket with three copies, one per server.
func TestChartNATSClusterServes(t *testing.T) {
	g := NewWithT(t)
	objs := renderChart(t, []string{natsClusterValues}, nil)
	certs := pki.NewCA(t, "nats CA").Issue(t, "kcl-nats", "127.0.0.1")
	watcherFlags := serviceArgs(t, objs, "kcl-watcher", "watcher")
	applierFlags := serviceArgs(t, objs, "kcl-applier", "applier")
	nodes := len(strings.Split(applierFlags.NATS.URL, ","))

	ports := freeTCPPorts(t, 2*nodes)
	var urls []string
	for i := range nodes {
		urls = append(urls, fmt.Sprintf("nats://127.0.0.1:%d", ports[i]))
	}
	for i := range nodes {
		opts := parseNATSConfigWith(t, objs, fmt.Sprintf("kcl-nats-%d", i), certs)
		g.Expect(opts.Routes).To(HaveLen(nodes))
		for j, route := range opts.Routes {
			// kcl-nats-j.kcl-nats-headless...:6222 → loopback, scheme and user info kept.
			moved := *route
			moved.Host = fmt.Sprintf("127.0.0.1:%d", ports[nodes+j])
			opts.Routes[j] = &url.URL{Scheme: moved.Scheme, User: moved.User, Host: moved.Host}
		}
		opts.Host, opts.Port = "127.0.0.1", ports[i]
		opts.Cluster.Host, opts.Cluster.Port = "127.0.0.1", ports[nodes+i]
		opts.HTTPPort = 0 // three servers would share the monitor port
		opts.StoreDir = filepath.Join(t.TempDir(), "jetstream")
		opts.NoLog, opts.NoSigs = os.Getenv("NATSLOG") == "", true
		srv, err := server.NewServer(opts)
		g.Expect(err).NotTo(HaveOccurred())
		if !opts.NoLog {
			srv.ConfigureLogger()
		}
		srv.Start()
		t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
		g.Expect(srv.ReadyForConnections(10*time.Second)).To(BeTrue(), "server %d", i)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	connect := func(identity string, c natsconn.Config) jetstream.JetStream {
		return connectAs(t, identity, c, "", urls, certs)
	}
	g.Expect(watcherFlags.NATS.TLSCAFile).NotTo(BeEmpty(), "the chart turns on TLS to NATS")
	g.Expect(watcherFlags.NATS.UserFile).NotTo(BeEmpty(), "and the per-service users")
	watcherJS := connect("watcher", watcherFlags.NATS)
	applierJS := connect("applier", applierFlags.NATS)

	// The first calls wait for the servers to elect a JetStream meta leader.
	// Each attempt has its own deadline: a request sent before the meta leader is elected
	// gets no answer.
	g.Eventually(func() error {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		_, err := reconcilerequest.EnsureStream(ctx, watcherJS, watcherFlags.Watcher.Shard, reconcilerequest.WithReplicas(watcherFlags.Watcher.JetStreamReplicas))
		return err
	}).WithTimeout(time.Minute).WithPolling(200 * time.Millisecond).Should(Succeed())
	g.Eventually(func() error {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if _, err := reconcilerequest.EnsureStream(ctx, applierJS, applierFlags.Applier.Shard, reconcilerequest.WithReplicas(applierFlags.Applier.JetStreamReplicas)); err != nil {
			return err
		}
		if _, err := reconcilerequest.EnsureConsumer(ctx, applierJS, applierFlags.Applier.Shard); err != nil {
			return err
		}
		_, err := lease.Open(ctx, applierJS, lease.Config{Bucket: applierFlags.Applier.Shard.LeaseBucket(), TTL: time.Minute, Holder: "kcl-applier-0", Replicas: applierFlags.Applier.JetStreamReplicas})
		return err
	}).WithTimeout(time.Minute).WithPolling(200 * time.Millisecond).Should(Succeed())

	for _, name := range []string{applierFlags.Applier.Shard.Stream(), shard.KeyValueStream(applierFlags.Applier.Shard.LeaseBucket())} {
		g.Eventually(func(g Gomega) {
			s, err := applierJS.Stream(ctx, name)
			g.Expect(err).NotTo(HaveOccurred())
			info, err := s.Info(ctx)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(info.Config.Replicas).To(Equal(nodes), name)
			g.Expect(info.Cluster).NotTo(BeNil())
			g.Expect(info.Cluster.Leader).NotTo(BeEmpty(), name)
			g.Expect(info.Cluster.Replicas).To(HaveLen(nodes-1), "%s: a copy on every other server", name)
			for _, peer := range info.Cluster.Replicas {
				g.Expect(peer.Current).To(BeTrue(), "%s on %s", name, peer.Name)
			}
		}).WithTimeout(time.Minute).WithPolling(200 * time.Millisecond).Should(Succeed())
	}
}

// connectAs connects to urls as a service does with its parsed NATS flags c (identity and
// shard from them): the mounted user and password Secret and CA replaced by files holding
// what parseNATSConfigWith put in the servers' environment, and the test's CA.
func connectAs(t *testing.T, identity string, c natsconn.Config, s shard.Name, urls []string, certs pki.Files) jetstream.JetStream {
	t.Helper()
	dir := t.TempDir()
	c.URL = strings.Join(urls, ",")
	c.UserFile, c.PasswordFile, c.TLSCAFile = filepath.Join(dir, "user"), filepath.Join(dir, "password"), certs.CA
	for path, data := range map[string]string{c.UserFile: strings.ToUpper(identity), c.PasswordFile: "pw"} {
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	nc, err := c.Connect(identity, s)
	if err != nil {
		t.Fatalf("%s of shard %q: %v", identity, s, err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// freeTCPPorts are loopback ports free at the time of the call.
func freeTCPPorts(t *testing.T, n int) []int {
	t.Helper()
	var ports []int
	var listeners []net.Listener
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		listeners = append(listeners, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range listeners {
		_ = l.Close()
	}
	return ports
}
