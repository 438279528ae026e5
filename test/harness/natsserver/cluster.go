package natsserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// Account is the JetStream account of a server without configured accounts, the one
// every stream of the harness lives in.
const Account = server.DEFAULT_GLOBAL_ACCOUNT

// KVStream is the stream behind a key-value bucket, as JetStream names it.
func KVStream(bucket string) string { return "KV_" + bucket }

// ClusterOptions tune a Cluster; the zero value is three JetStream nodes on loopback.
type ClusterOptions struct {
	// Nodes is the cluster size; 3 when 0.
	Nodes int
	// Name is the cluster name (every node's cluster.name); "fkc" when empty.
	Name string
	// Log enables the nodes' own logs on stderr, for debugging a test.
	Log bool
}

// Cluster is a JetStream cluster of in-process nats-servers joined by routes, as
// nats-server's own tests build one: a cluster name, explicit routes to every node's
// cluster port, a server name and a store dir per node. Nodes are addressed by index.
//
//	c, err := natsserver.StartCluster(natsserver.ClusterOptions{}) // three nodes, a meta leader elected
//	c.URL()                      // "nats://127.0.0.1:a,nats://127.0.0.1:b,nats://127.0.0.1:c"
//	err = c.WaitStreamLeaders(ctx, "FKC_RECONCILE_V1", natsserver.KVStream("FKC_APPLIER_LEASES_V1"))
//	i := c.StreamLeader("FKC_RECONCILE_V1") // -1 while none
//	c.Shutdown(i)                // crash node i; its ports and store are kept
//	err = c.Restart(i)           // same ports, same store: it catches up with the others
//	c.Stop()                     // every node down, store dirs removed
type Cluster struct {
	name  string
	nodes []*clusterNode
	// baseDir holds the nodes' store dirs; Stop removes it.
	baseDir string
}

type clusterNode struct {
	mu   sync.Mutex
	opts server.Options
	srv  *server.Server
	log  bool
}

