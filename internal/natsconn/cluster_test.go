package natsconn

import (
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/kcl-lang/flux-kcl-controller/test/harness/natsserver"
)

// --nats-url takes a cluster's URLs comma-separated; when the node a service is
// connected to dies, the connection moves to another one, the dead node still down.
func TestConnectsToAClusterAndMovesOffADeadNode(t *testing.T) {
	c := natsserver.StartClusterT(t)
	nc, err := Config{URL: c.URL()}.Connect(WatcherIdentity, "")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	first := nc.ConnectedUrl()
	dead := -1
	for i, u := range c.URLs() {
		if u == first {
			dead = i
		}
	}
	if dead < 0 {
		t.Fatalf("connected to %s, not one of %v", first, c.URLs())
	}
	c.Shutdown(dead)
	deadline := time.Now().Add(30 * time.Second)
	for nc.Status() != nats.CONNECTED || nc.ConnectedUrl() == first {
		if time.Now().After(deadline) {
			t.Fatalf("still %s at %s after its node died", nc.Status(), nc.ConnectedUrl())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	t.Logf("moved from %s to %s", first, nc.ConnectedUrl())
}
