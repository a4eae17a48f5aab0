// Package netguard is the one guard every outbound HTTP fetch of harnest
// goes through (the alive extension's alive_json today; remote A2A agents,
// model endpoints, MCP over HTTP, push notifications and webhooks as they
// come), so that a URL from configuration or from a peer cannot make the
// server reach its own network: loopback, private ranges, link-local
// (the 169.254.169.254 cloud metadata service included) and other
// non-public addresses.
//
// The rules of a Policy:
//
//   - https for public hosts; plain http only for a loopback host listed in
//     AllowHosts, with AllowHTTPLoopback set.
//   - Loopback, private (RFC 1918, CGNAT 100.64.0.0/10, ULA fc00::/7),
//     link-local, multicast, unspecified, broadcast, documentation,
//     benchmarking and reserved addresses are refused unless the host is
//     listed in AllowHosts (a listed host still never reaches unspecified
//     or multicast addresses).
//   - An IPv6 address that carries an IPv4 one (mapped ::ffff:0:0/96,
//     compatible ::/96, translated ::ffff:0:0:0/96, NAT64 64:ff9b::/96,
//     6to4 2002::/16, Teredo 2001::/32) is judged by the IPv4 address it
//     carries; the local-use NAT64 prefix 64:ff9b:1::/48, whose IPv4
//     address cannot be located, is refused outright.
//
// The check happens when the connection is dialled, on the addresses the
// name resolved to, and only a checked address is dialled: a name that
// resolves to something else the next time (DNS rebinding) gains nothing.
// Every redirect is checked again (its scheme, a downgrade from https to
// http, a hop limit), and so is its connection. Proxies from the
// environment are not used: they would dial on the guard's behalf.
//
// Use:
//
//	p := netguard.Policy{MaxRedirects: 3}
//	if err := p.CheckURL(u); err != nil { ... }          // optional early check, e.g. of configuration
//	client := netguard.Client(p, 10*time.Second)          // bounded in time
//	resp, err := client.Do(req)                           // refusals are *netguard.RefusedError
//	body, err := netguard.ReadLimited(resp, 1<<20)        // bounded in size; ErrTooLarge past it
//
// Tests inject Policy.Resolver and Policy.Dial: a resolver that maps names
// to the addresses under test and a dialer that records what it is asked
// for, so that no test needs to reach outside the machine.
package netguard
