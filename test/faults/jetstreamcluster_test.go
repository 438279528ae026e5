package faults

import (
	"context"
	"testing"
	"time"

	"github.com/kcl-lang/flux-kcl-controller/internal/shard"
	"github.com/kcl-lang/flux-kcl-controller/loadtest/fault"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/natsserver"
)

// A three-node JetStream cluster carries the reconcile stream and the appliers' lease and
// fingerprint buckets with three replicas each; two appliers and two compilers work 20
// KCLRuns under a stream of new revisions and ImagePolicy flips. The node leading the
// stream is killed and left down (the other two elect a leader and carry on), then a
// follower too (no quorum: nothing is stored or acknowledged), then both come back on their
// ports and stores. After each fault every KCLRun converges to the latest revision and
// image, the stream empties (every request acked, and with a one-hour interval a request
// acked without its apply would leave its KCLRun behind for good), and the journal shows no
// two reconciles of a KCLRun at once.
func TestJetStreamClusterLeaderThenFollowerKilled(t *testing.T) {
	f := startFleet(t, fleetOptions{natsCluster: true, tenants: 20, compilers: 2})
	streams := []string{
		shard.Name("").Stream(),
		natsserver.KVStream(shard.Name("").LeaseBucket()),
		natsserver.KVStream(shard.Name("").FingerprintBucket()),
	}
	ctx, cancel := context.WithTimeout(context.Background(), convergeTimeout)
	defer cancel()
	if err := f.cluster.WaitStreamLeaders(ctx, streams...); err != nil {
		t.Fatal(err)
	}
	f.addTenants(f.opts.tenants)
	t.Logf("initial convergence of %d KCLRuns: %s", len(f.tenants), f.waitConverged().Round(time.Millisecond))

	nodes := fault.NewClusterNodes(f.cluster, shard.Name("").Stream())
	s := f.startStream(100 * time.Millisecond)
	s.waitChanges(t, 10)
	leader := f.cluster.NodeName(f.cluster.StreamLeader(shard.Name("").Stream()))
	f.runFault(nodes.KillLeader(), s, *outage, func() { t.Logf("stream leader %s killed", leader) })
	t.Logf("stream leader now %s, %s still down", f.cluster.NodeName(f.cluster.StreamLeader(shard.Name("").Stream())), leader)

	s = f.startStream(100 * time.Millisecond)
	s.waitChanges(t, 10)
	f.runFault(nodes.KillFollowerThenRestart(), s, *outage, func() { t.Logf("follower killed too: %v down", nodes.Down()) })
	if err := f.cluster.WaitStreamLeaders(ctx, streams...); err != nil {
		t.Fatal(err)
	}
	t.Logf("all three nodes back, stream leader %s", f.cluster.NodeName(f.cluster.StreamLeader(shard.Name("").Stream())))
}
