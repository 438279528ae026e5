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
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/kcl-lang/flux-kcl-controller/internal/harness/kube"
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

func run(m *testing.M) int {
	ctrllog.SetLogger(logr.Discard())
	bin, err := os.MkdirTemp("", "fkc-faults-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "faults:", err)
		return 1
	}
	defer os.RemoveAll(bin)
	// The apiserver starts while the services build.
	start := time.Now()
	built := make(chan error, 1)
	go func() { built <- buildServices(bin) }()
	env, err := kube.Start(context.Background())
	if err == nil {
		defer func() { _ = env.Stop() }()
	}
	if err = errors.Join(err, <-built); err != nil {
		fmt.Fprintln(os.Stderr, "faults:", err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "faults: apiserver started and services built in %s\n", time.Since(start).Round(time.Millisecond))
	suite.env, suite.bin = env, bin
	return m.Run()
}

// buildServices builds the split services into dir with one go build (shared cache).
func buildServices(dir string) error {
	cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator),
		"github.com/kcl-lang/flux-kcl-controller/services/compiler/cmd/compiler",
		"github.com/kcl-lang/flux-kcl-controller/services/resolver/cmd/resolver",
		"github.com/kcl-lang/flux-kcl-controller/services/watcher/cmd/watcher",
		"github.com/kcl-lang/flux-kcl-controller/loadtest/fault/cmd/journaled-applier",
	)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("building the services: %w", err)
	}
	return nil
}

func skipIfNeeded(t *testing.T) {
	t.Helper()
	if suite.skip != "" {
		t.Skip(suite.skip)
	}
}
