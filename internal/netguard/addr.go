package netguard

import (
	"fmt"
	"net/netip"
	"sort"
)

// Class is what an address is, as far as the guard is concerned.
type Class int

// The classes. Only Public addresses are reached by default.
const (
	Public Class = iota
	Loopback
	Private       // RFC 1918, ULA fc00::/7
	Shared        // CGNAT 100.64.0.0/10
	LinkLocal     // 169.254.0.0/16 (cloud metadata), fe80::/10
	Multicast     // 224.0.0.0/4, ff00::/8
	Unspecified   // 0.0.0.0, ::
	Broadcast     // 255.255.255.255
	Documentation // TEST-NET-1..3, 2001:db8::/32, 3fff::/20
	Benchmarking  // 198.18.0.0/15, 2001:2::/48
	Reserved      // everything else that is not globally reachable
)

var classNames = map[Class]string{
	Public: "public", Loopback: "loopback", Private: "private", Shared: "shared (CGNAT)",
	LinkLocal: "link-local", Multicast: "multicast", Unspecified: "unspecified", Broadcast: "broadcast",
	Documentation: "documentation", Benchmarking: "benchmarking", Reserved: "reserved",
}

func (c Class) String() string {
	if n, ok := classNames[c]; ok {
		return n
	}
	return fmt.Sprintf("Class(%d)", int(c))
}

type classed struct {
	prefix netip.Prefix
	class  Class
}

// prefixes lists the blocks most specific first, so that a block inside
// another (2001:2::/48 in 2001::/23) is the one an address is judged by.
func prefixes(m map[string]Class) []classed {
	out := make([]classed, 0, len(m))
	for s, c := range m {
		out = append(out, classed{netip.MustParsePrefix(s), c})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].prefix.Bits() != out[j].prefix.Bits() {
			return out[i].prefix.Bits() > out[j].prefix.Bits()
		}
		return out[i].prefix.String() < out[j].prefix.String()
	})
	return out
}

// v4Special are the IPv4 blocks that are not public (IANA's special-purpose
// registry).
var v4Special = prefixes(map[string]Class{
	"0.0.0.0/8":          Reserved, // "this network"; 0.0.0.0 itself is Unspecified
	"10.0.0.0/8":         Private,
	"100.64.0.0/10":      Shared,
	"127.0.0.0/8":        Loopback,
	"169.254.0.0/16":     LinkLocal,
	"172.16.0.0/12":      Private,
	"192.0.0.0/24":       Reserved, // IETF protocol assignments
	"192.0.2.0/24":       Documentation,
	"192.88.99.0/24":     Reserved, // former 6to4 relay anycast
	"192.168.0.0/16":     Private,
	"198.18.0.0/15":      Benchmarking,
	"198.51.100.0/24":    Documentation,
	"203.0.113.0/24":     Documentation,
	"224.0.0.0/4":        Multicast,
	"240.0.0.0/4":        Reserved, // 255.255.255.255 itself is Broadcast
	"255.255.255.255/32": Broadcast,
})

// v6Special are the native IPv6 blocks that are not public; anything
// outside global unicast 2000::/3 is Reserved too. The forms that carry an
// IPv4 address are handled before these.
var v6Special = prefixes(map[string]Class{
	"fc00::/7":      Private,
	"fe80::/10":     LinkLocal,
	"fec0::/10":     Reserved, // former site-local
	"ff00::/8":      Multicast,
	"100::/64":      Reserved, // discard-only
	"2001:db8::/32": Documentation,
	"3fff::/20":     Documentation,
	"2001:2::/48":   Benchmarking,
	"2001::/23":     Reserved, // IETF protocol assignments (Teredo is judged before)
})

var (
	globalUnicast = netip.MustParsePrefix("2000::/3")
	nat64         = netip.MustParsePrefix("64:ff9b::/96")
	nat64Local    = netip.MustParsePrefix("64:ff9b:1::/48")
	sixToFour     = netip.MustParsePrefix("2002::/16")
	teredo        = netip.MustParsePrefix("2001::/32")
)

