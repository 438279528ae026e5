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
	"flag"
	"os"
	"testing"
	"time"

	"github.com/kcl-lang/flux-kcl-controller/test/harness/splitservices"
)

// outage is how long the outage faults last; the load driver uses minutes, tests seconds:
// go test ./test/faults/ -args -fault-outage=1m
var outage = flag.Duration("fault-outage", 3*time.Second, "how long NATS, the apiserver, the artifact server and the events receiver stay down")

// ackWait runs the opt-in test that waits for the consumer's ack wait.
var ackWait = flag.Bool("fault-ackwait", false, "also run TestApplierKilledOnTheLastChange (waits minutes for a redelivery)")

// keepLogs keeps a passing test's service logs and journal too (their folder is logged), to
// read the timestamps of a recovery.
var keepLogs = flag.Bool("fault-keep-logs", false, "keep the service logs and the journal of passing tests too")

// suite is what TestMain started; every test shares it (Bin holds compiler, resolver,
// watcher and journaled-applier).
var suite splitservices.Tests

func TestMain(m *testing.M) {
	os.Exit(splitservices.RunTests(m, &suite, "faults", "-short: the fault tests start an apiserver and the services as processes",
		splitservices.Compiler, splitservices.Resolver, splitservices.Watcher, splitservices.JournaledApplier))
}

func skipIfNeeded(t *testing.T) {
	t.Helper()
	if suite.Skip != "" {
		t.Skip(suite.Skip)
	}
}
