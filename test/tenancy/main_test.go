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
		suite.skip = "-short: the tenancy tests start an apiserver and the services as processes"
		os.Exit(m.Run())
	}
	os.Exit(run(m))
}

// run starts the apiserver and builds the split services.
func run(m *testing.M) int {
	ctrllog.SetLogger(logr.Discard())
	s, err := splitservices.Start(context.Background(), splitservices.Compiler, splitservices.Resolver, splitservices.Watcher, splitservices.Applier)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tenancy:", err)
		return 1
	}
	defer func() { _ = s.Stop() }()
	suite.env, suite.bin = s.Env, s.Bin
	return m.Run()
}
