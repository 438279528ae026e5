package kclpackage

import (
	"fmt"
	"net/netip"

	"github.com/spf13/pflag"

	"github.com/kcl-lang/flux-kcl-controller/kcl/mod/fetch"
)

// Policy are the lockdown flags of a shared compiler: which package sources a
// tenant's kcl.mod may make it fetch. A workstation (the local build) has none.
type Policy struct {
	// NoRemote resolves only path and vendored dependencies.
	NoRemote bool
	// AllowedHosts are the registry and Git hosts packages may come from.
	AllowedHosts []string
	// AllowedNetworks (CIDRs) exempt addresses from the refusal of loopback,
	// link-local, private and cluster-internal addresses.
	AllowedNetworks []string
}

// DefaultPolicy allows KCL's own registry and no internal address.
func DefaultPolicy() Policy {
	return Policy{AllowedHosts: append([]string(nil), fetch.DefaultAllowedHosts...)}
}

// BindFlags registers the lockdown flags on fs, defaulting to the values in p.
func (p *Policy) BindFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&p.NoRemote, "no-remote-packages", p.NoRemote,
		"Resolve only path and vendored KCL dependencies: a kcl.mod naming an OCI or Git package is refused (DependencyRefused).")
	fs.StringSliceVar(&p.AllowedHosts, "allowed-package-hosts", p.AllowedHosts,
		"The registry and Git hosts KCL packages may come from, after registry mirrors (host, *.domain, or * for any public host); cluster-internal names must be listed by name.")
	fs.StringSliceVar(&p.AllowedNetworks, "allowed-package-networks", p.AllowedNetworks,
		"CIDRs a KCL package connection may reach although loopback, link-local, private or cluster-internal (an internal registry); every other such address is refused after DNS resolution and on every redirect.")
}

// Fetch is the policy as the package store takes it.
func (p Policy) Fetch() (*fetch.Policy, error) {
	out := &fetch.Policy{NoRemote: p.NoRemote, AllowedHosts: p.AllowedHosts, Enforce: true}
	for _, n := range p.AllowedNetworks {
		prefix, err := netip.ParsePrefix(n)
		if err != nil {
			addr, aerr := netip.ParseAddr(n)
			if aerr != nil {
				return nil, fmt.Errorf("%s: %q is not a CIDR: %w", fetch.FlagAllowedPackageNetwork, n, err)
			}
			prefix = netip.PrefixFrom(addr, addr.BitLen())
		}
		out.AllowedNetworks = append(out.AllowedNetworks, prefix.Masked())
	}
	return out, nil
}
