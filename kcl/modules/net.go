package modules

import (
	"math/big"
	"net/netip"
	"strconv"
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

// parseIP parses like Rust's Ipv4Addr/Ipv6Addr::from_str (no zones).
func parseIP(s string) (netip.Addr, bool) {
	a, err := netip.ParseAddr(s)
	if err != nil || a.Zone() != "" {
		return netip.Addr{}, false
	}
	return a, true
}

// parseCIDR parses a network; like the cidr crate it refuses host bits.
func parseCIDR(s string) (netip.Prefix, string) {
	p, err := netip.ParsePrefix(s)
	if err != nil {
		if a, ok := parseIP(s); ok { // a bare address is a full-length network
			return netip.PrefixFrom(a, a.BitLen()), ""
		}
		return netip.Prefix{}, "couldn't parse address in network"
	}
	if p.Masked() != p {
		return netip.Prefix{}, "host part of address was not zero"
	}
	return p, ""
}

func addrInt(a netip.Addr) *big.Int { return new(big.Int).SetBytes(a.AsSlice()) }

func intAddr(n *big.Int, v6 bool) netip.Addr {
	size := 4
	if v6 {
		size = 16
	}
	b := make([]byte, size)
	n.FillBytes(b)
	a, _ := netip.AddrFromSlice(b)
	return a
}

func ipv4Global(a netip.Addr) bool {
	o := a.As4()
	u := uint32(o[0])<<24 | uint32(o[1])<<16 | uint32(o[2])<<8 | uint32(o[3])
	if u == 0xc0000009 || u == 0xc000000a {
		return true
	}
	return !a.IsPrivate() && !a.IsLoopback() && !(o[0] == 169 && o[1] == 254) && u != 0xffffffff &&
		!(o[0] == 192 && o[1] == 0 && o[2] == 2) && !(o[0] == 198 && o[1] == 51 && o[2] == 100) && !(o[0] == 203 && o[1] == 0 && o[2] == 113) &&
		!(o[0] == 100 && o[1]&0xc0 == 0x40) && !(o[0] == 192 && o[1] == 0 && o[2] == 0) &&
		!(o[0]&240 == 240) && !(o[0] == 198 && o[1]&0xfe == 18) && o[0] != 0
}

func ipv6Global(a netip.Addr) bool {
	b := a.As16()
	seg := func(i int) uint16 { return uint16(b[2*i])<<8 | uint16(b[2*i+1]) }
	if seg(0)&0xe000 == 0x2000 {
		if seg(0) == 0x2001 && seg(1) == 0xdb8 || seg(0) == 0x2001 && seg(1) == 2 && seg(2) == 0 {
			return false
		}
		return true
	}
	if seg(0) == 0x64 && seg(1) == 0xff9b && seg(2) == 0 && seg(3) == 0 && seg(4) == 0 && seg(5) == 0 {
		v4 := netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
		return ipv4Global(v4) && !v4.IsMulticast()
	}
	return false
}

func cidrAllocate(p netip.Prefix, bits, num int64) (string, string) {
	length := int64(p.Bits()) + bits
	total := int64(p.Addr().BitLen())
	if length > total {
		fam := "IPv4"
		if total == 128 {
			fam = "IPv6"
		}
		return "", "invalid additional_bits: would extend network length to " + strconv.FormatInt(length, 10) + " bits, which is too long for " + fam
	}
	if bits < 63 && num >= int64(1)<<bits {
		return "", "additional_bits of " + strconv.FormatInt(bits, 10) + " does not accommodate a net_num of " + strconv.FormatInt(num, 10)
	}
	if total == 128 && length == 0 {
		return "::/0", ""
	}
	n := addrInt(p.Addr())
	n.Add(n, new(big.Int).Lsh(big.NewInt(num), uint(total-length)))
	return netip.PrefixFrom(intAddr(n, total == 128), int(length)).Masked().String(), ""
}

func init() {
	m := newModule("net")
	ipPred := func(name string, f func(a netip.Addr) bool) {
		def(m, name, func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
			s, ok := strArg(args, kwargs, 0, "ip")
			if !ok {
				return nil, missing(name, "ip")
			}
			a, ok := parseIP(s)
			return value.Bool(ok && f(a)), nil
		})
	}
	ipPred("is_IPv4", netip.Addr.Is4)
	ipPred("is_IPv6", netip.Addr.Is6)
	ipPred("is_IP", func(netip.Addr) bool { return true })
	ipPred("is_loopback_IP", netip.Addr.IsLoopback)
	ipPred("is_multicast_IP", netip.Addr.IsMulticast)
	ipPred("is_interface_local_multicast_IP", func(a netip.Addr) bool {
		b := a.As16()
		return a.Is6() && b[0] == 0xff && b[1]&0x0f == 0x01
	})
	ipPred("is_link_local_multicast_IP", func(a netip.Addr) bool {
		if a.Is4() {
			o := a.As4()
			return o[0] == 224 && o[1] == 0 && o[2] == 0
		}
		b := a.As16()
		return b[0] == 0xff && b[1]&0x0f == 0x02
	})
	ipPred("is_link_local_unicast_IP", func(a netip.Addr) bool {
		if a.Is4() {
			o := a.As4()
			return o[0] == 169 && o[1] == 254
		}
		b := a.As16()
		return b[0] == 0xfe && b[1]&0xc0 == 0x80
	})
	ipPred("is_global_unicast_IP", func(a netip.Addr) bool {
		if a.Is4() {
			return ipv4Global(a) && !a.IsMulticast()
		}
		return ipv6Global(a)
	})
	ipPred("is_unspecified_IP", netip.Addr.IsUnspecified)

	ipString := func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		s, ok := strArg(args, kwargs, 0, "ip")
		if !ok {
			return nil, missing("IP_string", "ip")
		}
		if a, ok := parseIP(s); ok {
			return value.Str(a.String()), nil
		}
		return value.Str(""), nil
	}
	def(m, "IP_string", ipString)
	def(m, "parse_IP", ipString)
	def(m, "to_IP4", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		s, ok := strArg(args, kwargs, 0, "ip")
		if !ok {
			return nil, missing("IP_string", "ip")
		}
		a, ok := parseIP(s)
		switch {
		case !ok:
			return value.Str("can not both parse " + s + " to ipv6 and ipv4,err:invalid IP address syntax"), nil
		case a.Is4():
			return value.Str(a.String()), nil
		case a.Is4In6():
			return value.Str(a.Unmap().String()), nil
		}
		b := a.As16()
		for _, x := range b[:12] {
			if x != 0 {
				return value.Str("can not parse " + s + " ipv6 to ipv4!"), nil
			}
		}
		return value.Str(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}).String()), nil
	})
	def(m, "to_IP6", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		s, ok := strArg(args, kwargs, 0, "ip")
		if !ok {
			return nil, missing("IP_string", "ip")
		}
		a, ok := parseIP(s)
		switch {
		case !ok:
			return value.Str("can not both parse " + s + " to ipv6 and ipv4,err:invalid IP address syntax"), nil
		case a.Is4():
			return value.Str(netip.AddrFrom16(a.As16()).String()), nil
		}
		return value.Str(a.String()), nil
	})
	def(m, "split_host_port", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		s, ok := strArg(args, kwargs, 0, "ip_end_point")
		if !ok {
			return nil, missing("split_host_port", "ip_end_point")
		}
		i := strings.LastIndexByte(s, ':')
		if i < 0 {
			return nil, evalErr("ip_end_point %q missing port", s)
		}
		host, port := s[:i], s[i+1:]
		if strings.HasPrefix(host, "[") {
			end := strings.IndexByte(s, ']')
			switch {
			case end < 0:
				return nil, evalErr("ip_end_point %q missing ']'", s)
			case end > len(host) || !strings.HasPrefix(s[end+1:], ":"):
				return nil, evalErr("ip_end_point %q missing port", s)
			case end < len(host)-1:
				return nil, evalErr("ip_end_point %q too many colons", s)
			}
			return value.NewList([]value.Value{value.Str(host[1:end]), value.Str(port)}), nil
		}
		if strings.Contains(host, ":") {
			return nil, evalErr("ip_end_point %q too many colons", s)
		}
		return value.NewList([]value.Value{value.Str(host), value.Str(port)}), nil
	})
	def(m, "join_host_port", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		h, ok1 := arg(args, kwargs, 0, "host")
		p, ok2 := arg(args, kwargs, 1, "port")
		if !ok1 || !ok2 {
			return nil, missing("join_host_port", "host", "port")
		}
		if strings.Contains(h.String(), ":") {
			return value.Str("[" + h.String() + "]:" + p.String()), nil
		}
		return value.Str(h.String() + ":" + p.String()), nil
	})
	// No network access: the fully qualified name is the name itself.
	def(m, "fqdn", func(t *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		s, _ := strArg(args, kwargs, 0, "name")
		if t != nil && t.Host != nil {
			return value.Str(t.Host.FQDN(s)), nil
		}
		// Sandboxed: no hostname, no resolver.
		return value.Str(s), nil
	})
	def(m, "parse_CIDR", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		s, ok := strArg(args, kwargs, 0, "cidr")
		if !ok {
			return nil, missing("parse_CIDR", "cidr")
		}
		p, bad := parseCIDR(s)
		if bad != "" {
			return value.NewDict(0), nil
		}
		return value.DictOf("ip", value.Str(p.Addr().String()), "mask", value.Int(p.Bits())), nil
	})
	def(m, "is_IP_in_CIDR", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		s, ok1 := strArg(args, kwargs, 0, "ip")
		c, ok2 := strArg(args, kwargs, 1, "cidr")
		if !ok1 || !ok2 {
			return nil, missing("is_IP_in_CIDR", "ip", "cidr")
		}
		a, ok := parseIP(s)
		if !ok {
			return nil, evalErr("is_IP_in_CIDR() invalid ip: invalid IP address syntax")
		}
		p, bad := parseCIDR(c)
		if bad != "" {
			return nil, evalErr("is_IP_in_CIDR() invalid cidr: %s", bad)
		}
		if p.Addr().Is6() && a.Is4() {
			a = netip.AddrFrom16(a.As16())
		}
		return value.Bool(p.Contains(a)), nil
	})
	def(m, "CIDR_subnet", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		c, ok := strArg(args, kwargs, 0, "cidr")
		bits, ok2 := intArg(args, kwargs, 1, "additional_bits")
		num, ok3 := intArg(args, kwargs, 2, "net_num")
		if !ok || !ok2 || !ok3 {
			return nil, evalErr("CIDR_subnet() missing 3 required positional arguments: 'cidr', 'additional_bits', and 'net_num'")
		}
		p, bad := parseCIDR(c)
		if bad != "" {
			return nil, evalErr("CIDR_subnet() invalid cidr: %s", bad)
		}
		if bits < 0 {
			return nil, evalErr("CIDR_subnet() invalid additional_bits: cannot be negative")
		}
		if num < 0 {
			return nil, evalErr("CIDR_subnet() invalid net_num: cannot be negative")
		}
		s, msg := cidrAllocate(p, bits, num)
		if msg != "" {
			return nil, evalErr("CIDR_subnet() %s", msg)
		}
		return value.Str(s), nil
	})
	def(m, "CIDR_subnets", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		c, ok := strArg(args, kwargs, 0, "cidr")
		bl, ok2 := arg(args, kwargs, 1, "additional_bits")
		if !ok || !ok2 {
			return nil, evalErr("CIDR_subnets() missing 2 required positional arguments: 'cidr' and 'additional_bits'")
		}
		p, bad := parseCIDR(c)
		if bad != "" {
			return nil, evalErr("CIDR_subnets() invalid cidr: %s", bad)
		}
		list, _ := bl.(*value.List)
		if list == nil {
			return nil, evalErr("CIDR_subnets() additional_bits must be a list of integers")
		}
		var bitsList, nums []int64
		for _, e := range list.Elems {
			b, ok := e.(value.Int)
			if !ok || b < 0 {
				return nil, evalErr("CIDR_subnets() invalid additional_bits: cannot be negative")
			}
			bits := int64(b)
			newBits := int64(p.Bits()) + bits
			if p.Addr().Is4() && newBits > 32 {
				return nil, evalErr("CIDR_subnets() invalid additional_bits: would extend network length to %d bits, which is too long for IPv4", newBits)
			}
			if p.Addr().Is6() && bits > 63 {
				return nil, evalErr("CIDR_subnets() invalid additional_bits: cannot extend more than 63 bits")
			}
			num := int64(0)
			for again := true; again; {
				again = false
				for i, allocated := range nums {
					an, ab := allocated, bitsList[i]
					if ab > bits {
						an >>= ab - bits
						ab = bits
					}
					if ab < bits {
						an <<= bits - ab
					}
					if an == num {
						num += 1 << (bits - ab)
						again = true
					}
				}
			}
			bitsList = append(bitsList, bits)
			nums = append(nums, num)
		}
		out := make([]value.Value, 0, len(nums))
		for i, num := range nums {
			if bitsList[i] < 63 && num >= int64(1)<<bitsList[i] {
				last := ""
				if len(out) > 0 {
					last = out[len(out)-1].String()
				}
				return nil, evalErr("CIDR_subnets() not enough remaining address space for a subnet with a prefix of %d bits after %s", int64(p.Bits())+bitsList[i], last)
			}
			s, msg := cidrAllocate(p, bitsList[i], num)
			if msg != "" {
				return nil, evalErr("CIDR_subnets %s", msg)
			}
			out = append(out, value.Str(s))
		}
		return value.NewList(out), nil
	})
	def(m, "CIDR_host", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		c, ok := strArg(args, kwargs, 0, "cidr")
		host, ok2 := intArg(args, kwargs, 1, "host_num")
		if !ok || !ok2 {
			return nil, evalErr("CIDR_host() missing 2 required positional arguments: 'cidr' and 'host_num'")
		}
		p, bad := parseCIDR(c)
		if bad != "" {
			return nil, evalErr("CIDR_host() invalid cidr: %s", bad)
		}
		hostLen := p.Addr().BitLen() - p.Bits()
		abs := host
		if host < 0 {
			abs = -(host + 1)
		}
		if hostLen < 64 && uint64(1)<<hostLen <= uint64(abs) {
			return nil, evalErr("CIDR_host() prefix of %d does not accommodate a host numbered %d", p.Bits(), host)
		}
		base := addrInt(p.Addr())
		if host >= 0 {
			base.Add(base, big.NewInt(host))
		} else {
			last := new(big.Int).Lsh(big.NewInt(1), uint(hostLen))
			last.Sub(last, big.NewInt(1))
			base.Add(base, last)
			base.Sub(base, big.NewInt(abs))
		}
		return value.Str(intAddr(base, p.Addr().Is6()).String()), nil
	})
	def(m, "CIDR_netmask", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		c, ok := strArg(args, kwargs, 0, "cidr")
		if !ok {
			return nil, missing("CIDR_netmask", "cidr")
		}
		p, bad := parseCIDR(c)
		if bad != "" {
			return nil, evalErr("CIDR_netmask() invalid cidr: %s", bad)
		}
		total := p.Addr().BitLen()
		mask := new(big.Int).Lsh(big.NewInt(1), uint(total))
		mask.Sub(mask, new(big.Int).Lsh(big.NewInt(1), uint(total-p.Bits())))
		return value.Str(intAddr(mask, p.Addr().Is6()).String()), nil
	})
}
