package fetch_test

import (
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"

	"github.com/kcl-lang/flux-kcl-controller/kcl/mod"
	"github.com/kcl-lang/flux-kcl-controller/kcl/mod/fetch"
	"github.com/kcl-lang/flux-kcl-controller/kcl/mod/registrytest"
)

// resolveWith resolves a program whose only dependency is dep under policy.
func resolveWith(t *testing.T, policy *fetch.Policy, dep string) (*mod.Resolution, error) {
	t.Helper()
	store, err := fetch.New(fetch.Options{CacheDir: t.TempDir(), Retries: 1, Policy: policy})
	if err != nil {
		t.Fatal(err)
	}
	dir := writeProgram(t, map[string]string{
		"kcl.mod": "[package]\nname = \"app\"\n\n[dependencies]\n" + dep + "\n",
		"main.k":  "a = 1\n",
	})
	session := store.Session(nil)
	t.Cleanup(session.Release)
	return mod.Resolve(context.Background(), dir, mod.Options{Fetcher: session})
}

func wantRefusal(t *testing.T, err error, host, flag string) {
	t.Helper()
	var re *fetch.RefusedError
	if !errors.As(err, &re) || !errors.Is(err, fetch.ErrRefused) {
		t.Fatalf("want a refusal by %s of %s, got %v", flag, host, err)
	}
	if re.Host != host || re.Flag != flag {
		t.Fatalf("refused host %q by %s, want %q by %s (%v)", re.Host, re.Flag, host, flag, err)
	}
	if !strings.Contains(err.Error(), host) || !strings.Contains(err.Error(), flag) {
		t.Fatalf("the message does not name the host and the flag: %v", err)
	}
}

// enforced is the compiler's default policy with extra allowed hosts.
func enforced(hosts ...string) *fetch.Policy {
	return &fetch.Policy{Enforce: true, AllowedHosts: append(append([]string(nil), fetch.DefaultAllowedHosts...), hosts...)}
}

var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}

func TestPolicyRefusesHostsNotAllowed(t *testing.T) {
	reg := registrytest.Start(t)
	reg.Push(t, "kcl-lang/k8s:1.29", registrytest.K8sLike("1.29"))
	pushed := reg.Requests.Load()
	_, err := resolveWith(t, enforced(), `k8s = { oci = "oci://`+reg.Host+`/kcl-lang/k8s", tag = "1.29" }`)
	wantRefusal(t, err, "127.0.0.1", fetch.FlagAllowedPackageHosts)
	if n := reg.Requests.Load() - pushed; n != 0 {
		t.Fatalf("the registry served %d requests", n)
	}
}

// A name that resolves to loopback is refused after resolution, by the dialer:
// nothing reaches the server until a test-only network allowance is set.
func TestPolicyRefusesLoopbackAfterResolution(t *testing.T) {
	reg := registrytest.Start(t)
	reg.Push(t, "kcl-lang/k8s:1.29", registrytest.K8sLike("1.29"))
	_, port, _ := net.SplitHostPort(reg.Host)
	dep := `k8s = { oci = "oci://localhost:` + port + `/kcl-lang/k8s", tag = "1.29" }`
	pushed := reg.Requests.Load()
	_, err := resolveWith(t, enforced("localhost"), dep)
	wantRefusal(t, err, "localhost", fetch.FlagAllowedPackageNetwork)
	if !strings.Contains(err.Error(), "loopback") {
		t.Errorf("the refusal does not say why: %v", err)
	}
	if n := reg.Requests.Load() - pushed; n != 0 {
		t.Fatalf("the registry served %d requests", n)
	}

	p := enforced("localhost")
	p.AllowedNetworks = loopback
	res, err := resolveWith(t, p, dep)
	if err != nil {
		t.Fatalf("with 127.0.0.1/32 allowed: %v", err)
	}
	if len(res.Packages) != 1 {
		t.Fatalf("resolved %+v", res.Packages)
	}
}