// Classify says what an address is. An IPv6 address that carries IPv4
// addresses is judged by them (the least public wins), and embedded lists
// them; the local-use NAT64 prefix 64:ff9b:1::/48 is Reserved, since the
// position of its IPv4 address depends on the network's prefix length.
func Classify(a netip.Addr) (c Class, embedded []netip.Addr) {
	a = a.WithZone("")
	switch {
	case !a.IsValid():
		return Reserved, nil
	case a.Is4():
		return classify4(a), nil
	case a.Is4In6():
		v4 := a.Unmap()
		return classify4(v4), []netip.Addr{v4}
	case a == netip.IPv6Unspecified():
		return Unspecified, nil
	case a == netip.IPv6Loopback():
		return Loopback, nil
	}
	if embedded = embeddedV4(a); embedded != nil {
		for _, v4 := range embedded {
			if c := classify4(v4); c != Public {
				return c, embedded
			}
		}
		return Public, embedded
	}
	if nat64Local.Contains(a) {
		return Reserved, nil
	}
	for _, p := range v6Special {
		if p.prefix.Contains(a) {
			return p.class, nil
		}
	}
	if !globalUnicast.Contains(a) {
		return Reserved, nil
	}
	return Public, nil
}

func classify4(a netip.Addr) Class {
	if a == netip.IPv4Unspecified() {
		return Unspecified
	}
	// The most specific block wins (255.255.255.255/32 inside 240.0.0.0/4).
	best, bits := Public, -1
	for _, p := range v4Special {
		if p.prefix.Contains(a) && p.prefix.Bits() > bits {
			best, bits = p.class, p.prefix.Bits()
		}
	}
	return best
}

// embeddedV4 returns the IPv4 addresses an IPv6 address carries: the
// compatible ::a.b.c.d and translated ::ffff:0:a.b.c.d forms, NAT64
// 64:ff9b::a.b.c.d, 6to4 2002:aabb:ccdd:: and Teredo (its server and its
// obfuscated client address). Mapped addresses are handled by the caller.
func embeddedV4(a netip.Addr) []netip.Addr {
	b := a.As16()
	last := func() netip.Addr { return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}) }
	zero := func(from, to int) bool {
		for _, x := range b[from:to] {
			if x != 0 {
				return false
			}
		}
		return true
	}
	switch {
	case zero(0, 12): // ::/96, compatible (:: and ::1 are handled before)
		return []netip.Addr{last()}
	case zero(0, 8) && b[8] == 0xff && b[9] == 0xff && b[10] == 0 && b[11] == 0: // ::ffff:0:0:0/96, translated
		return []netip.Addr{last()}
	case nat64.Contains(a):
		return []netip.Addr{last()}
	case sixToFour.Contains(a):
		return []netip.Addr{netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]})}
	case teredo.Contains(a):
		server := netip.AddrFrom4([4]byte{b[4], b[5], b[6], b[7]})
		client := netip.AddrFrom4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]})
		return []netip.Addr{server, client}
	}
	return nil
}

// IsPublic reports whether an address is on the public internet (judged
// by the IPv4 address it carries, if any).
func IsPublic(a netip.Addr) bool {
	c, _ := Classify(a)
	return c == Public
}

// describe names an address and what it is, for refusals:
// "10.0.0.1, a private address" or "::ffff:127.0.0.1 (carrying 127.0.0.1),
// a loopback address".
func describe(a netip.Addr) string {
	c, embedded := Classify(a)
	s := a.String()
	if len(embedded) > 0 {
		s += " (carrying"
		for i, e := range embedded {
			if i > 0 {
				s += " and"
			}
			s += " " + e.String()
		}
		s += ")"
	}
	article := "a"
	if c == Unspecified {
		article = "an"
	}
	return fmt.Sprintf("%s, %s %s address", s, article, c)
}
