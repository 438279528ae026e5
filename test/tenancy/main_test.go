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
	"os"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/test/harness/splitservices"
)

// suite is what TestMain started; every test shares it (Bin holds the services built).
var suite splitservices.Tests

func TestMain(m *testing.M) {
	os.Exit(splitservices.RunTests(m, &suite, "tenancy", "-short: the tenancy tests start an apiserver and the services as processes",
		splitservices.Compiler, splitservices.Resolver, splitservices.Watcher, splitservices.Applier))
}