// StartCluster starts the nodes and waits until they elected a JetStream meta leader
// and every node is current with it.
func StartCluster(o ClusterOptions) (*Cluster, error) {
	if o.Nodes == 0 {
		o.Nodes = 3
	}
	if o.Name == "" {
		o.Name = "fkc"
	}
	base, err := os.MkdirTemp("", "natscluster-")
	if err != nil {
		return nil, fmt.Errorf("creating JetStream store dirs: %w", err)
	}
	c := &Cluster{name: o.Name, baseDir: base}
	// Ports are chosen up front: every node's routes name every node's cluster port, and
	// a restarted node must come back where its peers and the clients look for it.
	ports, err := freePorts(2 * o.Nodes)
	if err != nil {
		c.Stop()
		return nil, err
	}
	var routes []string
	for i := range o.Nodes {
		routes = append(routes, fmt.Sprintf("nats-route://127.0.0.1:%d", ports[o.Nodes+i]))
	}
	for i := range o.Nodes {
		store := fmt.Sprintf("%s/%s-%d", base, o.Name, i)
		if err := os.MkdirAll(store, 0o755); err != nil {
			c.Stop()
			return nil, fmt.Errorf("creating JetStream store dir: %w", err)
		}
		n := &clusterNode{log: o.Log, opts: server.Options{
			// Stable names keep each node's JetStream and Raft identity across restarts.
			ServerName: fmt.Sprintf("%s-%d", o.Name, i),
			Host:       "127.0.0.1",
			Port:       ports[i],
			JetStream:  true,
			StoreDir:   store,
			Cluster: server.ClusterOpts{
				Name: o.Name,
				Host: "127.0.0.1",
				Port: ports[o.Nodes+i],
			},
			Routes:     server.RoutesFromStr(strings.Join(routes, ",")),
			NoLog:      !o.Log,
			Logtime:    true, // with Log: a recovery is read from the nodes' timestamps
			NoSigs:     true,
			MaxPayload: 8 << 20,
		}}
		c.nodes = append(c.nodes, n)
	}
	for _, n := range c.nodes {
		if err := n.start(); err != nil {
			c.Stop()
			return nil, err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	if err := c.WaitMetaLeader(ctx); err != nil {
		c.Stop()
		return nil, err
	}
	// A replicated stream is placed only on peers the meta leader has heard
	// from: right after the start it may not know them all yet, and a
	// three-replica stream created then fails ("no suitable peers for
	// placement").
	if err := c.poll(ctx, func() error {
		l := c.MetaLeader()
		if l < 0 {
			return fmt.Errorf("%w: no meta leader in cluster %s", ErrNoLeader, c.name)
		}
		if s := c.nodes[l].server(); s == nil || len(s.JetStreamClusterPeers()) < len(c.nodes) {
			return fmt.Errorf("%w: the meta leader of cluster %s does not know every peer yet", ErrNoLeader, c.name)
		}
		return nil
	}); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// StartClusterT starts a three-node cluster for a test, failing it on error and stopping
// the cluster on cleanup.
func StartClusterT(tb testing.TB) *Cluster {
	tb.Helper()
	c, err := StartCluster(ClusterOptions{})
	if err != nil {
		tb.Fatalf("starting a nats-server cluster: %v", err)
	}
	tb.Cleanup(c.Stop)
	return c
}

func (n *clusterNode) start() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.srv != nil {
		return nil
	}
	opts := n.opts // the server keeps a pointer; give each instance its own copy
	opts.Routes = append([]*url.URL(nil), n.opts.Routes...)
	srv, err := server.NewServer(&opts)
	if err != nil {
		return fmt.Errorf("creating nats-server %s: %w", n.opts.ServerName, err)
	}
	if n.log {
		srv.ConfigureLogger()
	}
	srv.Start()
	if !srv.ReadyForConnections(readyTimeout) {
		srv.Shutdown()
		return fmt.Errorf("nats-server %s did not become ready for connections", n.opts.ServerName)
	}
	n.srv = srv
	return nil
}

func (n *clusterNode) server() *server.Server {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.srv
}

func (n *clusterNode) shutdown() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.srv == nil {
		return
	}
	n.srv.Shutdown()
	n.srv.WaitForShutdown()
	n.srv = nil
}

// Nodes is the number of nodes, running or not.
func (c *Cluster) Nodes() int { return len(c.nodes) }

// Name is the cluster name.
func (c *Cluster) Name() string { return c.name }

// NodeName is node i's server name (what stream cluster info reports as leader).
func (c *Cluster) NodeName(i int) string { return c.nodes[i].opts.ServerName }

// URLs are the nodes' client URLs, stable across restarts.
func (c *Cluster) URLs() []string {
	urls := make([]string, len(c.nodes))
	for i, n := range c.nodes {
		urls[i] = fmt.Sprintf("nats://%s:%d", n.opts.Host, n.opts.Port)
	}
	return urls
}

// URL is every client URL, comma-separated, as the services' --nats-url takes them.
func (c *Cluster) URL() string { return strings.Join(c.URLs(), ",") }

// StoreDir is node i's JetStream store; kept across Shutdown and Restart.
func (c *Cluster) StoreDir(i int) string { return c.nodes[i].opts.StoreDir }

// Server is node i's nats-server, nil while it is shut down.
func (c *Cluster) Server(i int) *server.Server { return c.nodes[i].server() }

// Running reports whether node i is up.
func (c *Cluster) Running(i int) bool { return c.nodes[i].server() != nil }

// Connect opens a client connection to all nodes that keeps reconnecting forever, moving
// to another node when its own goes down. Extra options are applied after those defaults.
func (c *Cluster) Connect(opts ...nats.Option) (*nats.Conn, error) {
	all := append([]nats.Option{
		nats.MaxReconnects(-1),
		nats.ReconnectWait(50 * time.Millisecond),
	}, opts...)
	nc, err := nats.Connect(c.URL(), all...)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", c.URL(), err)
	}
	return nc, nil
}

