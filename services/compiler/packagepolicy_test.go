package compiler_test

import (
	"context"
	"net"
	"strings"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/internal/kclpackage"
	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
	"github.com/kcl-lang/flux-kcl-controller/kcl/mod/registrytest"
	"github.com/kcl-lang/flux-kcl-controller/services/compiler"
)

// withPolicy sets the compiler's package policy (the test allowance dropped).
func withPolicy(p kclpackage.Policy) func(*compiler.Config) {
	return func(c *compiler.Config) { c.PackagePolicy = p }
}

// A tenant's kcl.mod naming a loopback registry reaches nothing under the
// default policy: DependencyRefused, naming the host and the flag.
func TestCompileRefusesPackagesThePolicyRefuses(t *testing.T) {
	reg := registrytest.Start(t)
	reg.Push(t, "kcl-lang/k8s:1.29", registrytest.K8sLike("1.29"))
	_, port, _ := net.SplitHostPort(reg.Host)
	pushed := reg.Requests.Load()
	named := kclpackage.DefaultPolicy()
	named.AllowedHosts = append(named.AllowedHosts, "localhost")
	for _, c := range []struct {
		name   string
		policy kclpackage.Policy
		dep    string
		host   string
		flag   string
	}{
		{"loopback literal, default policy", kclpackage.DefaultPolicy(), `k8s = { oci = "oci://` + reg.Host + `/kcl-lang/k8s", tag = "1.29" }`, "127.0.0.1", "--allowed-package-hosts"},
		{"allowed name resolving to loopback", named, `k8s = { oci = "oci://localhost:` + port + `/kcl-lang/k8s", tag = "1.29" }`, "localhost", "--allowed-package-networks"},
		{"cloud metadata", kclpackage.Policy{AllowedHosts: []string{"*"}}, `m = { oci = "oci://169.254.169.254/latest", tag = "1" }`, "169.254.169.254", "--allowed-package-networks"},
		{"cluster Service", kclpackage.Policy{AllowedHosts: []string{"*"}}, `m = { oci = "oci://registry.tenant-b.svc.cluster.local/kcl-lang/k8s", tag = "1" }`, "registry.tenant-b.svc.cluster.local", "--allowed-package-hosts"},
		{"no remote packages", kclpackage.Policy{NoRemote: true, AllowedHosts: []string{"*"}}, `k8s = "1.29"`, "ghcr.io", "--no-remote-packages"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := startWorker(t, withPolicy(c.policy))
			a := w.publish(t, "refused", map[string]string{
				"kcl.mod": "[package]\nname = \"app\"\n\n[dependencies]\n" + c.dep + "\n",
				"main.k":  k8sProgram,
			})
			_, err := w.client.Compile(context.Background(), workerclient.CompileInput{Artifact: ref(a)})
			ce := compileError(t, err)
			if ce.Stage != workerclient.StageCompile || ce.Kind != compiler.KindDependencyRefused {
				t.Fatalf("got %s %s: %s, want %s", ce.Stage, ce.Kind, ce.Message, compiler.KindDependencyRefused)
			}
			if !strings.Contains(ce.Message, `"`+c.host+`"`) || !strings.Contains(ce.Message, c.flag) {
				t.Fatalf("the message does not name host %s and %s: %s", c.host, c.flag, ce.Message)
			}
		})
	}
	if n := reg.Requests.Load() - pushed; n != 0 {
		t.Fatalf("the loopback registry served %d requests", n)
	}
}

func TestPolicyFlagsRejectABadNetwork(t *testing.T) {
	cfg := compiler.DefaultConfig()
	cfg.GRPCAddr, cfg.MetricsAddr, cfg.HealthAddr = "", "", ""
	cfg.PackagePolicy.AllowedNetworks = []string{"not-a-cidr"}
	if _, err := compiler.New(cfg, compiler.Deps{}); err == nil || !strings.Contains(err.Error(), "--allowed-package-networks") {
		t.Fatalf("got %v, want an error naming --allowed-package-networks", err)
	}
}
