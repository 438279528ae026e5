package allinone

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
)

func TestMergedFlagSetsEveryService(t *testing.T) {
	var a, b int
	var only bool
	var addrA, addrB string
	setA := pflag.NewFlagSet("a", pflag.ContinueOnError)
	setA.IntVar(&a, "concurrent", 4, "")
	setA.StringVar(&addrA, "metrics-addr", ":8080", "")
	setB := pflag.NewFlagSet("b", pflag.ContinueOnError)
	setB.IntVar(&b, "concurrent", 2, "")
	setB.BoolVar(&only, "drift-detection", false, "")
	setB.StringVar(&addrB, "metrics-addr", ":8080", "")

	fs := pflag.NewFlagSet("all-in-one", pflag.ContinueOnError)
	var own string
	fs.StringVar(&own, "metrics-addr", ":9000", "")
	mergeFlags(fs, map[string]bool{"metrics-addr": true}, setA, setB)
	if err := fs.Parse([]string{"--concurrent=8", "--drift-detection", "--metrics-addr=:1"}); err != nil {
		t.Fatal(err)
	}
	if a != 8 || b != 8 {
		t.Errorf("--concurrent set a=%d b=%d, want 8 for both", a, b)
	}
	if !only {
		t.Error("--drift-detection without value did not set the bool")
	}
	if own != ":1" || addrA != ":8080" || addrB != ":8080" {
		t.Errorf("skipped flag leaked: own=%q a=%q b=%q", own, addrA, addrB)
	}
}

// --jetstream-replicas is one flag for the watcher and the applier (both ensure the
// stream), and the all-in-one process refuses more than one replica: its NATS is one node.
func TestJetStreamReplicasSetsBothAndIsRefusedEmbedded(t *testing.T) {
	cfg := DefaultConfig()
	fs := pflag.NewFlagSet("all-in-one", pflag.ContinueOnError)
	cfg.BindFlags(fs)
	if err := fs.Parse([]string{"--jetstream-replicas=3"}); err != nil {
		t.Fatal(err)
	}
	if cfg.Watcher.JetStreamReplicas != 3 || cfg.Applier.JetStreamReplicas != 3 {
		t.Fatalf("--jetstream-replicas set watcher=%d applier=%d, want 3 for both", cfg.Watcher.JetStreamReplicas, cfg.Applier.JetStreamReplicas)
	}
	if _, err := New(cfg, Deps{RestConfig: &rest.Config{}}); err == nil {
		t.Fatal("all-in-one accepted 3 replicas on its single embedded node")
	}
	if f := fs.Lookup("stream-replicas"); f == nil || f.Deprecated == "" {
		t.Errorf("--stream-replicas should stay, deprecated: %+v", f)
	}
}

// --shard and --watch-label-selector name one shard: the watcher's and the applier's.
func TestShardFlagsSetWatcherAndApplier(t *testing.T) {
	cfg := DefaultConfig()
	fs := pflag.NewFlagSet("all-in-one", pflag.ContinueOnError)
	cfg.BindFlags(fs)
	if err := fs.Parse([]string{"--shard=shard1", "--watch-label-selector=sharding.fluxcd.io/key=shard1"}); err != nil {
		t.Fatal(err)
	}
	if cfg.Watcher.Shard != "shard1" || cfg.Applier.Shard != "shard1" {
		t.Errorf("--shard set watcher %q, applier %q", cfg.Watcher.Shard, cfg.Applier.Shard)
	}
	if cfg.Watcher.WatchLabelSelector != "sharding.fluxcd.io/key=shard1" || cfg.Applier.WatchLabelSelector != cfg.Watcher.WatchLabelSelector {
		t.Errorf("--watch-label-selector set watcher %q, applier %q", cfg.Watcher.WatchLabelSelector, cfg.Applier.WatchLabelSelector)
	}
	bad := DefaultConfig()
	fs = pflag.NewFlagSet("all-in-one", pflag.ContinueOnError)
	fs.SetOutput(new(strings.Builder))
	bad.BindFlags(fs)
	if err := fs.Parse([]string{"--shard=Shard_1"}); err == nil {
		t.Error("--shard=Shard_1 accepted")
	}
}