func TestPolicyRefusesMetadataAndClusterAddresses(t *testing.T) {
	any := &fetch.Policy{Enforce: true, AllowedHosts: []string{"*"}}
	for _, c := range []struct{ dep, host, flag string }{
		{`m = { oci = "oci://169.254.169.254/latest/meta-data", tag = "1" }`, "169.254.169.254", fetch.FlagAllowedPackageNetwork},
		{`m = { oci = "oci://10.96.0.10/kcl-lang/k8s", tag = "1" }`, "10.96.0.10", fetch.FlagAllowedPackageNetwork},
		{`m = { oci = "oci://registry.tenant-b.svc.cluster.local:5000/kcl-lang/k8s", tag = "1" }`, "registry.tenant-b.svc.cluster.local", fetch.FlagAllowedPackageHosts},
		// A single label is completed by the pod's DNS search path (a Service
		// of the compiler's namespace); two labels resolve to a ClusterIP,
		// which the dialer refuses as private.
		{`m = { oci = "oci://registry:5000/kcl-lang/k8s", tag = "1" }`, "registry", fetch.FlagAllowedPackageHosts},
		{`m = { git = "http://169.254.169.254/repo.git", tag = "v1" }`, "169.254.169.254", fetch.FlagAllowedPackageNetwork},
		{`m = { git = "http://git.tenant-b.svc/repo.git", tag = "v1" }`, "git.tenant-b.svc", fetch.FlagAllowedPackageHosts},
		{`m = { git = "file:///var/cache/other-tenant", tag = "v1" }`, "file:///var/cache/other-tenant", fetch.FlagAllowedPackageHosts},
	} {
		_, err := resolveWith(t, any, c.dep)
		wantRefusal(t, err, c.host, c.flag)
	}
}

func TestPolicyNoRemotePackages(t *testing.T) {
	reg := registrytest.Start(t)
	_, err := resolveWith(t, &fetch.Policy{NoRemote: true}, `k8s = "1.29"`)
	wantRefusal(t, err, mod.DefaultRegistry, fetch.FlagNoRemotePackages)
	_, err = resolveWith(t, &fetch.Policy{NoRemote: true}, `k = { git = "https://`+reg.Host+`/k.git" }`)
	wantRefusal(t, err, "127.0.0.1", fetch.FlagNoRemotePackages)
	// Path dependencies still resolve.
	if _, err := resolveWith(t, &fetch.Policy{NoRemote: true, Enforce: true}, `local = { path = "." }`); err != nil && errors.Is(err, fetch.ErrRefused) {
		t.Fatalf("a path dependency was refused: %v", err)
	}
}

// An allowed registry that redirects to a refused address (here 127.0.0.2,
// outside the allowed 127.0.0.1/32) is refused at the redirect.
func TestPolicyRefusesRedirectToARefusedAddress(t *testing.T) {
	var hidden atomic.Int64
	lis, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no 127.0.0.2 on this machine: %v", err)
	}
	inner := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	target := &httptest.Server{Listener: lis, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hidden.Add(1)
		inner.ServeHTTP(w, r)
	})}}
	target.Start()
	t.Cleanup(target.Close)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+r.URL.RequestURI(), http.StatusTemporaryRedirect)
	}))
	t.Cleanup(front.Close)
	_, port, _ := net.SplitHostPort(front.Listener.Addr().String())

	p := enforced("localhost")
	p.AllowedNetworks = loopback
	_, err = resolveWith(t, p, `k8s = { oci = "oci://localhost:`+port+`/kcl-lang/k8s", tag = "1.29" }`)
	wantRefusal(t, err, "127.0.0.2", fetch.FlagAllowedPackageNetwork)
	if n := hidden.Load(); n != 0 {
		t.Fatalf("the refused server served %d requests", n)
	}

	// Git over HTTP takes the same dialer.
	_, err = resolveWith(t, p, `k = { git = "http://localhost:`+port+`/repo.git", tag = "v1" }`)
	wantRefusal(t, err, "127.0.0.2", fetch.FlagAllowedPackageNetwork)
	if n := hidden.Load(); n != 0 {
		t.Fatalf("the refused server served %d requests", n)
	}
}
