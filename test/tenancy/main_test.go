// Package tenancy is issue 17's tenancy matrix on real parts: the split services run as
// processes (compiler, resolver, watcher, applier) against a real kube-apiserver, an
// embedded nats-server and an HTTP artifact server, with the controller locked down as a
// platform team would (--no-cross-namespace-refs, --default-service-account,
// --default-kubeconfig-service-account, the compiler's package policy). Each tenant is a
// namespace whose KCLRuns are applied as its own ServiceAccount, with RBAC only there.
// Each bad case checks the offending KCLRun's status and warning event, that nothing was
// applied, that no process logged another tenant's marker, and that the quiet tenant stays
// Ready. One apiserver and one set of processes serve every case. Skipped under -short.
package tenancy

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

var suite struct {
	skip string
	env  *kube.Env
	bin  string
}

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		suite.skip = "-short: the tenancy tests start an apiserver and the services as processes"
		os.Exit(m.Run())
	}
	os.Exit(run(m))
}

func run(m *testing.M) int {
	ctrllog.SetLogger(logr.Discard())
	bin, err := os.MkdirTemp("", "fkc-tenancy-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "tenancy:", err)
		return 1
	}
	defer os.RemoveAll(bin)
	start := time.Now()
	built := make(chan error, 1)
	go func() { built <- buildServices(bin) }()
	env, err := kube.Start(context.Background())
	if err == nil {
		defer func() { _ = env.Stop() }()
	}
	if err = errors.Join(err, <-built); err != nil {
		fmt.Fprintln(os.Stderr, "tenancy:", err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "tenancy: apiserver started and services built in %s\n", time.Since(start).Round(time.Millisecond))
	suite.env, suite.bin = env, bin
	return m.Run()
}

func buildServices(dir string) error {
	cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator),
		"github.com/kcl-lang/flux-kcl-controller/services/compiler/cmd/compiler",
		"github.com/kcl-lang/flux-kcl-controller/services/resolver/cmd/resolver",
		"github.com/kcl-lang/flux-kcl-controller/services/watcher/cmd/watcher",
		"github.com/kcl-lang/flux-kcl-controller/services/applier/cmd/applier",
	)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("building the services: %w", err)
	}
	return nil
}
