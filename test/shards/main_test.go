// Package shards proves that controller shards share one NATS without touching each
// other's KCLRuns: two shards (--shard and --watch-label-selector on the split services,
// run as processes against a real kube-apiserver, one embedded nats-server and an HTTP
// artifact server) each apply only their own KCLRuns, and killing one shard's applier
// holds back only that shard. Skipped under -short.
package shards

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/kcl-lang/flux-kcl-controller/internal/harness/kube"
	"github.com/kcl-lang/flux-kcl-controller/internal/harness/splitservices"
)

var suite struct {
	skip string
	env  *kube.Env
	bin  string
}

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		suite.skip = "-short: the shard test starts an apiserver and the services as processes"
		os.Exit(m.Run())
	}
	os.Exit(run(m))
}

// run starts the apiserver and builds the split services, the journaled applier in
// place of the applier.
func run(m *testing.M) int {
	ctrllog.SetLogger(logr.Discard())
	s, err := splitservices.Start(context.Background(), splitservices.Compiler, splitservices.Resolver, splitservices.Watcher, splitservices.JournaledApplier)
	if err != nil {
		fmt.Fprintln(os.Stderr, "shards:", err)
		return 1
	}
	defer func() { _ = s.Stop() }()
	suite.env, suite.bin = s.Env, s.Bin
	return m.Run()
}
