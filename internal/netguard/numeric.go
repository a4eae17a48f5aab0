package netguard

import (
	"errors"
	"net/netip"
	"strconv"
	"strings"
)

// numericHost reports a host that is not an IP address in its canonical
// form but ends in a number (decimal, octal with a leading 0, or hex with
// 0x): 2130706433, 0x7f000001, 127.1, 0177.0.0.1, 0, 1.2.3.0x4. Some
// resolvers read such a host as an IPv4 address (inet_aton; 127.1 is
// 127.0.0.1), others look it up as a name, so what it reaches depends on
// the machine; and no public name ends in a number (no top-level domain
// is numeric). The guard refuses it. means is the IPv4 address it reads
// as, when it reads as one (for the refusal's message).
func numericHost(host string) (means netip.Addr, numeric bool) {
	h := strings.TrimSuffix(host, ".")
	if h == "" || strings.Contains(h, ":") {
		return netip.Addr{}, false // IPv6 literals are parsed as such
	}
	if a, err := netip.ParseAddr(host); err == nil && a.Is4() {
		return netip.Addr{}, false // canonical dotted quad
	}
	labels := strings.Split(h, ".")
	if _, ok := numberLabel(labels[len(labels)-1]); !ok {
		return netip.Addr{}, false
	}
	return inetAton(labels), true
}

// numberLabel reads a label as inet_aton reads one part: decimal, octal
// (a leading 0) or hex (0x); ok is false for a label that is not a number.
func numberLabel(s string) (n uint64, ok bool) {
	base, digits := 10, s
	switch {
	case len(s) >= 2 && (s[:2] == "0x" || s[:2] == "0X"):
		base, digits = 16, s[2:]
		if digits == "" {
			return 0, true // "0x" alone is 0
		}
	case len(s) > 1 && s[0] == '0':
		base, digits = 8, s[1:]
	}
	if digits == "" {
		return 0, false
	}
	n, err := strconv.ParseUint(digits, base, 64)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return 1 << 40, true // a number too large for any address
	case err != nil:
		return 0, false
	}
	return n, true
}

// inetAton is the IPv4 address that labels read as, inet_aton's way (the
// last part fills the bytes the others leave); invalid when they read as
// none (a part that is not a number, too many parts, a part too large).
func inetAton(labels []string) netip.Addr {
	if len(labels) > 4 {
		return netip.Addr{}
	}
	var b [4]byte
	for i, l := range labels {
		n, ok := numberLabel(l)
		if !ok {
			return netip.Addr{}
		}
		if i < len(labels)-1 {
			if n > 0xff {
				return netip.Addr{}
			}
			b[i] = byte(n)
			continue
		}
		rest := 4 - i // bytes the last part fills
		if n >= 1<<(8*rest) {
			return netip.Addr{}
		}
		for j := 3; j >= i; j-- {
			b[j] = byte(n)
			n >>= 8
		}
	}
	return netip.AddrFrom4(b)
}

// refuseNumeric is the refusal of a numeric host (numericHost).
func refuseNumeric(host string, means netip.Addr) error {
	if means.IsValid() {
		return refusef("the host %s is %s, written in a form only some resolvers read as an address (others look it up as a name); write it as %s, or use a name", host, describe(means), means)
	}
	return refusef("the host %s ends in a number, as no name does, and is no IP address; write an IP address in its usual form, or use a name", host)
}
