// Package shards proves that controller shards share one NATS without touching each
// other's KCLRuns: two shards (--shard and --watch-label-selector on the split services,
// run as processes against a real kube-apiserver, one embedded nats-server and an HTTP
// artifact server) each apply only their own KCLRuns, and killing one shard's applier
// holds back only that shard. Skipped under -short.
package shards

import (
	"os"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/test/harness/splitservices"
)

// suite is what TestMain started; every test shares it (Bin holds the services built).
var suite splitservices.Tests

func TestMain(m *testing.M) {
	os.Exit(splitservices.RunTests(m, &suite, "shards", "-short: the shard test starts an apiserver and the services as processes",
		splitservices.Compiler, splitservices.Resolver, splitservices.Watcher, splitservices.JournaledApplier))
}
