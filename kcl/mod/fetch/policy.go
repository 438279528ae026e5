package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing/transport/client"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/kcl-lang/flux-kcl-controller/kcl/mod"
)

// The flags a refusal names, spelled as the compiler's command line has them.
const (
	FlagNoRemotePackages      = "--no-remote-packages"
	FlagAllowedPackageHosts   = "--allowed-package-hosts"
	FlagAllowedPackageNetwork = "--allowed-package-networks"
)

// ErrRefused marks a package the source policy does not let the process fetch.
var ErrRefused = errors.New("package source refused")

// RefusedError is a package (or a connection made for it, redirects included)
// that the policy refused, with the host and the flag that refused it.
type RefusedError struct {
	Source string // the package as written, or the URL a redirect led to
	Host   string
	Flag   string
	Reason string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("package %s: host %q refused by %s: %s", e.Source, e.Host, e.Flag, e.Reason)
}

func (e *RefusedError) Unwrap() error { return ErrRefused }

// Policy says which package sources a shared process may fetch; a platform
// sets it so that tenants' kcl.mod files cannot make the process reach what
// it can reach and they cannot (cloud metadata, cluster Services, loopback).
// The zero Policy allows everything, as a workstation does.
type Policy struct {
	// NoRemote refuses every OCI and Git package: only path and vendored
	// dependencies are resolved.
	NoRemote bool
	// AllowedHosts are the registry and Git hosts (after mirrors) packages may
	// come from: "ghcr.io", "*.example.com", or "*" for any host. Empty allows
	// any host when Enforce is false.
	AllowedHosts []string
	// AllowedNetworks exempt addresses from the refusal of loopback,
	// link-local, private and cluster-internal addresses (an internal
	// registry's network, or a test's loopback server).
	AllowedNetworks []netip.Prefix
	// Enforce turns the policy on: hosts must be allowed and every connection
	// (redirects included) must reach a public address or an allowed network.
	Enforce bool
}

// DefaultAllowedHosts is KCL's own default registry.
var DefaultAllowedHosts = []string{mod.DefaultRegistry}

// checkSource refuses a package by its location, before any connection.
func (p *Policy) checkSource(src mod.Source, registry string) error {
	if p == nil {
		return nil
	}
	host := registry
	if src.Kind == mod.GitSource {
		u, err := url.Parse(src.URL)
		if err != nil || u.Host == "" {
			if p.NoRemote || p.Enforce {
				return &RefusedError{Source: src.String(), Host: src.URL, Flag: FlagAllowedPackageHosts, Reason: "only https and http Git URLs are fetched"}
			}
			return nil
		}
		if (p.Enforce) && u.Scheme != "https" && u.Scheme != "http" {
			return &RefusedError{Source: src.String(), Host: u.Host, Flag: FlagAllowedPackageHosts, Reason: fmt.Sprintf("only https and http Git URLs are fetched, not %s", u.Scheme)}
		}
		host = u.Host
	}
	if p.NoRemote {
		return &RefusedError{Source: src.String(), Host: hostOnly(host), Flag: FlagNoRemotePackages, Reason: "only path and vendored dependencies are allowed"}
	}
	if !p.Enforce {
		return nil
	}
	h := hostOnly(host)
	if !p.hostAllowed(h) {
		return &RefusedError{Source: src.String(), Host: h, Flag: FlagAllowedPackageHosts, Reason: fmt.Sprintf("the allowed hosts are %s", strings.Join(p.AllowedHosts, ", "))}
	}
	if clusterInternalName(h) && !p.hostListed(h) {
		return &RefusedError{Source: src.String(), Host: h, Flag: FlagAllowedPackageHosts, Reason: "a cluster-internal name is fetched only when listed by name"}
	}
	if a, err := netip.ParseAddr(h); err == nil {
		if reason := p.addressRefused(a); reason != "" {
			return &RefusedError{Source: src.String(), Host: h, Flag: FlagAllowedPackageNetwork, Reason: reason}
		}
	}
	return nil
}

func (p *Policy) hostAllowed(h string) bool {
	for _, a := range p.AllowedHosts {
		a = strings.ToLower(strings.TrimSpace(a))
		switch {
		case a == "*":
			return true
		case strings.HasPrefix(a, "*."):
			if strings.HasSuffix(h, a[1:]) {
				return true
			}
		case hostOnly(a) == h:
			return true
		}
	}
	return false
}

// hostListed is an exact (not wildcard) entry of the allow-list.
func (p *Policy) hostListed(h string) bool {
	for _, a := range p.AllowedHosts {
		if hostOnly(strings.ToLower(strings.TrimSpace(a))) == h {
			return true
		}
	}
	return false
}