// MetaLeader is the index of the node leading the JetStream meta group (stream and
// consumer assignments), -1 while none does.
func (c *Cluster) MetaLeader() int {
	for i, n := range c.nodes {
		if s := n.server(); s != nil && s.JetStreamIsLeader() {
			return i
		}
	}
	return -1
}

// StreamLeader is the index of the node leading stream (a KV bucket: KVStream(bucket)),
// -1 while none does.
func (c *Cluster) StreamLeader(stream string) int {
	for i, n := range c.nodes {
		if s := n.server(); s != nil && s.JetStreamIsStreamLeader(Account, stream) {
			return i
		}
	}
	return -1
}

// StreamFollower is the index of a running node holding a replica of stream that is not
// its leader, -1 when there is none.
func (c *Cluster) StreamFollower(stream string) int {
	for i, n := range c.nodes {
		s := n.server()
		if s != nil && s.JetStreamIsStreamAssigned(Account, stream) && !s.JetStreamIsStreamLeader(Account, stream) {
			return i
		}
	}
	return -1
}

// ErrNoLeader reports that a wait ended with no leader elected.
var ErrNoLeader = errors.New("no JetStream leader")

// WaitMetaLeader waits until a meta leader is elected and every running node is current
// with it (the nodes agree on which streams exist and where).
func (c *Cluster) WaitMetaLeader(ctx context.Context) error {
	return c.poll(ctx, func() error {
		if c.MetaLeader() < 0 {
			return fmt.Errorf("%w: no meta leader in cluster %s", ErrNoLeader, c.name)
		}
		for i, n := range c.nodes {
			if s := n.server(); s != nil && !s.JetStreamIsCurrent() {
				return fmt.Errorf("%w: node %s is not current with the meta leader", ErrNoLeader, c.NodeName(i))
			}
		}
		return nil
	})
}

// WaitStreamLeaders waits for a meta leader, then until each stream has a leader and
// every running node holding a replica of it is current with that leader.
func (c *Cluster) WaitStreamLeaders(ctx context.Context, streams ...string) error {
	if err := c.WaitMetaLeader(ctx); err != nil {
		return err
	}
	return c.poll(ctx, func() error {
		for _, stream := range streams {
			if c.StreamLeader(stream) < 0 {
				return fmt.Errorf("%w: stream %s has no leader", ErrNoLeader, stream)
			}
			for i, n := range c.nodes {
				s := n.server()
				if s != nil && s.JetStreamIsStreamAssigned(Account, stream) && !s.JetStreamIsStreamCurrent(Account, stream) {
					return fmt.Errorf("%w: node %s is behind on stream %s", ErrNoLeader, c.NodeName(i), stream)
				}
			}
		}
		return nil
	})
}

func (c *Cluster) poll(ctx context.Context, check func() error) error {
	for {
		err := check()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return errors.Join(ctx.Err(), err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Shutdown stops node i as a crash would, keeping its ports and store for Restart.
func (c *Cluster) Shutdown(i int) { c.nodes[i].shutdown() }

// Restart starts node i again on its ports with its store, shutting it down first if it
// runs; it then catches up with the others through Raft.
func (c *Cluster) Restart(i int) error {
	c.nodes[i].shutdown()
	return c.nodes[i].start()
}

// Stop shuts every node down and removes the store dirs (idempotent).
func (c *Cluster) Stop() {
	for _, n := range c.nodes {
		n.shutdown()
	}
	if c.baseDir != "" {
		_ = os.RemoveAll(c.baseDir)
		c.baseDir = ""
	}
}

// freePorts reserves n distinct loopback ports by listening on them together, then
// releases them for the servers to bind.
func freePorts(n int) ([]int, error) {
	var ports []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			_ = l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("finding a free port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
