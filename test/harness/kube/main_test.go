package kube_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/kcl-lang/flux-kcl-controller/test/harness/kube"
)

// env is the one apiserver shared by the tests of this package.
var env *kube.Env

func TestMain(m *testing.M) {
	// envtest logs through controller-runtime, which complains after 30s without a logger.
	ctrllog.SetLogger(logr.Discard())
	start := time.Now()
	var err error
	env, err = kube.Start(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// Reported, not asserted: start time depends on the machine.
	fmt.Fprintf(os.Stderr, "envtest started in %s\n", time.Since(start).Round(time.Millisecond))
	code := m.Run()
	if err := env.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	os.Exit(code)
}
