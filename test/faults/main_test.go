// Package faults proves that flux-kcl-controller loses nothing when its parts fail: the
// split services run as real processes (compiler, resolver, watcher, the journaled applier)
// against a real kube-apiserver, an embedded nats-server with JetStream and an HTTP
// artifact server; each test injects one fault (loadtest/fault) under a stream of new
// artifact revisions and ImagePolicy flips, then checks that every KCLRun converges to
// the latest revision and image, that no KCLRun was reconciled by two processes at once
// (the reconcile journal), and logs how long recovery took. badinput_test.go mixes broken
// programs with healthy tenants. Skipped under -short.
package faults

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/kcl-lang/flux-kcl-controller/internal/harness/kube"
	"github.com/kcl-lang/flux-kcl-controller/internal/harness/splitservices"
)

// outage is how long the outage faults last; the load driver uses minutes, tests seconds:
// go test ./test/faults/ -args -fault-outage=1m
var outage = flag.Duration("fault-outage", 3*time.Second, "how long NATS, the apiserver, the artifact server and the events receiver stay down")

// ackWait runs the opt-in test that waits for the consumer's ack wait.
var ackWait = flag.Bool("fault-ackwait", false, "also run TestApplierKilledOnTheLastChange (waits minutes for a redelivery)")

// suite is what TestMain started; every test shares it.
var suite struct {
	skip string
	env  *kube.Env
	// bin holds compiler, resolver, watcher and journaled-applier.
	bin string
}

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		suite.skip = "-short: the fault tests start an apiserver and the services as processes"
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
		fmt.Fprintln(os.Stderr, "faults:", err)
		return 1
	}
	defer func() { _ = s.Stop() }()
	suite.env, suite.bin = s.Env, s.Bin
	return m.Run()
}

func skipIfNeeded(t *testing.T) {
	t.Helper()
	if suite.skip != "" {
		t.Skip(suite.skip)
	}
}