// clusterInternalName is a name that resolves inside a Kubernetes cluster:
// a Service (name.namespace.svc...), the cluster domain, or a single label
// completed by the pod's DNS search path.
func clusterInternalName(h string) bool {
	if _, err := netip.ParseAddr(h); err == nil {
		return false
	}
	return !strings.Contains(h, ".") || strings.HasSuffix(h, ".svc") || strings.Contains(h, ".svc.") ||
		strings.HasSuffix(h, ".cluster.local") || strings.HasSuffix(h, ".local") || strings.HasSuffix(h, ".internal")
}

// sharedAddressSpace is carrier-grade NAT (RFC 6598), private in practice.
var sharedAddressSpace = netip.MustParsePrefix("100.64.0.0/10")

// addressRefused says why a resolved address is refused, or "".
func (p *Policy) addressRefused(a netip.Addr) string {
	a = a.Unmap()
	for _, n := range p.AllowedNetworks {
		if n.Contains(a) {
			return ""
		}
	}
	switch {
	case a.IsLoopback():
		return fmt.Sprintf("%s is a loopback address", a)
	case a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast():
		return fmt.Sprintf("%s is a link-local address (cloud metadata lives there)", a)
	case a.IsPrivate() || sharedAddressSpace.Contains(a):
		return fmt.Sprintf("%s is a private address (cluster Services and nodes live there)", a)
	case a.IsUnspecified() || a.IsMulticast() || a.IsInterfaceLocalMulticast() || (a.Is4() && a.As4()[0] == 0):
		return fmt.Sprintf("%s is not a routable address", a)
	}
	return ""
}

func hostOnly(hostport string) string {
	h := hostport
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		h = host
	}
	return strings.ToLower(strings.Trim(h, "[]"))
}

// refusalSlot carries the policy of one fetch to the dialer, and the refusal
// back: the transports wrap dial errors in ways that lose their type.
type refusalSlot struct {
	policy *Policy
	source string
	mu     sync.Mutex
	err    *RefusedError
}

type refusalKey struct{}

func withPolicy(ctx context.Context, p *Policy, source string) (context.Context, *refusalSlot) {
	slot := &refusalSlot{policy: p, source: source}
	return context.WithValue(ctx, refusalKey{}, slot), slot
}

func (s *refusalSlot) refused() *RefusedError {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// controlDial checks the address a connection is about to reach, after DNS
// resolution, so that a name resolving (or re-resolving) to a refused address
// and a redirect to one are refused alike.
func controlDial(ctx context.Context, network, address string, _ syscall.RawConn) error {
	slot, _ := ctx.Value(refusalKey{}).(*refusalSlot)
	if slot == nil || slot.policy == nil || !slot.policy.Enforce {
		return nil
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: dialing %s", ErrRefused, address)
	}
	reason := slot.policy.addressRefused(ap.Addr())
	if reason == "" {
		return nil
	}
	host := ap.Addr().String()
	if h, ok := ctx.Value(dialHostKey{}).(string); ok && h != "" {
		host = h
	}
	e := &RefusedError{Source: slot.source, Host: host, Flag: FlagAllowedPackageNetwork, Reason: reason}
	slot.mu.Lock()
	if slot.err == nil {
		slot.err = e
	}
	slot.mu.Unlock()
	return e
}

type dialHostKey struct{}

// policyDialer dials with controlDial; it remembers the host name dialled so
// that a refusal names it rather than only its address.
func policyDialContext() func(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{ControlContext: controlDial}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		return d.DialContext(context.WithValue(ctx, dialHostKey{}, hostOnly(addr)), network, addr)
	}
}

// policyTransport is an HTTP transport whose connections pass the policy of
// their request's context. It ignores proxy variables: under the policy the
// checked address must be the one reached.
func policyTransport(base *http.Transport) *http.Transport {
	t := base.Clone()
	t.DialContext = policyDialContext()
	t.Proxy = proxyUnlessEnforced(base.Proxy)
	return t
}

func proxyUnlessEnforced(proxy func(*http.Request) (*url.URL, error)) func(*http.Request) (*url.URL, error) {
	return func(req *http.Request) (*url.URL, error) {
		if slot, _ := req.Context().Value(refusalKey{}).(*refusalSlot); slot != nil && slot.policy != nil && slot.policy.Enforce {
			return nil, nil
		}
		if proxy == nil {
			return nil, nil
		}
		return proxy(req)
	}
}

// installGitTransport makes go-git's HTTP transports (process-wide) dial
// through the policy of each clone's context. Connections are not kept: a
// connection allowed for one store's policy is not reused under another's.
var installGitTransport = sync.OnceFunc(func() {
	t := policyTransport(http.DefaultTransport.(*http.Transport))
	t.DisableKeepAlives = true
	c := githttp.NewClient(&http.Client{Transport: t})
	client.InstallProtocol("https", c)
	client.InstallProtocol("http", c)
})

// refusal turns a failed fetch into the policy's refusal when a connection
// of it was refused.
func refusal(err error, slot *refusalSlot) error {
	if err == nil || slot == nil {
		return err
	}
	var re *RefusedError
	if errors.As(err, &re) {
		return re
	}
	if r := slot.refused(); r != nil {
		return r
	}
	return err
}
